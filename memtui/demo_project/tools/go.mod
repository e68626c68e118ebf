module github.com/example/harbor/tools

go 1.23

require github.com/sqlc-dev/sqlc v1.27.0
