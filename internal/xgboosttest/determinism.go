package xgboosttest

import (
	"bytes"
	"testing"
)

// CheckSeedDeterminesBytes checks that model (a training run returning the
// saved model's bytes) gives the same bytes twice for seed and threads,
// other bytes for seed+1 (so the seed reaches a random step), and the same
// bytes with the other of 1 and 2 threads: XGBoost 1.7's hist sums
// histograms in a fixed order, so the thread count must not show.
func CheckSeedDeterminesBytes(t *testing.T, seed int64, threads int, model func(seed int64, threads int) []byte) {
	t.Helper()
	a := model(seed, threads)
	if !bytes.Equal(a, model(seed, threads)) {
		t.Fatal("same seed and threads: different model bytes")
	}
	if bytes.Equal(a, model(seed+1, threads)) {
		t.Fatal("another seed gave the same bytes")
	}
	if !bytes.Equal(a, model(seed, 3-threads)) {
		t.Fatal("1 and 2 threads gave different model bytes")
	}
}
