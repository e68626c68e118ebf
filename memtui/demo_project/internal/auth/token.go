package auth

import (
	"fmt"
	"net/http"
	"time"
)

// TokenHandler answers /service/token with a 5-minute ES256 JWT.
type TokenHandler struct{}

func NewTokenHandler() *TokenHandler { return &TokenHandler{} }

func (h *TokenHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	scopes, err := ParseScope(r.URL.Query().Get("scope"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	token, err := IssueRegistryToken(r.Context(), scopes, 5*time.Minute)
	if err != nil {
		http.Error(w, fmt.Errorf("token: %w", err).Error(), http.StatusInternalServerError)
		return
	}
	_, _ = w.Write([]byte(token))
}
