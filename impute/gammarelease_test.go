package impute

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A per-context cache drops Γ once every context of its content released
// it, keeping a summary that reports what Γ reported (shape, solver, rank,
// bound, spectrum: the fast path's rebuilt on demand, the eigen path's
// kept); a later Query computes Γ again, to the same bits.
func TestGammaCacheRelease(t *testing.T) {
	src := rand.New(rand.NewPCG(3, 4))
	m, l := 7, 3
	scores := make([]float64, m)
	for i := range scores {
		scores[i] = float64(m-i) + src.Float64()/2 // decreasing
	}
	pl, err := mustLogging(t, "pl:1").ScoredDist(scores, l)
	if err != nil {
		t.Fatal(err)
	}
	pl2, _ := mustLogging(t, "pl:1").ScoredDist(slices.Clone(scores), l) // equal content: one Γ
	slates, probs := randomSlates(src, m, l, 4)
	sl, err := mustLogging(t, "slates").SlateDist(m, l, slates, probs)
	if err != nil {
		t.Fatal(err)
	}
	gc := NewContextGammas([]*Dist{pl, pl2, sl}, GammaOptions{})
	v := make([]float64, l*m)
	for i := range v {
		v[i] = src.NormFloat64()
	}
	apply := func(q int) ([]float64, *Gamma) {
		g, err := gc.Query(q, m, l)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]float64, l*m)
		g.PinvMulVec(out, v)
		return out, g
	}
	want, live := apply(0)
	if live.fast == nil {
		t.Fatal("Plackett–Luce Γ not on the fast path")
	}
	gc.Release(0)
	if g, _ := gc.Query(1, m, l); g != live {
		t.Fatal("context 1 (same content) did not share context 0's Γ")
	}
	gc.Release(1)
	_, liveSl := apply(2)
	slSpec, slRank := liveSl.Spectrum(), liveSl.StructuralRank()
	gc.Release(2)
	all := gc.All()
	if len(all) != 2 {
		t.Fatalf("%d Γ listed, want 2 distinct", len(all))
	}
	for _, g := range all {
		if !g.released {
			t.Errorf("Γ m=%d of %s not released after every context released it", g.M(), g.Dist().Logging())
		}
	}
	sum := all[0]
	if sum.Dist() != pl {
		sum = all[1]
	}
	if got := sum.Coverage(nil); got.Solver != "cholesky" || got.Rank != live.Coverage(nil).Rank {
		t.Errorf("summary's coverage %+v, live %+v", got, live.Coverage(nil))
	}
	if sum.SolveBound() != live.SolveBound() || sum.Exact() != live.Exact() || sum.M() != m || sum.L() != l {
		t.Errorf("summary: bound %g exact %v m %d ℓ %d; live: bound %g exact %v", sum.SolveBound(), sum.Exact(), sum.M(), sum.L(), live.SolveBound(), live.Exact())
	}
	if got, want := sum.Spectrum(), live.Spectrum(); got != want {
		t.Errorf("summary's rebuilt spectrum %+v, live %+v", got, want)
	}
	other := all[0]
	if other == sum {
		other = all[1]
	}
	if other.Spectrum() != slSpec || other.StructuralRank() != slRank {
		t.Errorf("slates summary: spectrum %+v rank %d, live %+v rank %d", other.Spectrum(), other.StructuralRank(), slSpec, slRank)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a released Γ applied without panicking")
			}
		}()
		sum.PinvMulVec(make([]float64, l*m), v)
	}()
	again, g := apply(0)
	if g.released || g == live || !slices.Equal(again, want) {
		t.Errorf("Γ computed again: released %v, same object %v, Γ†v equal %v", g.released, g == live, slices.Equal(again, want))
	}
	if g.SolveBound() < live.SolveBound() {
		t.Errorf("bound %g after recomputing, below %g before", g.SolveBound(), live.SolveBound())
	}
}

// A released Γ of a tiered Plackett–Luce logger (weights hundreds of τ
// apart) reports the structural rank the live one does: the tiers' class
// sizes stay in the summary (a merge of the release and the tiers once
// dropped them and panicked).
func TestGammaReleaseTiered(t *testing.T) {
	scores := []float64{0, -3, -1000, -1001, -1500, -2000}
	l := 4
	d, err := mustLogging(t, "pl:1").ScoredDist(scores, l)
	if err != nil {
		t.Fatal(err)
	}
	if d.tier == nil {
		t.Fatal("no tiers: the test needs weights that underflow")
	}
	gc := NewContextGammas([]*Dist{d}, GammaOptions{})
	g, err := gc.Query(0, len(scores), l)
	if err != nil {
		t.Fatal(err)
	}
	want := g.StructuralRank()
	gc.Release(0)
	all := gc.All()
	if len(all) != 1 {
		t.Fatalf("%d Γ listed, want 1", len(all))
	}
	if got := all[0].StructuralRank(); got != want || want != tieredRank(d.classSizes(), d.tier, l) {
		t.Errorf("released Γ's structural rank %d, live %d, tieredRank %d", got, want, tieredRank(d.classSizes(), d.tier, l))
	}
}
