package v1compat

import "testing"

func TestSearchKeepsNumResults(t *testing.T) {
	t.Skip("needs Postgres")
}
