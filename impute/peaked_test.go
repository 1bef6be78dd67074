package impute

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"
)

// peakedCases are Plackett–Luce loggers peaked enough that today's
// eigenvalue cut-off (1e-10 of Γ's largest eigenvalue) drops rank that Γ
// has: the fast path keeps it, so they are checked against an exact
// pseudoinverse instead of today's. wantFast is false where the fast path
// cannot certify its solve and falls back to today's path: Γ too ill
// conditioned even after scaling (m = 12), or quadrature moments whose
// absolute error bound of 1e-10 swamps marginals far below it (m = 60).
var peakedCases = []struct {
	m, l     int
	tau      float64
	wantFast bool
}{{8, 3, 0.05, true}, {20, 3, 0.1, true}, {12, 3, 0.05, false}, {60, 4, 0.1, false}}

// exactPinvSlate returns Γ'†1_s in 256-bit arithmetic, where Γ' = P_R Γ P_R
// is g's dense Γ compressed onto N^⊥ (the float moments' rounding breaks
// the structural null space at the ε level, which an exact pseudoinverse
// of the raw entries would couple to the tiniest eigenvalues). For
// distinct scores and ℓ < m, P_N = (I_ℓ − J/ℓ) ⊗ J_m/m; since 1_s ⟂ N,
// Γ'†1_s = (Γ' + P_N)⁻¹1_s, solved by Gaussian elimination with partial
// pivoting.
func exactPinvSlate(g *Gamma, s []int32) []float64 {
	m, l := g.m, g.l
	n := l * m
	const prec = 256
	bf := func(x float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(x) }
	pn := func(r, c int) *big.Float { // P_N entry
		v := bf(delta(r/m, c/m))
		v.Sub(v, new(big.Float).SetPrec(prec).Quo(bf(1), bf(float64(l))))
		return v.Quo(v, bf(float64(m)))
	}
	pr := make([][]*big.Float, n)
	gm := make([][]*big.Float, n)
	for r := range n {
		pr[r], gm[r] = make([]*big.Float, n), make([]*big.Float, n)
		for c := range n {
			pr[r][c] = new(big.Float).Sub(bf(delta(r, c)), pn(r, c))
			gm[r][c] = bf(g.At(r/m, r%m, c/m, c%m))
		}
	}
	mul := func(x, y [][]*big.Float) [][]*big.Float {
		out := make([][]*big.Float, n)
		for r := range n {
			out[r] = make([]*big.Float, n)
			for c := range n {
				v := bf(0)
				for k := range n {
					v.Add(v, new(big.Float).SetPrec(prec).Mul(x[r][k], y[k][c]))
				}
				out[r][c] = v
			}
		}
		return out
	}
	a := mul(mul(pr, gm), pr)
	for r := range n {
		for c := range n {
			a[r][c].Add(a[r][c], pn(r, c))
		}
		a[r] = append(a[r], bf(0))
	}
	for j, x := range s {
		a[j*m+int(x)][n].SetFloat64(1)
	}
	for k := range n {
		p := k
		for r := k + 1; r < n; r++ {
			if new(big.Float).Abs(a[r][k]).Cmp(new(big.Float).Abs(a[p][k])) > 0 {
				p = r
			}
		}
		a[k], a[p] = a[p], a[k]
		for r := k + 1; r < n; r++ {
			f := new(big.Float).SetPrec(prec).Quo(a[r][k], a[k][k])
			for c := k; c <= n; c++ {
				a[r][c].Sub(a[r][c], new(big.Float).SetPrec(prec).Mul(f, a[k][c]))
			}
		}
	}
	x := make([]*big.Float, n)
	out := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		v := new(big.Float).SetPrec(prec).Set(a[r][n])
		for c := r + 1; c < n; c++ {
			v.Sub(v, new(big.Float).SetPrec(prec).Mul(a[r][c], x[c]))
		}
		x[r] = v.Quo(v, a[r][r])
		out[r], _ = x[r].Float64()
	}
	return out
}

func delta(a, b int) float64 {
	if a == b {
		return 1
	}
	return 0
}

// On peaked loggers the fast path keeps Γ's structural rank where today's
// cut-off drops some, and its Γ†1_s matches the exact pseudoinverse of the
// same Γ to 1e-9 (relative); its stated bound is ≤ 1e-8.
func TestPeakedKeepsRank(t *testing.T) {
	for _, c := range peakedCases {
		name := fmt.Sprintf("pl:%g/m=%d/l=%d", c.tau, c.m, c.l)
		rng := rand.New(rand.NewPCG(3, 4))
		sc := make([]float64, c.m)
		for i := range sc {
			sc[i] = rng.NormFloat64()
		}
		d := plDistScores(t, fmt.Sprintf("pl:%g", c.tau), sc, c.l)
		old, err := NewGamma(d, GammaOptions{})
		if err != nil {
			t.Fatal(err)
		}
		g, err := newFastGamma(d, GammaOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := structuralRank(c.m, c.l)
		t.Logf("%s: today's rank %d, structural %d, fast path %v", name, old.Spectrum().Rank, want, g.fast != nil)
		if (g.fast != nil) != c.wantFast {
			t.Errorf("%s: fast path %v, want %v", name, g.fast != nil, c.wantFast)
		}
		if old.Spectrum().Rank >= want {
			t.Errorf("%s: today's cut-off keeps the full rank %d: not a peaked case", name, want)
		}
		if g.fast == nil {
			if cv := g.Coverage(g.Marginals(nil)); cv.Rank != old.Spectrum().Rank || cv.StructuralRank != want || cv.Solver != "eigen" {
				t.Errorf("%s: fallback coverage %+v", name, cv)
			}
			continue
		}
		if cv := g.Coverage(g.Marginals(nil)); cv.Rank != want || cv.StructuralRank != want || cv.Outside > 1e-12 {
			t.Errorf("%s: coverage %+v", name, cv)
		}
		if c.m > 20 {
			continue
		}
		s := lastSlate(c.m, c.l) // the least likely slots: the tiny eigenvalues
		exact := exactPinvSlate(g, s)
		got := make([]float64, len(exact))
		g.PinvMulVec(got, Indicator(nil, c.m, s))
		todays := make([]float64, len(exact))
		old.PinvMulVec(todays, Indicator(nil, c.m, s))
		e := relDiff(got, exact)
		t.Logf("%s: fast vs exact %.3g, today's vs exact %.3g, bound %.3g", name, e, relDiff(todays, exact), g.SolveBound())
		if !(e <= 1e-9) {
			t.Errorf("%s: fast Γ†1_s differs from the exact one by %.3g", name, e)
		}
		if !(g.SolveBound() <= maxSolveBound) {
			t.Errorf("%s: bound %.3g", name, g.SolveBound())
		}
	}
}
