package auth

import "testing"

func FuzzParseScope(f *testing.F) {
	f.Add("repository:team/app:pull,push")
	f.Fuzz(func(t *testing.T, s string) { _, _ = ParseScope(s) })
}
