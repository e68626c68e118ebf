// Command harbord is the registry daemon.
package main

import (
	"flag"
	"log/slog"
	"net/http"
	"os"
	"time"
)

func main() {
	addr := flag.String("addr", ":5000", "listen address")
	metricsAddr := flag.String("metrics-addr", ":9090", "Prometheus listener")
	grace := flag.Duration("gc-grace-period", 24*time.Hour, "blobs committed this recently are never swept")
	_ = flag.Bool("gc-abort-multipart", true, "abort stale S3 multipart uploads after each sweep")
	_ = flag.Bool("quota-enforce", false, "refuse uploads over a project's quota")
	_ = flag.String("oidc-groups-claim", "groups", "ID token claim holding group names")
	flag.Parse()

	logger := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	mux := http.NewServeMux()
	registerRoutes(mux)
	go serveMetrics(*metricsAddr)
	logger.Info("harbord listening", "addr", *addr, "gc_grace", grace.String())
	if err := http.ListenAndServe(*addr, mux); err != nil {
		logger.Error("harbord stopped", "err", err)
		os.Exit(1)
	}
}
