package impute

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// contextCase is one per-context distribution of the tests, with an
// independent formula for μ(s): Plackett–Luce's product of conditional
// draws, a slate list's lookup, and their ε-mixtures with uniform.
type contextCase struct {
	name string
	d    *Dist
	prob func(s []int32) float64
}

// plProbRef is Plackett–Luce's μ(s) = Π_j w(s_j) / (W − Σ_{i<j} w(s_i)),
// from per-candidate scores, without the classes Dist groups them into.
func plProbRef(scores []float64, tau float64, s []int32) float64 {
	w := make([]float64, len(scores))
	total := 0.0
	for a, x := range scores {
		w[a] = math.Exp(x / tau)
		total += w[a]
	}
	p := 1.0
	for _, a := range s {
		p *= w[a] / total
		total -= w[a]
	}
	return p
}

func uniformProbRef(m, l int) float64 {
	p := 1.0
	for j := range l {
		p /= float64(m - j)
	}
	return p
}

func contextCases(t testing.TB) []contextCase {
	t.Helper()
	var out []contextCase
	src := rand.New(rand.NewPCG(3, 4))
	for _, sh := range [][2]int{{1, 1}, {3, 2}, {4, 4}, {5, 3}, {6, 2}, {7, 4}, {7, 3}} {
		m, l := sh[0], sh[1]
		for _, tc := range []struct {
			spec   string
			eps    float64
			tau    float64
			scores func(a int) float64
		}{
			{"pl:0.7", 0, 0.7, func(a int) float64 { return 2 - 0.61*float64(a) }},
			{"pl:2", 0, 2, func(a int) float64 { return float64(3 - a/2) }}, // ties in pairs
			{"eps:0.3,pl:1", 0.3, 1, func(a int) float64 { return 1 / float64(a+1) }},
			{"pl:0.05", 0, 0.05, func(a int) float64 { return -0.1 * float64(a) }}, // weights down to e^-12
		} {
			scores := make([]float64, m)
			for a := range scores {
				scores[a] = tc.scores(a)
			}
			d, err := mustLogging(t, tc.spec).ScoredDist(scores, l)
			if err != nil {
				t.Fatal(err)
			}
			eps, tau := tc.eps, tc.tau
			out = append(out, contextCase{fmt.Sprintf("%s m=%d ℓ=%d", tc.spec, m, l), d, func(s []int32) float64 {
				return (1-eps)*plProbRef(scores, tau, s) + eps*uniformProbRef(m, l)
			}})
		}
		for _, spec := range []string{"slates", "eps:0.25,slates"} {
			slates, probs := randomSlates(src, m, l, 4)
			d, err := mustLogging(t, spec).SlateDist(m, l, slates, probs)
			if err != nil {
				t.Fatal(err)
			}
			eps := d.lg.eps
			list := map[string]float64{}
			for i, p := range probs {
				list[fmt.Sprint(slates[i*l:(i+1)*l])] += p
			}
			out = append(out, contextCase{fmt.Sprintf("%s m=%d ℓ=%d", spec, m, l), d, func(s []int32) float64 {
				return (1-eps)*list[fmt.Sprint(s)] + eps*uniformProbRef(m, l)
			}})
		}
	}
	return out
}

// randomSlates draws up to k distinct slates and probabilities summing to 1.
func randomSlates(src *rand.Rand, m, l, k int) ([]int32, []float64) {
	var slates []int32
	var probs []float64
	seen := map[string]bool{}
	total := 0.0
	for range 4 * k {
		if len(probs) == k {
			break
		}
		perm := src.Perm(m)[:l]
		s := make([]int32, l)
		for j, a := range perm {
			s[j] = int32(a)
		}
		if seen[fmt.Sprint(s)] {
			continue
		}
		seen[fmt.Sprint(s)] = true
		p := 0.1 + src.Float64()
		slates = append(slates, s...)
		probs = append(probs, p)
		total += p
	}
	for i := range probs {
		probs[i] /= total
	}
	return slates, probs
}

// Γ of Plackett–Luce, explicit slate lists and their mixtures equals
// Σ_s μ(s) 1_s1_sᵀ by enumeration with an independent μ, to 1e-12, and
// Dist.Prob is that μ.
func TestContextDistGammaMatchesEnumeration(t *testing.T) {
	for _, tc := range contextCases(t) {
		d := tc.d
		total := 0.0
		n := d.l * d.m
		ref := make([]float64, n*n)
		d.EachSlate(func(s []int32, p float64) {
			want := tc.prob(s)
			if math.Abs(p-want) > 1e-12 {
				t.Fatalf("%s: μ(%v) = %v, want %v", tc.name, s, p, want)
			}
			total += want
			for j, a := range s {
				for k, b := range s {
					ref[(j*d.m+int(a))*n+k*d.m+int(b)] += want
				}
			}
		})
		if math.Abs(total-1) > 1e-12 {
			t.Fatalf("%s: Σ μ = %v", tc.name, total)
		}
		g, err := NewGamma(d, GammaOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if diff, _ := maxAbsDiff(denseGamma(g), mat.NewSymDense(n, ref)); diff > 1e-12 || !g.Exact() {
			t.Errorf("%s: |Γ − enumeration| = %.3g, exact %v", tc.name, diff, g.Exact())
		}
		if d.lg.NeedsScores() && len(d.w) > 1 {
			// The quadrature beyond the exact programme, forced: within its
			// stated bound of enumeration.
			q, err := NewGamma(d, GammaOptions{pl: plOptions{ExactBudget: -1}})
			if err != nil {
				t.Fatal(err)
			}
			diff, _ := maxAbsDiff(denseGamma(q), mat.NewSymDense(n, ref))
			if q.Exact() || q.Method() != "clock-quadrature" || !(q.ErrorBound() > 0) || diff > q.ErrorBound() || diff > 1e-9 {
				t.Errorf("%s quadrature: |Γ − enumeration| = %.3g, bound %.3g (%s, exact %v)", tc.name, diff, q.ErrorBound(), q.Method(), q.Exact())
			}
		}
		// The structured Γ† is the Moore–Penrose pseudoinverse of Γ.
		pinv, _, err := densePinvReference(mat.NewSymDense(n, ref), defaultCutoff)
		if err != nil {
			t.Fatal(err)
		}
		// Relative to Γ†'s scale and Γ's conditioning (pl:0.05 has weights
		// down to e^-12: condition 1e9).
		tol := max(1e-10, 1e-15*g.Spectrum().Condition())
		if diff, scale := maxAbsDiff(densePinv(g), pinv); diff > tol*max(1, scale) {
			t.Errorf("%s: |Γ† − reference| = %.3g (scale %.3g)", tc.name, diff, scale)
		}
	}
}

// q_μᵀΓ†1_s = 1 for every slate each policy can log, and PI is exactly
// unbiased under an additive reward: Σ_s μ(s)·r(s)·1_{s*}ᵀΓ†1_s = r(s*) for
// a target slate s* in the span of μ's slates (any slate under full
// support; a listed slate otherwise).
func TestContextDistPIUnbiased(t *testing.T) {
	src := rand.New(rand.NewPCG(5, 6))
	for _, tc := range contextCases(t) {
		d := tc.d
		m, l := d.m, d.l
		g, err := NewGamma(d, GammaOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w := make([]float64, l*m)
		g.PinvMulVec(w, g.Marginals(nil))
		tol := max(1e-9, 1e-16*g.Spectrum().Condition())
		phi := make([]float64, l*m)
		for i := range phi {
			phi[i] = src.Float64()
		}
		var targets [][]int32
		d.EachSlate(func(s []int32, p float64) {
			if p <= 0 {
				return
			}
			if got := SlateSum(w, m, s); math.Abs(got-1) > tol {
				t.Fatalf("%s: q_μᵀΓ†1_s = %v for s = %v", tc.name, got, s)
			}
			if len(targets) < 3 {
				targets = append(targets, append([]int32(nil), s...))
			}
		})
		for _, star := range targets {
			got := 0.0
			d.EachSlate(func(s []int32, p float64) {
				if p > 0 {
					got += p * SlateSum(phi, m, s) * g.SlateForm(star, s)
				}
			})
			if want := SlateSum(phi, m, star); math.Abs(got-want) > tol {
				t.Errorf("%s: E[PI] of %v = %v, V = %v", tc.name, star, got, want)
			}
		}
	}
}

// Sampling follows μ: counts over 200 000 draws within 5 standard
// deviations (plus 3, for the rarest slates) of n·Prob.
func TestContextDistSample(t *testing.T) {
	for _, tc := range contextCases(t) {
		d := tc.d
		if d.numSlates() > 400 {
			continue
		}
		const n = 200000
		count := map[string]int{}
		src := rand.NewPCG(1, 2)
		s := make([]int32, d.l)
		for range n {
			d.Sample(src, s)
			if d.Prob(s) <= 0 {
				t.Fatalf("%s: sampled %v of probability 0", tc.name, s)
			}
			count[fmt.Sprint(s)]++
		}
		d.EachSlate(func(s []int32, p float64) {
			got, want := float64(count[fmt.Sprint(s)]), n*p
			if math.Abs(got-want) > 5*math.Sqrt(want*(1-p))+3 {
				t.Errorf("%s: slate %v drawn %v times, n·μ = %v", tc.name, s, got, want)
			}
		})
	}
}

func TestContextDistErrors(t *testing.T) {
	pl := mustLogging(t, "pl:1")
	sl := mustLogging(t, "slates")
	for _, tc := range []struct {
		name string
		err  func() error
	}{
		{"pl NaN score", func() error { _, err := pl.ScoredDist([]float64{1, math.NaN()}, 1); return err }},
		{"pl increasing scores", func() error { _, err := pl.ScoredDist([]float64{1, 2}, 1); return err }},
		{"pl through Dist", func() error { _, err := pl.Dist(3, 2); return err }},
		{"slates sum", func() error { _, err := sl.SlateDist(3, 1, []int32{0, 1}, []float64{0.5, 0.4}); return err }},
		{"slates repeat", func() error { _, err := sl.SlateDist(3, 1, []int32{0, 0}, []float64{0.5, 0.5}); return err }},
		{"slates doc out of range", func() error { _, err := sl.SlateDist(3, 1, []int32{3}, []float64{1}); return err }},
		{"slates repeated doc", func() error { _, err := sl.SlateDist(3, 2, []int32{1, 1}, []float64{1}); return err }},
		{"tau 0", func() error { _, err := ParseLogging("pl:0"); return err }},
		{"tau inf", func() error { _, err := ParseLogging("pl:+Inf"); return err }},
	} {
		if tc.err() == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}

// Distributions of equal content share one Γ; different content does not.
func TestGammaCacheByContent(t *testing.T) {
	pl := mustLogging(t, "pl:1")
	a, _ := pl.ScoredDist([]float64{3, 2, 1}, 2)
	b, _ := pl.ScoredDist([]float64{5, 4, 3}, 2) // a common shift: same policy
	c, _ := pl.ScoredDist([]float64{3, 2, 0}, 2)
	gc := NewContextGammas([]*Dist{a, b, c}, GammaOptions{})
	ga, _ := gc.Query(0, 3, 2)
	gb, _ := gc.Query(1, 3, 2)
	gcc, _ := gc.Query(2, 3, 2)
	if ga != gb || ga == gcc || len(gc.All()) != 2 {
		t.Errorf("sharing: a=b %v, a≠c %v, %d Γ", ga == gb, ga != gcc, len(gc.All()))
	}
	if _, err := gc.Query(0, 4, 2); err == nil {
		t.Error("a shape that disagrees with the context's policy was accepted")
	}
}
