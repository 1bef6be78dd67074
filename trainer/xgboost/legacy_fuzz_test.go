package xgboost

import "testing"

func FuzzLegacyAttrs(f *testing.F) {
	f.Add([]byte("binf"))
	f.Add(make([]byte, 200))
	f.Fuzz(func(t *testing.T, b []byte) {
		LegacyAttrs(b) // must not panic
	})
}
