package impute

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPLUnderflowNeverShown: a Plackett–Luce logger whose scores span
// 2000/τ used to fail ("class 3 has 1 candidates of weight 0"). Its weights
// form tiers (plClasses): slots 1–2 draw from {0, 1}, slot 3 from {2, 3, 4},
// and candidate 5, whose weight underflows even relative to its tier's
// best, is never shown. PI's expectation for a target that stays on the
// logger's slate is its exact value (by enumeration of every slate), and a
// target that shows candidate 5 lies outside Γ's range.
func TestPLUnderflowNeverShown(t *testing.T) {
	lg, err := ParseLogging("pl:1")
	if err != nil {
		t.Fatal(err)
	}
	scores := []float64{0, -3, -1000, -1001, -1500, -2000}
	d, err := lg.ScoredDist(scores, 3)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGamma(d, GammaOptions{})
	if err != nil {
		t.Fatalf("NewGamma: %v", err)
	}
	m, l := 6, 3
	marg := g.Marginals(nil)
	for j := range l {
		if marg[j*m+5] != 0 {
			t.Errorf("slot %d: marginal of the never-shown candidate %g, want 0", j+1, marg[j*m+5])
		}
	}
	// The exact marginals: slot 1 is candidate 0 w.p. 1/(1+e^-3), slot 3
	// is candidate 2 w.p. 1/(1+e^-1+e^-500).
	p0 := 1 / (1 + math.Exp(-3))
	if math.Abs(marg[0]-p0) > 1e-12 || math.Abs(marg[1*m+0]-(1-p0)) > 1e-12 {
		t.Errorf("slot marginals of candidate 0: %g, %g, want %g, %g", marg[0], marg[m], p0, 1-p0)
	}
	if p2 := 1 / (1 + math.Exp(-1)); math.Abs(marg[2*m+2]-p2) > 1e-12 {
		t.Errorf("slot 3 marginal of candidate 2: %g, want %g", marg[2*m+2], p2)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	phi := make([]float64, l*m)
	for i := range phi {
		phi[i] = rng.Float64()
	}
	reward := func(s []int32) float64 {
		r := 0.0
		for j, a := range s {
			r += phi[j*m+int(a)]
		}
		return r
	}
	total := 0.0
	for _, target := range [][]int32{{0, 1, 2}, {1, 0, 3}, {1, 0, 2}} {
		pi := 0.0
		d.EachSlate(func(s []int32, p float64) {
			total += p
			if p > 0 {
				pi += p * reward(s) * g.SlateForm(target, s)
			}
		})
		if want := reward(target); math.Abs(pi-want) > 1e-9 {
			t.Errorf("target %v: E[PI] = %.12g, exact %.12g", target, pi, want)
		}
		if cv := g.Coverage(indicator(target, m)); cv.Outside > 1e-9 {
			t.Errorf("target %v: %g of its marginals outside Γ's range, want 0", target, cv.Outside)
		}
	}
	if math.Abs(total-3) > 1e-12 {
		t.Errorf("slate probabilities sum to %g over 3 passes, want 3", total)
	}
	if cv := g.Coverage(indicator([]int32{0, 1, 5}, m)); !(cv.Outside > 0.1) {
		t.Errorf("target showing the never-shown candidate: %g outside Γ's range, want > 0.1", cv.Outside)
	}
	src := rand.NewPCG(3, 4)
	s := make([]int32, l)
	for range 10000 {
		d.Sample(src, s)
		if s[0] > 1 || s[1] > 1 || s[2] < 2 || s[2] > 4 {
			t.Fatalf("sampled slate %v outside the tiers", s)
		}
	}
}

func indicator(s []int32, m int) []float64 {
	q := make([]float64, len(s)*m)
	for j, a := range s {
		q[j*m+int(a)] = 1
	}
	return q
}

// TestPLTiersSpectrum: scores 142/τ … 680/τ apart within the first tier
// (weights 1, 5e-124, 2e-280 … 5e-296) put entries near 1e-124 … 1e-296
// beside entries of order 1 in Γ. gonum's eigensolver returned eigenvalues
// of 5e122 on them (issue 29: "impossible Γ eigenvalues"); decompose now
// drops entries below eigenFlush of the largest. Γ's eigenvalues lie in
// [0, ℓ] (Γ is PSD with trace ℓ), its structural rank is the first tier's, and PI is unbiased for a
// target on the logged tier.
func TestPLTiersSpectrum(t *testing.T) {
	lg, err := ParseLogging("pl:0.5")
	if err != nil {
		t.Fatal(err)
	}
	scores := []float64{584, 442, 262, 251, 247, 244, 197, 188}
	const m, l = 8, 3
	d, err := lg.ScoredDist(scores, l)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.tier) != 2 || d.tier[1] != 6 {
		t.Fatalf("tiers %v, want [0 6]", d.tier)
	}
	g, err := NewGamma(d, GammaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sp := g.Spectrum()
	if !(sp.Max <= l+1e-12) || !(sp.Max >= 1) || !(sp.MinKept > 0) {
		t.Errorf("spectrum %+v: eigenvalues outside (0, ℓ]", sp)
	}
	// The second tier is never shown at ℓ = 3 < 6; every slate of the
	// first has positive probability (some underflow in floats).
	if got, want := g.StructuralRank(), structuralRank(6, 3); got != want {
		t.Errorf("structural rank %d, want %d", got, want)
	}
	target := []int32{0, 1, 2}
	pi := 0.0
	d.EachSlate(func(s []int32, p float64) {
		if p > 0 {
			pi += p * g.SlateForm(target, s)
		}
	})
	// E[1_πᵀ Γ† 1_s] = 1_πᵀ Γ†Γ 1_π = 1 when 1_π is in Γ's range.
	if math.Abs(pi-1) > 1e-9 {
		t.Errorf("E[PI] of the logged tier's top slate %.12g, want 1", pi)
	}
}

// tieredRank against the rank of the support's indicators, by
// enumeration, on tiers of several shapes (a tier filling every slot
// left, one cut short, unreached ones).
func TestTieredRank(t *testing.T) {
	lg, err := ParseLogging("pl:1")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		scores []float64
		l      int
	}{
		{[]float64{0, -3, -1000, -1001, -1500, -2000}, 3},
		{[]float64{0, -3, -1000, -1001, -1500, -2000}, 4},
		{[]float64{0, -3, -1000, -1001, -1500, -2000}, 6},
		{[]float64{0, -1000, -1001, -1002, -2000, -2001}, 4},
		{[]float64{0, -1, -2, -1000, -1001}, 2},
	} {
		d, err := lg.ScoredDist(tc.scores, tc.l)
		if err != nil {
			t.Fatal(err)
		}
		var ind [][]float64
		d.EachSlate(func(s []int32, p float64) {
			if p > 0 {
				ind = append(ind, Indicator(nil, d.m, s))
			}
		})
		want := len(orthonormalize(ind))
		if got := tieredRank(d.classSizes(), d.tier, tc.l); got != want {
			t.Errorf("%v ℓ=%d (tiers %v): rank %d, want %d", tc.scores, tc.l, d.tier, got, want)
		}
	}
}
