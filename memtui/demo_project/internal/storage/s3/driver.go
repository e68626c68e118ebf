// Package s3 stores blobs in an S3 bucket (or MinIO with --s3-path-style).
package s3

// Deletes are throttled by AWS with SlowDown; the GC sweep lowers its concurrency when it sees one.
const slowDownCode = "SlowDown"
