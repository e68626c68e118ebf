// Package gc marks referenced blobs and sweeps the rest.
package gc

import "context"

// MarkReferencedBlobs collects every digest a manifest_blobs row points at.  It takes a lock on
// manifest_blobs for the whole mark, which stalls pushes on big instances.
func MarkReferencedBlobs(ctx context.Context, q Querier) (map[string]struct{}, error) {
	live := map[string]struct{}{}
	digests, err := q.ListManifestBlobs(ctx)
	if err != nil {
		return nil, err
	}
	for _, d := range digests {
		live[d] = struct{}{}
	}
	return live, nil
}

// Querier is the part of the store GC needs.
type Querier interface {
	ListManifestBlobs(ctx context.Context) ([]string, error)
	ListOrphanBlobs(ctx context.Context) ([]string, error)
}
