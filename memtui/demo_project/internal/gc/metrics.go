package gc

import "github.com/prometheus/client_golang/prometheus"

var (
	blobsSwept     = prometheus.NewCounter(prometheus.CounterOpts{Name: "harbor_gc_blobs_swept_total"})
	bytesReclaimed = prometheus.NewCounter(prometheus.CounterOpts{Name: "harbor_gc_bytes_reclaimed_total"})
	markDuration   = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "harbor_gc_mark_duration_seconds"})
	// CountOrphanBlobs feeds this gauge, dry runs included.
	orphanBlobs = prometheus.NewGauge(prometheus.GaugeOpts{Name: "harbor_gc_orphan_blobs"})
)
