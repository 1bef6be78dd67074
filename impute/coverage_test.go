package impute

import (
	"math"
	"testing"
)

// Per-context caches give Plackett–Luce and explicit-slate policies the
// fast path and keep named-policy shapes on the eigendecomposition.
func TestContextGammasTakeFastPath(t *testing.T) {
	pl := plDistScores(t, "pl:1", []float64{0.3, -1, 2, 0.5, 1.1, -0.2}, 3)
	pa, err := mustLogging(t, "pa:1").Dist(6, 3)
	if err != nil {
		t.Fatal(err)
	}
	gc := NewContextGammas([]*Dist{pl, pa}, GammaOptions{})
	for q, wantFast := range []bool{true, false} {
		g, err := gc.Query(q, 6, 3)
		if err != nil {
			t.Fatal(err)
		}
		if (g.fast != nil) != wantFast {
			t.Errorf("context %d: fast path %v, want %v", q, g.fast != nil, wantFast)
		}
		cv := g.Coverage(g.Marginals(nil))
		if cv.Outside > 1e-12 || cv.Rank != 16 || cv.StructuralRank != 16 {
			t.Errorf("context %d: coverage %+v", q, cv)
		}
	}
}

// An explicit-slate logger covers only the span of its slates: a target
// slate outside it has a share of its indicator outside Range(Γ), equal to
// the distance to that span; a listed slate has none.
func TestCoverageExplicitSlates(t *testing.T) {
	m, l := 5, 2
	slates := []int32{0, 1, 1, 0, 2, 3}
	d, err := mustLogging(t, "slates").SlateDist(m, l, slates, []float64{0.5, 0.3, 0.2})
	if err != nil {
		t.Fatal(err)
	}
	g, err := newFastGamma(d, GammaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g.fast != nil {
		t.Fatal("explicit slates without a uniform component took the fast path")
	}
	if cv := g.Coverage(Indicator(nil, m, []int32{1, 0})); cv.Outside > 1e-12 || cv.StructuralRank != 3 || cv.Rank != 3 || cv.Solver != "eigen" {
		t.Errorf("listed slate: %+v", cv)
	}
	// 1_{(0,4)} against its distance to span{1_{01}, 1_{10}, 1_{23}}.
	target := Indicator(nil, m, []int32{0, 4})
	basis := orthonormalize([][]float64{Indicator(nil, m, slates[0:2]), Indicator(nil, m, slates[2:4]), Indicator(nil, m, slates[4:6])})
	rest := append([]float64(nil), target...)
	projectOut(rest, basis)
	want := norm2(rest) / norm2(target)
	if cv := g.Coverage(target); math.Abs(cv.Outside-want) > 1e-12 || want < 0.1 {
		t.Errorf("slate outside the span: outside %.6g, want %.6g", cv.Outside, want)
	}
}
