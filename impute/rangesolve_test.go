package impute

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// fastCase is one per-context logging distribution of the fast path's
// tests.
type fastCase struct {
	name string
	d    *Dist
}

// plDistScores returns pl:τ (or eps:E,pl:τ) over the given scores, sorted
// into the non-increasing order ScoredDist needs.
func plDistScores(t testing.TB, spec string, scores []float64, l int) *Dist {
	t.Helper()
	s := slices.Clone(scores)
	slices.Sort(s)
	slices.Reverse(s)
	d, err := mustLogging(t, spec).ScoredDist(s, l)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// fastCases returns the logging specs of the comparison: named policies
// (p_α, mixtures), Plackett–Luce with distinct and tied scores, explicit
// slates with and without a uniform component, on shapes with ℓ < m and
// ℓ = m.
func fastCases(t testing.TB, shapes [][2]int) []fastCase {
	rng := rand.New(rand.NewPCG(5, 6))
	var out []fastCase
	for _, sh := range shapes {
		m, l := sh[0], sh[1]
		add := func(name string, d *Dist) {
			out = append(out, fastCase{fmt.Sprintf("%s/m=%d/l=%d", name, m, l), d})
		}
		for _, spec := range []string{"pa:1", "pa:2", "eps:0.3,pa:1"} {
			d, err := mustLogging(t, spec).Dist(m, l)
			if err != nil {
				t.Fatal(err)
			}
			add(spec, d)
		}
		distinct := make([]float64, m)
		tied := make([]float64, m)
		for i := range distinct {
			distinct[i] = rng.NormFloat64()
			tied[i] = float64(rng.IntN(3))
		}
		add("pl:1", plDistScores(t, "pl:1", distinct, l))
		add("pl:0.5-tied", plDistScores(t, "pl:0.5", tied, l))
		add("eps:0.2,pl:0.3", plDistScores(t, "eps:0.2,pl:0.3", distinct, l))
		slates, probs := randomSlates(rand.New(rand.NewPCG(uint64(m), uint64(l))), m, l, 5)
		for _, spec := range []string{"slates", "eps:0.25,slates"} {
			d, err := mustLogging(t, spec).SlateDist(m, l, slates, probs)
			if err != nil {
				t.Fatal(err)
			}
			add(spec, d)
		}
	}
	return out
}

var fastShapes = [][2]int{{2, 1}, {5, 1}, {5, 2}, {6, 3}, {3, 3}, {4, 4}, {5, 5}, {8, 3}, {12, 4}, {20, 3}, {30, 5}}

// rangeVectors returns right-hand sides of the estimator for d: target
// marginals of Plackett–Luce targets, slate indicators, and a θ̂ = S/n of
// slates drawn from d with random rewards; and one arbitrary vector.
func rangeVectors(t testing.TB, d *Dist, seed uint64) [][]float64 {
	m, l := d.m, d.l
	src := rand.NewPCG(seed, 9)
	rng := rand.New(src)
	var out [][]float64
	for _, tau := range []float64{0.3, 2} {
		sc := make([]float64, m)
		for i := range sc {
			sc[i] = rng.NormFloat64()
		}
		td := plDistScores(t, fmt.Sprintf("pl:%g", tau), sc, l)
		tg, err := NewGamma(td, GammaOptions{})
		if err != nil {
			t.Fatal(err)
		}
		q := tg.Marginals(nil)
		perm := rng.Perm(m) // the target's candidate order differs from the logger's
		v := make([]float64, l*m)
		for j := range l {
			for a := range m {
				v[j*m+perm[a]] = q[j*m+a]
			}
		}
		out = append(out, v)
	}
	s := make([]int32, l)
	for k, p := range rng.Perm(m)[:l] {
		s[k] = int32(p)
	}
	out = append(out, Indicator(nil, m, s))
	theta := make([]float64, l*m)
	for range 50 {
		d.Sample(src, s)
		r := rng.Float64()
		for j, a := range s {
			theta[j*m+int(a)] += r / 50
		}
	}
	out = append(out, theta)
	arb := make([]float64, l*m)
	for i := range arb {
		arb[i] = rng.NormFloat64()
	}
	return append(out, arb)
}

// relDiff returns max |a − b| / max |b|.
func relDiff(a, b []float64) float64 {
	d, s := 0.0, 0.0
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
		s = max(s, math.Abs(b[i]))
	}
	if s == 0 {
		return d
	}
	return d / s
}

// The structural null space claims of nullspace.go hold for the enumerated
// Γ of full-support distributions: the numerical rank is ℓ(m−1)+1 or
// (m−1)²+1, and every vector of the bases lifted to R^{ℓm} is null.
func TestStructuralNullSpace(t *testing.T) {
	for _, fc := range fastCases(t, [][2]int{{2, 1}, {5, 1}, {5, 2}, {6, 3}, {3, 3}, {4, 4}, {5, 5}, {7, 3}}) {
		if !fc.d.FullSupport() {
			continue
		}
		d := fc.d
		gm, err := enumerateGamma(d, 1e5)
		if err != nil {
			t.Fatal(err)
		}
		var es mat.EigenSym
		if !es.Factorize(gm, false) {
			t.Fatal("eigen")
		}
		vals := es.Values(nil)
		top := slices.Max(vals)
		rank := 0
		for _, v := range vals {
			if v > 1e-12*top {
				rank++
			}
		}
		if want := structuralRank(d.m, d.l); rank != want {
			t.Errorf("%s: enumerated rank %d, structural %d", fc.name, rank, want)
		}
		g, err := preferFastGamma(d, GammaOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if g.fast == nil {
			t.Errorf("%s: not on the fast path", fc.name)
			continue
		}
		n := d.l * d.m
		for _, v := range liftNull(g) {
			gv := mat.NewVecDense(n, nil)
			gv.MulVec(gm, mat.NewVecDense(n, v))
			if r := mat.Norm(gv, 2) / norm2(v); r > 1e-13*top {
				t.Errorf("%s: |Γv|/|v| = %.3g for a structural null vector", fc.name, r)
			}
		}
		if got, want := len(liftNull(g)), n-structuralRank(d.m, d.l); got != want {
			t.Errorf("%s: %d null vectors, want %d", fc.name, got, want)
		}
	}
}

// liftNull returns g's null-space bases as ℓm-vectors.
func liftNull(g *Gamma) [][]float64 {
	m, l, nc := g.m, g.l, g.nc
	var out [][]float64
	for _, y := range g.nullG {
		v := make([]float64, l*m)
		for j := range l {
			for c := range nc {
				for a := g.d.start[c]; a < g.d.start[c+1]; a++ {
					v[j*m+a] = y[j*nc+c] * g.invSqrt[c]
				}
			}
		}
		out = append(out, v)
	}
	for c, us := range g.nullM {
		lo, hi := g.d.start[c], g.d.start[c+1]
		for _, u := range us {
			for a := lo + 1; a < hi; a++ { // u ⊗ (e_a − e_lo): n_c − 1 independent vectors
				v := make([]float64, l*m)
				for j := range l {
					v[j*m+a], v[j*m+lo] = u[j], -u[j]
				}
				out = append(out, v)
			}
		}
	}
	return out
}

// The fast path equals today's eigendecomposition path to 1e-9 (relative)
// on PI weights Γ†q_π, imputed targets Γ†θ̂ and slate forms, on every
// logging spec; wherever it cannot certify its solve it is that path.
func TestFastMatchesEigen(t *testing.T) {
	for _, fc := range fastCases(t, fastShapes) {
		old, err := NewGamma(fc.d, GammaOptions{})
		if err != nil {
			t.Fatal(err)
		}
		g, err := preferFastGamma(fc.d, GammaOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if fc.d.FullSupport() != (g.fast != nil) {
			t.Errorf("%s: full support %v, fast path %v", fc.name, fc.d.FullSupport(), g.fast != nil)
		}
		if old.Spectrum().Rank != g.Spectrum().Rank {
			t.Errorf("%s: rank %d, today's %d", fc.name, g.Spectrum().Rank, old.Spectrum().Rank)
			continue
		}
		if g.fast != nil && old.Spectrum() != g.Spectrum() {
			t.Errorf("%s: spectrum %+v, today's %+v", fc.name, g.Spectrum(), old.Spectrum())
		}
		n := fc.d.l * fc.d.m
		want, got := make([]float64, n), make([]float64, n)
		for i, v := range rangeVectors(t, fc.d, uint64(n)) {
			old.PinvMulVec(want, v)
			g.PinvMulVec(got, v)
			if e := relDiff(got, want); !(e <= 1e-9) {
				t.Errorf("%s: vector %d: relative difference %.3g", fc.name, i, e)
			}
			if i < 3 { // q_π: PI weights of the slates
				for _, s := range [][]int32{firstSlate(fc.d.l), lastSlate(fc.d.m, fc.d.l)} {
					a, b := SlateSum(got, fc.d.m, s), SlateSum(want, fc.d.m, s)
					if math.Abs(a-b) > 1e-9*max(1, math.Abs(b)) {
						t.Errorf("%s: PI weight %v vs %v", fc.name, a, b)
					}
				}
			}
		}
		s1, s2 := firstSlate(fc.d.l), lastSlate(fc.d.m, fc.d.l)
		if a, b := g.SlateForm(s1, s2), old.SlateForm(s1, s2); math.Abs(a-b) > 1e-9*max(1, math.Abs(b)) {
			t.Errorf("%s: SlateForm %v, today's %v", fc.name, a, b)
		}
		if b := g.SolveBound(); g.fast != nil && !(b <= maxSolveBound) {
			t.Errorf("%s: solve bound %.3g", fc.name, b)
		}
	}
}

func firstSlate(l int) []int32 {
	s := make([]int32, l)
	for j := range s {
		s[j] = int32(j)
	}
	return s
}

func lastSlate(m, l int) []int32 {
	s := make([]int32, l)
	for j := range s {
		s[j] = int32(m - 1 - j)
	}
	return s
}
