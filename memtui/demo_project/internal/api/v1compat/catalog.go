// Package v1compat answers the v1 catalog and search calls of legacy clients from the v2 tables.
package v1compat

import (
	"encoding/json"
	"net/http"
)

// V1CatalogHandler serves GET /v1/search and the paged tags listing; read-only.
type V1CatalogHandler struct{}

func (V1CatalogHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// num_results must stay: the legacy tool crashes without it.
	_ = json.NewEncoder(w).Encode(map[string]any{"num_results": 0, "results": []any{}})
}
