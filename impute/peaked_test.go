package impute

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// peakedCases are Plackett–Luce loggers peaked enough that today's
// eigenvalue cut-off (1e-10 of Γ's largest eigenvalue) drops rank that Γ
// has: the fast path keeps it, so they are checked against an exact
// pseudoinverse instead of today's. wantFast is false where the fast path
// cannot certify its solve of q_μ and hands it to today's path (fastApply):
// quadrature moments, whose absolute error bound of 1e-10 swamps marginals
// far below it (m = 60).
var peakedCases = []struct {
	m, l     int
	tau      float64
	wantFast bool
	tol      float64 // against the exact Γ†, scaled norm
}{
	// κ(D^{-1/2}ΓD^{-1/2}) ≈ 4e8 here: the float moments' own rounding
	// (ε relative) moves Γ† by ~κε, whatever the solver.
	{8, 3, 0.05, true, 2e-8},
	{12, 3, 0.05, true, 1e-9},
	{20, 3, 0.1, true, 1e-9},
	{60, 4, 0.1, false, 0},
}

// exactPinvSlate returns Γ†1_s of g's Plackett–Luce distribution in
// 256-bit arithmetic from first principles: Γ = Σ_s μ(s)1_s1_sᵀ with every
// μ(s) computed from the weights in 256 bits (so Γ's structural null
// space N is exact to that precision), then, since 1_s ⟂ N, Γ†1_s =
// (Γ + P_N)⁻¹1_s with P_N = (I_ℓ − J/ℓ) ⊗ J_m/m (distinct scores, ℓ < m),
// by Gaussian elimination with partial pivoting.
func exactPinvSlate(g *Gamma, s []int32) []float64 {
	d := g.d
	m, l := g.m, g.l
	n := l * m
	const prec = 256
	bf := func(x float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(x) }
	a := make([][]*big.Float, n)
	for r := range n {
		a[r] = make([]*big.Float, n+1)
		for c := range n {
			v := bf(delta(r/m, c/m))
			v.Sub(v, new(big.Float).SetPrec(prec).Quo(bf(1), bf(float64(l))))
			a[r][c] = v.Quo(v, bf(float64(m)))
		}
		a[r][n] = bf(0)
	}
	total := bf(0)
	for a := range m {
		total.Add(total, bf(d.w[d.class(int32(a))]))
	}
	d.EachSlate(func(sl []int32, _ float64) {
		p, left := bf(1), new(big.Float).Copy(total)
		for _, x := range sl {
			w := bf(d.w[d.class(x)])
			p.Mul(p, new(big.Float).SetPrec(prec).Quo(w, left))
			left.Sub(left, w)
		}
		for j, x := range sl {
			for k, y := range sl {
				a[j*m+int(x)][k*m+int(y)].Add(a[j*m+int(x)][k*m+int(y)], p)
			}
		}
	})
	for j, x := range s {
		a[j*m+int(x)][n].SetFloat64(1)
	}
	return gaussBig(a, n, prec)
}

// gaussBig solves the n × (n+1) augmented system a by Gaussian elimination
// with partial pivoting and rounds the solution to float64.
func gaussBig(a [][]*big.Float, n int, prec uint) []float64 {
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
// cut-off drops some, and its solve of Γ†1_s matches the exact
// pseudoinverse of the same Γ to 1e-9 (relative, marginal-scaled); its
// stated bound is ≤ 1e-8. (Which targets keep that rank is
// TestRoundingBiasBound's.)
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
		g, err := preferFastGamma(d, GammaOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := structuralRank(c.m, c.l)
		qmu := g.Marginals(nil)
		xmu := make([]float64, len(qmu))
		bound := math.Inf(1) // q_μ's fast solve, shared by both checks below
		if g.fast != nil {
			bound = g.fastSolve(xmu, qmu)
		}
		certified := bound <= maxSolveBound
		t.Logf("%s: today's rank %d, structural %d, fast path certified %v", name, old.Spectrum().Rank, want, certified)
		if certified != c.wantFast {
			t.Errorf("%s: fast path certified %v, want %v", name, certified, c.wantFast)
		}
		if old.Spectrum().Rank >= want {
			t.Errorf("%s: today's cut-off keeps the full rank %d: not a peaked case", name, want)
		}
		if !certified {
			if cv := g.Coverage(qmu); cv.Rank != old.Spectrum().Rank || cv.StructuralRank != want || cv.Solver != "eigen" {
				t.Errorf("%s: fallback coverage %+v", name, cv)
			}
			// Once a solve missed its bound, the reports describe the
			// cut-off's Γ†, as when a probe rejected such a Γ up front.
			if sp, cv := g.Spectrum(), g.Coverage(nil); sp != old.Spectrum() || cv.Solver != "eigen" || g.SolveBound() != old.SolveBound() {
				t.Errorf("%s: reports after a failed solve: spectrum %+v (today's %+v), solver %q, bound %.3g (today's %.3g)",
					name, sp, old.Spectrum(), cv.Solver, g.SolveBound(), old.SolveBound())
			}
			continue
		}
		// q_μ keeps the full rank unless the moments' rounding would bias its
		// weights beyond the tolerance (m = 12, τ = 0.05: 1.2e-4); then it
		// gets the cut-off, which covers it.
		keep := g.roundingBias(qmu, xmu, bound) <= fastBiasTol
		if cv := g.Coverage(qmu); (cv.Rank == want) != keep || cv.StructuralRank != want || cv.Outside > 1e-10 {
			t.Errorf("%s: coverage %+v (full rank kept: %v)", name, cv, keep)
		}
		if c.m > 20 {
			continue
		}
		s := lastSlate(c.m, c.l) // the least likely slots: the tiny eigenvalues
		exact := exactPinvSlate(g, s)
		// The fast solve itself: PinvMulVec hands this target to the
		// cut-off, as the moments' rounding would bias its full-rank
		// weights (TestRoundingBiasBound).
		got := make([]float64, len(exact))
		g.fastSolve(got, Indicator(nil, c.m, s))
		todays := make([]float64, len(exact))
		old.PinvMulVec(todays, Indicator(nil, c.m, s))
		// Entries of tiny marginal are as sensitive to the moments' rounding
		// as their scale says, so accuracy is measured in the marginal-scaled
		// norm ‖D^{1/2}·‖₁, the one that weighs a slate's PI weight by how
		// often it is logged (and the solve bound's).
		q := g.Marginals(nil)
		e, eToday := scaledDiff(got, exact, q), scaledDiff(todays, exact, q)
		t.Logf("%s: fast vs exact %.3g, today's vs exact %.3g (scaled), bound %.3g", name, e, eToday, g.SolveBound())
		if !(e <= c.tol) {
			t.Errorf("%s: fast Γ†1_s differs from the exact one by %.3g", name, e)
		}
		if !(g.SolveBound() <= maxSolveBound) {
			t.Errorf("%s: bound %.3g", name, g.SolveBound())
		}
	}
}

// scaledDiff returns ‖D^{1/2}(a − b)‖₁ / ‖D^{1/2}b‖₁ for D = diag(q).
func scaledDiff(a, b, q []float64) float64 {
	d, n := 0.0, 0.0
	for i := range a {
		w := math.Sqrt(q[i])
		d += w * math.Abs(a[i]-b[i])
		n += w * math.Abs(b[i])
	}
	return d / n
}
