-- +goose Up
CREATE TABLE manifest_referrers (subject_id bigint NOT NULL REFERENCES manifests (id),
                                 referrer_id bigint NOT NULL REFERENCES manifests (id), artifact_type text,
                                 PRIMARY KEY (subject_id, referrer_id));
ALTER TABLE projects ADD COLUMN untagged_retention interval;
