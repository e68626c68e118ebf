package gc

import "github.com/prometheus/client_golang/prometheus"

var journalRows = prometheus.NewCounter(prometheus.CounterOpts{Name: "harbor_gc_mark_journal_rows"})
