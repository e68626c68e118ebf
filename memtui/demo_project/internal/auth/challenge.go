// Package auth issues and checks registry tokens.
package auth

import "fmt"

// ChallengeHeader is the WWW-Authenticate value of a 401 from /v2/.
func ChallengeHeader(realm, service, scope string) string {
	return fmt.Sprintf(`Bearer realm=%q,service=%q,scope=%q`, realm, service, scope)
}
