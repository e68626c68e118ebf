// Package fs stores blobs on a local disk; its temp folder must share the filesystem.
package fs

type Driver struct{ Root string }
