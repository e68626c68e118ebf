package main

import (
	"net/http"

	"github.com/example/harbor/internal/api/v2"
	"github.com/example/harbor/internal/auth"
)

// registerRoutes wires the /v2/ API, the token endpoint and the admin API.
func registerRoutes(mux *http.ServeMux) {
	mux.Handle("/v2/", auth.RequireToken(v2.Router()))
	mux.Handle("/service/token", auth.NewTokenHandler())
}

func serveMetrics(addr string) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", v2.MetricsHandler())
	_ = http.ListenAndServe(addr, mux)
}
