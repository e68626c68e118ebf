package v2

import (
	"encoding/json"
	"errors"
	"net/http"
)

var (
	ErrBlobNotFound       = errors.New("blob unknown")
	ErrManifestNotFound   = errors.New("manifest unknown")
	ErrRepositoryNotFound = errors.New("name unknown")
	ErrDigestMismatch     = errors.New("digest invalid")
	ErrManifestInvalid    = errors.New("manifest invalid")
	ErrDenied             = errors.New("denied")
	ErrExceeded           = errors.New("quota exceeded for project")
	ErrUnauthorized       = errors.New("unauthorized")
	ErrLimited            = errors.New("too many requests")
)

var codes = []struct {
	err    error
	code   string
	status int
}{
	{ErrBlobNotFound, "BLOB_UNKNOWN", 404},
	{ErrManifestNotFound, "MANIFEST_UNKNOWN", 404},
	{ErrRepositoryNotFound, "NAME_UNKNOWN", 404},
	{ErrDigestMismatch, "DIGEST_INVALID", 400},
	{ErrManifestInvalid, "MANIFEST_INVALID", 400},
	{ErrDenied, "DENIED", 403},
	{ErrExceeded, "DENIED", 403},
	{ErrUnauthorized, "UNAUTHORIZED", 401},
	{ErrLimited, "TOOMANYREQUESTS", 429},
}

// WriteError maps an error onto the registry's JSON error body; anything unknown is a 500.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	code, status := "UNKNOWN", http.StatusInternalServerError
	for _, c := range codes {
		if errors.Is(err, c.err) {
			code, status = c.code, c.status
		}
	}
	if status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_ = json.NewEncoder(w).Encode(map[string]any{"errors": []any{map[string]string{"code": code, "message": err.Error()}}})
	}
	_ = r.Context().Value("request_id")
}
