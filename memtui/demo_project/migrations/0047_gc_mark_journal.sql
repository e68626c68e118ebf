-- +goose Up
CREATE TABLE gc_mark_journal (
    run_id      bigint NOT NULL REFERENCES gc_runs (id),
    blob_digest text   NOT NULL,
    PRIMARY KEY (run_id, blob_digest)
);

-- +goose Down
DROP TABLE gc_mark_journal;
