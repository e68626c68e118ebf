// Package v2 is the OCI distribution API under /v2/.
package v2

import "net/http"

// Router serves every /v2/ route; route labels in metrics are the templated patterns.
func Router() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v2/{name}/blobs/{digest}", getBlob)
	mux.HandleFunc("HEAD /v2/{name}/blobs/{digest}", headBlob)
	mux.HandleFunc("PUT /v2/{name}/blobs/uploads/{uuid}", finishUpload)
	mux.HandleFunc("GET /v2/{name}/referrers/{digest}", ReferrersHandler)
	return instrument(mux)
}

func getBlob(w http.ResponseWriter, r *http.Request)  { WriteError(w, r, ErrBlobNotFound) }
func headBlob(w http.ResponseWriter, r *http.Request) { w.Header().Set("Content-Length", "0") }
