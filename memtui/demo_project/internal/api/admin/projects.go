// Package admin is the admin UI's API under /api/admin/v1 (OIDC sessions, not registry tokens).
package admin

import "net/http"

func listProjects(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) }
