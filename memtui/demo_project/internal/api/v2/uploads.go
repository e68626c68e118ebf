package v2

import (
	"net/http"

	"github.com/example/harbor/internal/quota"
)

// finishUpload commits an upload; the quota is checked here, at the final PUT, not at manifest push.
func finishUpload(w http.ResponseWriter, r *http.Request) {
	if err := quota.Default().Check(r.Context(), r.PathValue("name"), r.ContentLength); err != nil {
		WriteError(w, r, ErrExceeded)
		return
	}
	w.WriteHeader(http.StatusCreated)
}
