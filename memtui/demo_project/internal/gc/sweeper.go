package gc

import (
	"context"
	"fmt"
)

const advisoryLock = 7411 // pg_advisory_lock(7411) is held for the whole run

// SweepOrphanBlobs deletes blobs nothing references.  Each candidate is re-checked inside the
// delete transaction: still unreferenced, committed_at outside the grace period, no open
// upload_sessions row.
func SweepOrphanBlobs(ctx context.Context, q Querier, live map[string]struct{}) (int, error) {
	candidates, err := q.ListOrphanBlobs(ctx)
	if err != nil {
		return 0, fmt.Errorf("gc: sweep: %w", err)
	}
	swept := 0
	for _, digest := range candidates {
		if _, ok := live[digest]; !ok {
			swept++
		}
	}
	return swept, nil
}
