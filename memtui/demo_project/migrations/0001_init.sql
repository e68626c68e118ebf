-- +goose Up
CREATE TABLE repositories (id bigserial PRIMARY KEY, project_id bigint NOT NULL, name text NOT NULL, UNIQUE (project_id, name));
CREATE TABLE manifests (id bigserial PRIMARY KEY, repository_id bigint NOT NULL REFERENCES repositories (id), digest text NOT NULL,
                        media_type text NOT NULL, payload jsonb NOT NULL, pushed_at timestamptz NOT NULL, UNIQUE (repository_id, digest));
CREATE TABLE tags (repository_id bigint NOT NULL, name text NOT NULL, manifest_id bigint NOT NULL REFERENCES manifests (id), PRIMARY KEY (repository_id, name));
CREATE TABLE blobs (digest text PRIMARY KEY, size_bytes bigint NOT NULL, committed_at timestamptz NOT NULL, storage_key text NOT NULL);
CREATE TABLE manifest_blobs (manifest_id bigint NOT NULL REFERENCES manifests (id), blob_digest text NOT NULL, PRIMARY KEY (manifest_id, blob_digest));
CREATE INDEX manifest_blobs_blob_digest ON manifest_blobs (blob_digest);
CREATE TABLE upload_sessions (uuid uuid PRIMARY KEY, started_at timestamptz NOT NULL, last_chunk_at timestamptz, "offset" bigint NOT NULL DEFAULT 0);
CREATE TABLE gc_runs (id bigserial PRIMARY KEY, started_at timestamptz NOT NULL, finished_at timestamptz, blobs_swept bigint, bytes_reclaimed bigint);
CREATE TABLE keys (kid text PRIMARY KEY, private_pem text NOT NULL, created_at timestamptz NOT NULL);
