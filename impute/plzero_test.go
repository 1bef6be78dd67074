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
