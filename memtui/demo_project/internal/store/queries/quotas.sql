-- name: RecalculateQuota :exec
UPDATE quotas SET used_bytes = (
    SELECT coalesce(SUM(b.size_bytes), 0) FROM blobs b
    WHERE b.digest IN (SELECT mb.blob_digest FROM manifest_blobs mb
                       JOIN manifests m ON m.id = mb.manifest_id
                       JOIN repositories r ON r.id = m.repository_id
                       WHERE r.project_id = quotas.project_id)
) WHERE project_id = $1;
