-- name: InsertGCRun :one
INSERT INTO gc_runs (started_at) VALUES (now()) RETURNING id;

-- name: FinishGCRun :exec
UPDATE gc_runs SET finished_at = now(), blobs_swept = $2, bytes_reclaimed = $3 WHERE id = $1;
