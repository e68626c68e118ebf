-- name: CommitManifest :exec
INSERT INTO manifests (repository_id, digest, media_type, payload, pushed_at) VALUES ($1, $2, $3, $4, now());

-- name: ListManifestBlobs :many
SELECT DISTINCT blob_digest FROM manifest_blobs;
