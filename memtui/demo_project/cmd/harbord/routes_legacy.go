package main

import (
	"net/http"

	"github.com/example/harbor/internal/api/v1compat"
)

// registerLegacyRoutes serves the v1 catalog and search calls when --enable-v1-compat is set.
func registerLegacyRoutes(mux *http.ServeMux) {
	mux.Handle("/v1/search", v1compat.V1CatalogHandler{})
	mux.Handle("/v1/repositories/", v1compat.V1CatalogHandler{})
}
