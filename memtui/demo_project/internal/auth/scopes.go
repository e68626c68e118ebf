package auth

import "strings"

// Scope is one repository:name:actions grant.
type Scope struct{ Type, Name string; Actions []string }

// ParseScope reads a scope parameter such as repository:team/app:pull,push.
func ParseScope(s string) ([]Scope, error) {
	parts := strings.SplitN(s, ":", 3)
	if len(parts) < 3 {
		return nil, nil
	}
	return []Scope{{Type: parts[0], Name: parts[1], Actions: strings.Split(parts[2], ",")}}, nil
}
