package v2

import "testing"

func FuzzParseReference(f *testing.F) {
	f.Add("team/app:latest")
	f.Fuzz(func(t *testing.T, ref string) {})
}
