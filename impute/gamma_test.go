package impute

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

func mustLogging(t testing.TB, spec string) Logging {
	t.Helper()
	lg, err := ParseLogging(spec)
	if err != nil {
		t.Fatal(err)
	}
	return lg
}

func mustGamma(t testing.TB, lg Logging, m, l int) *Gamma {
	t.Helper()
	d, err := lg.Dist(m, l)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGamma(d, GammaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

var testSpecs = []string{"uniform", "pa:0.5", "pa:1", "pa:2", "eps:0.3,pa:1", "eps:0.5,uniform", "pa:0"}

// shapes returns (m, ℓ) for m = lo..hi and ℓ = 1..min(m, 5).
func shapes(lo, hi int) [][2]int {
	var out [][2]int
	for m := lo; m <= hi; m++ {
		for l := 1; l <= min(m, 5); l++ {
			out = append(out, [2]int{m, l})
		}
	}
	return out
}

func maxAbsDiff(a, b mat.Matrix) (diff, scale float64) {
	r, c := a.Dims()
	for i := range r {
		for j := range c {
			diff = max(diff, math.Abs(a.At(i, j)-b.At(i, j)))
			scale = max(scale, math.Abs(a.At(i, j)))
		}
	}
	return diff, scale
}

// The class-level dynamic programme gives exactly Γ = Σ_s μ(s) 1_s 1_sᵀ.
func TestGammaMatchesEnumeration(t *testing.T) {
	for _, spec := range testSpecs {
		lg := mustLogging(t, spec)
		for _, sh := range shapes(1, 9) {
			m, l := sh[0], sh[1]
			g := mustGamma(t, lg, m, l)
			ref, err := enumerateGamma(g.Dist(), 1e6)
			if err != nil {
				t.Fatal(err)
			}
			if d, _ := maxAbsDiff(denseGamma(g), ref); d > 1e-12 {
				t.Errorf("%s m=%d ℓ=%d: |Γ − enumeration| = %.3g", spec, m, l, d)
			}
		}
	}
}

// A hand-computed case: m = 3, ℓ = 2, p_1 has weights 1, ½, ½ (ranks 1, 2, 3).
func TestGammaHandComputedPA(t *testing.T) {
	g := mustGamma(t, mustLogging(t, "pa:1"), 3, 2)
	// Slot 1: P(a0) = 1/2, P(a1) = P(a2) = 1/4.
	// Slot 2 after a0: a1, a2 each 1/2; after a1 (weights 1, ½ left): a0 2/3, a2 1/3.
	p := map[[2]int]float64{
		{0, 1}: 0.5 * 0.5, {0, 2}: 0.5 * 0.5,
		{1, 0}: 0.25 * 2 / 3, {1, 2}: 0.25 / 3,
		{2, 0}: 0.25 * 2 / 3, {2, 1}: 0.25 / 3,
	}
	for ab, want := range p {
		if got := g.at(0, ab[0], 1, ab[1]); math.Abs(got-want) > 1e-15 {
			t.Errorf("P(s1=%d, s2=%d) = %v, want %v", ab[0], ab[1], got, want)
		}
	}
	wantSlot2 := []float64{2 * 0.25 * 2 / 3, 0.25 + 0.25/3, 0.25 + 0.25/3}
	for a, want := range wantSlot2 {
		if got := g.marginal(1, a); math.Abs(got-want) > 1e-15 {
			t.Errorf("P(s2=%d) = %v, want %v", a, got, want)
		}
	}
	if got := g.Dist().Prob([]int32{1, 2}); math.Abs(got-0.25/3) > 1e-15 {
		t.Errorf("μ(1,2) = %v, want %v", got, 0.25/3)
	}
}

// The structured Γ† (blocks per weight class) equals the dense
// pseudoinverse of Γ, and for the uniform policy the paper's closed form
// equals both.
func TestStructuredPinvMatchesDense(t *testing.T) {
	for _, spec := range testSpecs {
		lg := mustLogging(t, spec)
		for _, sh := range shapes(1, 12) {
			m, l := sh[0], sh[1]
			g := mustGamma(t, lg, m, l)
			ref, sp, err := densePinvReference(denseGamma(g), defaultCutoff)
			if err != nil {
				t.Fatal(err)
			}
			if d, s := maxAbsDiff(densePinv(g), ref); d > 1e-9*max(1, s) {
				t.Errorf("%s m=%d ℓ=%d: |Γ† − dense pinv| = %.3g (scale %.3g)", spec, m, l, d, s)
			}
			if sp.Rank != g.Spectrum().Rank {
				t.Errorf("%s m=%d ℓ=%d: rank %d, dense %d", spec, m, l, g.Spectrum().Rank, sp.Rank)
			}
			if g.closed {
				// The same Γ through the general block path.
				blocks, err := newGammaFromMoments(g.d, g.mo, defaultCutoff, false)
				if err != nil {
					t.Fatal(err)
				}
				if d, s := maxAbsDiff(densePinv(blocks), densePinv(g)); d > 1e-9*max(1, s) {
					t.Errorf("%s m=%d ℓ=%d: |closed form − blocks| = %.3g", spec, m, l, d)
				}
			}
		}
	}
}

// Γ's forward product through the blocks matches the dense matrix.
func TestMulVecMatchesDense(t *testing.T) {
	src := rand.NewPCG(1, 2)
	rng := rand.New(src)
	for _, spec := range testSpecs {
		for _, sh := range [][2]int{{7, 3}, {12, 5}, {5, 5}, {1, 1}} {
			g := mustGamma(t, mustLogging(t, spec), sh[0], sh[1])
			n := sh[0] * sh[1]
			v := make([]float64, n)
			for i := range v {
				v[i] = rng.NormFloat64()
			}
			got := make([]float64, n)
			g.mulVec(got, v)
			var want mat.VecDense
			want.MulVec(denseGamma(g), mat.NewVecDense(n, v))
			for i := range got {
				if math.Abs(got[i]-want.AtVec(i)) > 1e-12 {
					t.Fatalf("%s %v: (Γv)[%d] = %v, dense %v", spec, sh, i, got[i], want.AtVec(i))
				}
			}
		}
	}
}

// The slate form 1_{s1}ᵀ Γ† 1_{s2} in O(ℓ²) matches the dense product.
func TestSlateFormMatchesDense(t *testing.T) {
	src := rand.NewPCG(3, 4)
	for _, spec := range testSpecs {
		for _, sh := range shapes(1, 10) {
			m, l := sh[0], sh[1]
			g := mustGamma(t, mustLogging(t, spec), m, l)
			pinv := densePinv(g)
			s1, s2 := make([]int32, l), make([]int32, l)
			for range 5 {
				g.Dist().sampleUniform(src, s1)
				g.Dist().sampleUniform(src, s2)
				want := mat.Inner(mat.NewVecDense(l*m, Indicator(nil, m, s1)), pinv, mat.NewVecDense(l*m, Indicator(nil, m, s2)))
				if got := g.SlateForm(s1, s2); math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
					t.Fatalf("%s m=%d ℓ=%d: SlateForm(%v, %v) = %v, dense %v", spec, m, l, s1, s2, got, want)
				}
			}
		}
	}
}

// Paper, Prop. (uniform over rankings): rank ℓ(m−1)+1 for ℓ < m and
// (m−1)²+1 for ℓ = m, with eigenvalues ℓ/m, 1/(m−1) and (m−ℓ)/(m(m−1)).
func TestUniformRankAndSpectrum(t *testing.T) {
	for _, sh := range shapes(2, 12) {
		m, l := sh[0], sh[1]
		g := mustGamma(t, Uniform(), m, l)
		want := l*(m-1) + 1
		if l == m {
			want = (m-1)*(m-1) + 1
		}
		_, dense, _ := densePinvReference(denseGamma(g), defaultCutoff)
		if g.Spectrum().Rank != want || dense.Rank != want {
			t.Errorf("m=%d ℓ=%d: rank %d (dense %d), want %d", m, l, g.Spectrum().Rank, dense.Rank, want)
		}
		// Eigenvalues present: ℓ/m always, 1/(m−1) when ℓ ≥ 2 (multiplicity
		// (ℓ−1)(m−1)), (m−ℓ)/(m(m−1)) when ℓ < m (multiplicity m−1).
		fm, fl := float64(m), float64(l)
		eig := []float64{fl / fm}
		if l >= 2 {
			eig = append(eig, 1/(fm-1))
		}
		if l < m {
			eig = append(eig, (fm-fl)/(fm*(fm-1)))
		}
		wantMax, wantMin := eig[0], eig[0]
		for _, e := range eig {
			wantMax, wantMin = max(wantMax, e), min(wantMin, e)
		}
		sp := g.Spectrum()
		if math.Abs(sp.Max-wantMax) > 1e-12 || math.Abs(sp.MinKept-wantMin) > 1e-12 {
			t.Errorf("m=%d ℓ=%d: eigenvalues max %v min %v, want %v %v", m, l, sp.Max, sp.MinKept, wantMax, wantMin)
		}
	}
}

// Every policy here logs every slate, so the range of Γ is the span of all
// slate indicators: the rank is the uniform one for p_α and mixtures too.
func TestFullSupportRank(t *testing.T) {
	for _, spec := range testSpecs {
		for _, sh := range shapes(2, 12) {
			m, l := sh[0], sh[1]
			want := l*(m-1) + 1
			if l == m {
				want = (m-1)*(m-1) + 1
			}
			if got := mustGamma(t, mustLogging(t, spec), m, l).Spectrum().Rank; got != want {
				t.Errorf("%s m=%d ℓ=%d: rank %d, want %d", spec, m, l, got, want)
			}
		}
	}
}

// docs/design.md's per-sample closed form for uniform logging, and its check
// Σ_j φ̂(j, s_j) = r(1 + ℓ(m−1)) (ℓ < m) or r(m² − 2m + 2) (ℓ = m).
func TestUniformPerSampleClosedForm(t *testing.T) {
	src := rand.NewPCG(5, 6)
	rng := rand.New(src)
	for _, sh := range shapes(1, 12) {
		m, l := sh[0], sh[1]
		g := mustGamma(t, Uniform(), m, l)
		s := make([]int32, l)
		g.Dist().Sample(src, s)
		r := 0.25 + rng.Float64()
		v := Indicator(nil, m, s)
		for i := range v {
			v[i] *= r
		}
		phi := make([]float64, l*m)
		g.PinvMulVec(phi, v)
		fm, fl := float64(m), float64(l)
		sum := 0.0
		for j := range l {
			for a := range m {
				in, at := 0.0, 0.0
				for k, b := range s {
					if int(b) == a {
						in = 1
						if k == j {
							at = 1
						}
					}
				}
				var want float64
				if l < m {
					want = r * (1/fl + (fm-1)*at - (fm-1)/(fm-fl)*(1-in))
				} else {
					want = r * ((2-fm)/fm + (fm-1)*at)
				}
				if math.Abs(phi[j*m+a]-want) > 1e-12*max(1, fm) {
					t.Fatalf("m=%d ℓ=%d s=%v: φ̂(%d,%d) = %v, closed form %v", m, l, s, j, a, phi[j*m+a], want)
				}
			}
			sum += phi[j*m+int(s[j])]
		}
		want := r * (1 + fl*(fm-1))
		if l == m {
			want = r * (fm*fm - 2*fm + 2)
		}
		if math.Abs(sum-want) > 1e-10*want {
			t.Errorf("m=%d ℓ=%d: Σ_j φ̂(j,s_j) = %v, want %v", m, l, sum, want)
		}
		if got := g.SlateForm(s, s); math.Abs(got-want/r) > 1e-10*want {
			t.Errorf("m=%d ℓ=%d: 1_sᵀΓ†1_s = %v, want %v", m, l, got, want/r)
		}
	}
}

// Claim (π = μ): q_μᵀ Γ† 1_s = 1 for every slate μ can log.
func TestQMuPinvIndicatorIsOne(t *testing.T) {
	for _, spec := range testSpecs {
		for _, sh := range shapes(1, 8) {
			m, l := sh[0], sh[1]
			g := mustGamma(t, mustLogging(t, spec), m, l)
			w := make([]float64, l*m)
			g.PinvMulVec(w, g.Marginals(nil))
			g.Dist().EachSlate(func(s []int32, p float64) {
				if p <= 0 {
					t.Fatalf("%s: slate %v has μ = %v", spec, s, p)
				}
				if got := SlateSum(w, m, s); math.Abs(got-1) > 1e-9 {
					t.Fatalf("%s m=%d ℓ=%d: q_μᵀΓ†1_s = %v for s = %v", spec, m, l, got, s)
				}
			})
		}
	}
}

// With π = μ the PI estimate is the mean logged reward, sample by sample.
func TestPIEqualsMeanRewardOnPolicy(t *testing.T) {
	src := rand.NewPCG(7, 8)
	rng := rand.New(src)
	for _, spec := range []string{"uniform", "pa:1", "pa:2", "eps:0.2,pa:1"} {
		g := mustGamma(t, mustLogging(t, spec), 20, 4)
		w := make([]float64, 4*20)
		g.PinvMulVec(w, g.Marginals(nil))
		s := make([]int32, 4)
		var pi, mean float64
		for i := 0; i < 1000; i++ {
			g.Dist().Sample(src, s)
			r := rng.Float64() * float64(s[0]+1)
			pi += r * SlateSum(w, 20, s)
			mean += r
		}
		if math.Abs(pi-mean) > 1e-9*mean {
			t.Errorf("%s: PI sum %v, reward sum %v", spec, pi, mean)
		}
	}
}

// PI is exactly unbiased under an additive reward r(s) = Σ_j φ(j, s_j): the
// exact expectation over all slates of r(s)·q_πᵀΓ†1_s is V(π), for a
// deterministic target slate and for a stochastic target policy.
func TestPIUnbiasedAdditiveReward(t *testing.T) {
	src := rand.NewPCG(9, 10)
	rng := rand.New(src)
	for _, spec := range []string{"uniform", "pa:0.5", "pa:1", "pa:2", "eps:0.3,pa:2"} {
		for _, sh := range [][2]int{{4, 2}, {5, 3}, {6, 2}, {6, 4}, {4, 4}, {7, 3}, {5, 1}} {
			m, l := sh[0], sh[1]
			g := mustGamma(t, mustLogging(t, spec), m, l)
			phi := make([]float64, l*m)
			for i := range phi {
				phi[i] = rng.Float64()
			}
			target := make([]int32, l)
			g.Dist().sampleUniform(src, target)
			want := SlateSum(phi, m, target)
			// Stochastic target: p_1 reversed in rank is another full-support policy.
			pd, _ := mustLogging(t, "pa:3").Dist(m, l)
			tg, _ := NewGamma(pd, GammaOptions{})
			qpi := tg.Marginals(nil)
			wpi := make([]float64, l*m)
			g.PinvMulVec(wpi, qpi)
			wantStoch := 0.0
			pd.EachSlate(func(s []int32, p float64) { wantStoch += p * SlateSum(phi, m, s) })

			var got, gotStoch, gotPhiHat float64
			phiHat := make([]float64, l*m)
			acc := make([]float64, l*m)
			g.Dist().EachSlate(func(s []int32, p float64) {
				r := SlateSum(phi, m, s)
				got += p * r * g.SlateForm(target, s)
				gotStoch += p * r * SlateSum(wpi, m, s)
				v := Indicator(nil, m, s)
				for i := range v {
					v[i] *= r
				}
				g.PinvMulVec(phiHat, v)
				for i := range acc {
					acc[i] += p * phiHat[i]
				}
			})
			if math.Abs(got-want) > 1e-9 {
				t.Errorf("%s m=%d ℓ=%d: E[PI] = %v, V(π) = %v", spec, m, l, got, want)
			}
			if math.Abs(gotStoch-wantStoch) > 1e-9 {
				t.Errorf("%s m=%d ℓ=%d: stochastic target E[PI] = %v, V(π) = %v", spec, m, l, gotStoch, wantStoch)
			}
			// E[φ̂] = Γ†Γφ: φ up to the null space, so every slate's value is exact.
			_ = gotPhiHat
			g.Dist().EachSlate(func(s []int32, _ float64) {
				if a, b := SlateSum(acc, m, s), SlateSum(phi, m, s); math.Abs(a-b) > 1e-9 {
					t.Fatalf("%s m=%d ℓ=%d: E[φ̂]ᵀ1_s = %v, φᵀ1_s = %v", spec, m, l, a, b)
				}
			})
		}
	}
}

// ℓ = 1 is IPS: φ̂(1, a) = r·1{s = a}/μ(a).
func TestSingleSlotIsIPS(t *testing.T) {
	for _, spec := range testSpecs {
		for _, m := range []int{1, 2, 5, 13} {
			g := mustGamma(t, mustLogging(t, spec), m, 1)
			for a := range m {
				s := []int32{int32(a)}
				phi := make([]float64, m)
				g.PinvMulVec(phi, Indicator(nil, m, s))
				for b := range m {
					want := 0.0
					if b == a {
						want = 1 / g.Dist().Prob(s)
					}
					if math.Abs(phi[b]-want) > 1e-9*max(1, want) {
						t.Fatalf("%s m=%d: φ̂(%d) for s=%d is %v, want %v", spec, m, b, a, phi[b], want)
					}
				}
			}
		}
	}
}

// m = 100, ℓ = 10: exact (not Monte Carlo) for α ∈ {0.5, 1, 2}, and the
// relative cut-off keeps the tiny eigenvalues of p_2 (9e-7 of the largest).
func TestPALargeExact(t *testing.T) {
	for _, alpha := range []float64{0.5, 1, 2} {
		lg, _ := pa(alpha)
		start := time.Now()
		g := mustGamma(t, lg, 100, 10)
		el := time.Since(start)
		sp := g.Spectrum()
		t.Logf("pa:%g m=100 ℓ=10: %v, %d DP states, rank %d, max eigenvalue %.3g, min kept %.3g (ratio %.3g)",
			alpha, el.Round(time.Millisecond), g.mo.states, sp.Rank, sp.Max, sp.MinKept, sp.MinKept/sp.Max)
		if !g.Exact() {
			t.Fatalf("pa:%g: Γ is not exact", alpha)
		}
		if want := 10*99 + 1; sp.Rank != want {
			t.Errorf("pa:%g: rank %d, want %d", alpha, sp.Rank, want)
		}
		if alpha == 2 && !(sp.MinKept/sp.Max < 1e-6 && sp.MinKept/sp.Max > 1e-7) {
			t.Errorf("pa:2: smallest kept eigenvalue ratio %.3g, docs/design.md says ≈ 9e-7", sp.MinKept/sp.Max)
		}
		// The first-moment vector is in Γ's range: q_μᵀΓ†1_s = 1 on sampled slates.
		w := make([]float64, 1000)
		g.PinvMulVec(w, g.Marginals(nil))
		src := rand.NewPCG(11, uint64(alpha*10))
		s := make([]int32, 10)
		for range 200 {
			g.Dist().Sample(src, s)
			if got := SlateSum(w, 100, s); math.Abs(got-1) > 1e-6 {
				t.Fatalf("pa:%g: q_μᵀΓ†1_s = %v for %v", alpha, got, s)
			}
			if got := g.SlateForm(s, s); got < 1 {
				t.Fatalf("pa:%g: 1_sᵀΓ†1_s = %v < 1", alpha, got)
			}
		}
	}
}

// The Monte Carlo fallback estimates the same moments within its error.
func TestMonteCarloFallback(t *testing.T) {
	d, _ := mustLogging(t, "eps:0.1,pa:1").Dist(10, 3)
	exact, _ := NewGamma(d, GammaOptions{})
	mc, err := NewGamma(d, GammaOptions{maxStates: 3, mcSamples: 200000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if mc.Exact() || mc.StdErr() <= 0 {
		t.Fatalf("fallback: Exact %v StdErr %v", mc.Exact(), mc.StdErr())
	}
	if !exact.Exact() || exact.StdErr() != 0 {
		t.Fatalf("exact: Exact %v StdErr %v", exact.Exact(), exact.StdErr())
	}
	// Each class probability within 6 standard errors (scaled by 1−ε).
	for i, p := range exact.mo.p1 {
		if math.Abs(mc.mo.p1[i]-p) > 6*mc.StdErr() {
			t.Errorf("P_j(c)[%d]: MC %v, exact %v, stderr %v", i, mc.mo.p1[i], p, mc.StdErr())
		}
	}
	for i, p := range exact.mo.p2 {
		if math.Abs(mc.mo.p2[i]-p) > 6*mc.StdErr() {
			t.Errorf("P_jk(c,c')[%d]: MC %v, exact %v", i, mc.mo.p2[i], p)
		}
	}
}

func TestGammaCacheSharesShapes(t *testing.T) {
	gc := NewGammaCache(mustLogging(t, "pa:1"), GammaOptions{})
	a, _ := gc.get(30, 3)
	b, _ := gc.get(30, 3)
	c, _ := gc.get(31, 3)
	if a != b || a == c {
		t.Fatal("cache does not share Γ per shape")
	}
	if _, err := gc.get(2, 3); err == nil {
		t.Fatal("ℓ > m accepted")
	}
	if all := gc.All(); len(all) != 2 || all[0].M() != 30 || all[1].M() != 31 {
		t.Fatalf("All() = %d entries", len(all))
	}
}

func ExampleGamma_SlateForm() {
	// PI weight of a logged slate for a deterministic target slate, under
	// uniform logging of 3 slots out of 10 candidates.
	d, _ := Uniform().Dist(10, 3)
	g, _ := NewGamma(d, GammaOptions{})
	target := []int32{0, 1, 2}
	fmt.Printf("%.4g\n", g.SlateForm(target, []int32{0, 1, 2})) // the target itself: 1 + ℓ(m−1)
	fmt.Printf("%.4g\n", g.SlateForm(target, []int32{1, 0, 2})) // same docs, one slot right
	fmt.Printf("%.4g\n", g.SlateForm(target, []int32{7, 8, 9})) // disjoint
	// Output:
	// 28
	// 10
	// -2.857
}
