module github.com/example/harbor

go 1.23

require (
	github.com/jackc/pgx/v5 v5.7.1
	github.com/aws/aws-sdk-go-v2/service/s3 v1.66.0
	github.com/prometheus/client_golang v1.20.5
	golang.org/x/time v0.8.0
)
