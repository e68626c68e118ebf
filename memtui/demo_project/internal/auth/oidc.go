package auth

import "context"

// OIDCProvider logs admin users in and reads their groups claim (--oidc-groups-claim).
type OIDCProvider struct{ GroupsClaim string }

// Exchange trades an authorization code for the user's identity and groups.
func (p *OIDCProvider) Exchange(ctx context.Context, code string) (user string, groups []string, err error) {
	return "", nil, nil
}
