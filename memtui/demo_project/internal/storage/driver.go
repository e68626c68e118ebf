// Package storage abstracts where blob bytes live: S3 or a local disk.
package storage

import (
	"context"
	"io"
)

// Driver is implemented by storage/s3 and storage/fs.
type Driver interface {
	Reader(ctx context.Context, path string, offset int64) (io.ReadCloser, error)
	Writer(ctx context.Context, path string, resume bool) (io.WriteCloser, error)
	Stat(ctx context.Context, path string) (int64, error)
	Delete(ctx context.Context, path string) error
	Move(ctx context.Context, from, to string) error
}
