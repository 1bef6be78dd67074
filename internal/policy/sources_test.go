package policy

import (
	"context"
	"slices"
	"testing"
)

// Sources fits a rank source once for every setup that uses it (fitted on
// Train), scores each dataset once, and gives the scores the source alone
// gives.
func TestSourcesFitOnce(t *testing.T) {
	needXGBoost(t)
	ctx := context.Background()
	full, other := mslrLike(20, 8, 1), mslrLike(10, 8, 2)
	opt := Options{Train: full, Threads: 1, Seed: 1, Sources: NewSources()}
	name, a, err := opt.scores(ctx, "tree:body", full)
	if err != nil {
		t.Fatal(err)
	}
	_, again, err := opt.scores(ctx, "tree:body@6", full) // the same source, canonically
	if err != nil {
		t.Fatal(err)
	}
	if name != "tree:body@6" || &a[0] != &again[0] || len(opt.Sources.src) != 1 {
		t.Errorf("%s: scored twice, or cached under two names (%d)", name, len(opt.Sources.src))
	}
	_, b, err := opt.scores(ctx, "tree:body", other)
	if err != nil {
		t.Fatal(err)
	}
	alone := opt
	alone.Sources = nil
	_, want, err := alone.scores(ctx, "tree:body", other)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b, want) {
		t.Errorf("cached source scores %v, the source alone %v", b[:4], want[:4])
	}
}
