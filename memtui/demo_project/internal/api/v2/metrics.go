package v2

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

var (
	requestDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "harbor_http_request_duration_seconds", Help: "request latency by templated route",
	}, []string{"route", "method", "code"})
	uploadSessionsOpen = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "harbor_upload_sessions_open", Help: "upload sessions not yet finished",
	})
)

func instrument(h http.Handler) http.Handler { return h }

// MetricsHandler serves /metrics on the separate metrics listener.
func MetricsHandler() http.Handler { return promhttp.Handler() }
