-- name: SearchRepositoriesV1 :many
SELECT name FROM repositories WHERE name ILIKE '%' || $1 || '%' ORDER BY name LIMIT $2 OFFSET $3;
