// Command harborctl is the admin CLI: gc, quota, storage, project, keys.
package main

import (
	"fmt"
	"os"
)

var commands = map[string]string{
	"gc status":                     "show the GC lock (advisory lock 7411) and the last gc_runs row",
	"gc run":                        "run a GC; --dry-run --output candidates.txt first",
	"gc pause":                      "stop scheduled runs",
	"gc reconcile":                  "re-check one digest against manifest_blobs",
	"quota recalc":                  "recompute quotas.used_bytes",
	"storage abort-stale-multipart": "abort S3 multipart uploads older than --older-than",
	"storage restore-blob":          "restore a blob from bucket versioning",
	"project set":                   "change a project setting (--untagged-retention)",
	"project group-role set":        "map an OIDC group onto a project role",
	"keys rotate":                   "add a signing key; the old one stays valid 24 h",
}

func main() {
	if len(os.Args) < 2 {
		for name, help := range commands {
			fmt.Printf("%-32s %s\n", name, help)
		}
		return
	}
	fmt.Fprintln(os.Stderr, "harborctl: talks to /api/admin/v1")
}
