-- name: GetBlob :one
SELECT digest, size_bytes, storage_key, committed_at FROM blobs WHERE digest = $1;

-- name: ListOrphanBlobs :many
SELECT b.digest FROM blobs b
LEFT JOIN manifest_blobs mb ON mb.blob_digest = b.digest
WHERE mb.blob_digest IS NULL AND b.committed_at < now() - $1::interval;

-- name: CountOrphanBlobs :one
SELECT count(*) FROM blobs b
WHERE NOT EXISTS (SELECT 1 FROM manifest_blobs mb WHERE mb.blob_digest = b.digest);
