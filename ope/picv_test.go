package ope

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// addAll returns K-fold sums of the paired rewards and weights.
func addAll(k int, r, w []float64) *CVFolds {
	c := NewCVFolds(k)
	for i := range r {
		c.Add(r[i], w[i])
	}
	return c
}

// TestCVHandComputed checks β̂ and V̂ on four samples (r, G): (1, 2),
// (0.5, 0), (0.25, −1), (0.5, 4). Two folds: {0, 2} and {1, 3}. Through two
// points Cov(Gr, G)/Var(G) is the slope Δ(Gr)/ΔG: fold {0, 2} has Gr = 2,
// −0.25 at G = 2, −1, slope 0.75; fold {1, 3} has Gr = 0, 2 at G = 0, 4,
// slope 0.5. So β_{−0} = 0.5, β_{−1} = 0.75 and
//
//	V̂ = [ (2 − 0.25) − 0.5·(1 − 2) + (0 + 2) − 0.75·(4 − 2) ] / 4 = 2.75/4.
//
// In-sample: mean G = 1.25, mean Gr = 0.9375, mean G²r = 12.25/4, mean G² =
// 21/4, so β̂ = (3.0625 − 0.9375·1.25)/(5.25 − 1.5625) = 121/236 and
// V̂ = 0.9375 − (121/236)·0.25.
func TestCVHandComputed(t *testing.T) {
	r := []float64{1, 0.5, 0.25, 0.5}
	w := []float64{2, 0, -1, 4}
	c := addAll(2, r, w)
	betas := c.Betas()
	in := addAll(1, r, w)
	inBetas := in.Betas()
	total := c.total()
	whole, ok := cvBeta(&total)
	for _, x := range []struct {
		name      string
		got, want float64
	}{
		{"β_{−0}", betas[0], 0.5},
		{"β_{−1}", betas[1], 0.75},
		{"cross-fitted V̂", c.Value(betas), 2.75 / 4},
		{"in-sample β̂", inBetas[0], 121.0 / 236},
		{"Beta of the whole log", whole, 121.0 / 236},
		{"in-sample V̂", in.Value(inBetas), 0.9375 - 121.0/236*0.25},
		{"β = 0 is PI", c.Value([]float64{0, 0}), 3.75 / 4},
	} {
		if !near(x.got, x.want, 1e-12) {
			t.Errorf("%s = %.15g, want %.15g", x.name, x.got, x.want)
		}
	}
	if !ok {
		t.Error("Beta of a log with varying weights is not ok")
	}
}

// TestCVZeroBetaIsPI checks that with every coefficient 0 the estimate is
// PI, and that the folds' total is the PI sums, for any number of folds.
func TestCVZeroBetaIsPI(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	r, w := make([]float64, 1001), make([]float64, 1001)
	for i := range r {
		r[i], w[i] = rng.Float64(), rng.NormFloat64()*5+1
	}
	pi := sumsOf(r, w)
	for k := 1; k <= 7; k++ {
		c := addAll(k, r, w)
		if got := c.Value(make([]float64, k)); !near(got, pi.Mean(), 1e-12) {
			t.Errorf("K=%d: V̂(β = 0) = %.15g, PI = %.15g", k, got, pi.Mean())
		}
		tot := c.total()
		if tot.N != pi.N || !near(tot.W, pi.W, 1e-9) || !near(tot.r2W2, pi.r2W2, 1e-9) || tot.minW != pi.minW || tot.maxR != pi.maxR || tot.neg != pi.neg {
			t.Errorf("K=%d: total %+v, PI sums %+v", k, tot, pi)
		}
	}
}

// TestBetaDegenerate: fewer than two samples or constant weights give β = 0.
func TestBetaDegenerate(t *testing.T) {
	for _, tc := range []struct{ r, w []float64 }{
		{nil, nil},
		{[]float64{1}, []float64{3}},
		{[]float64{1, 0, 0.5}, []float64{1, 1, 1}},
	} {
		s := sumsOf(tc.r, tc.w)
		if b, ok := cvBeta(&s); b != 0 || ok {
			t.Errorf("r %v, w %v: β = %g, ok %v; want 0, false", tc.r, tc.w, b, ok)
		}
	}
}

// cvPoint is one outcome of a discrete (G, r) distribution with E[G] = 1.
type cvPoint struct{ g, r, p float64 }

// TestCVCrossFitExactlyUnbiased enumerates every log of n = 6 i.i.d. draws
// from a three-point distribution of (G, r) with E[G] = 1 and E[G r] = 0.63:
// the cross-fitted estimate's expectation is exactly 0.63 for K = 2, 3, 6,
// while the in-sample coefficient (K = 1) is biased. This is the reason the
// coefficient is cross-fitted.
func TestCVCrossFitExactlyUnbiased(t *testing.T) {
	dist := []cvPoint{{3, 0.8, 0.2}, {1, 0.3, 0.3}, {0.2, 0.6, 0.5}}
	const n, want = 6, 0.63
	expect := func(k int) float64 {
		var e float64
		idx := make([]int, n)
		for {
			c, p := NewCVFolds(k), 1.0
			for _, i := range idx {
				c.Add(dist[i].r, dist[i].g)
				p *= dist[i].p
			}
			e += p * c.Value(c.Betas())
			// Next tuple, odometer style.
			j := 0
			for ; j < n; j++ {
				if idx[j]++; idx[j] < len(dist) {
					break
				}
				idx[j] = 0
			}
			if j == n {
				return e
			}
		}
	}
	for _, k := range []int{2, 3, 6} {
		if got := expect(k); !near(got, want, 1e-12) {
			t.Errorf("K=%d: E[V̂] = %.15g, want %.15g", k, got, want)
		}
	}
	bias := expect(1) - want
	t.Logf("in-sample coefficient: bias %.3g at n = %d", bias, n)
	if math.Abs(bias) < 1e-4 {
		t.Errorf("in-sample coefficient: bias %.3g, expected a visible one (is K = 1 cross-fitting?)", bias)
	}
}

// TestCVEmpiricalBernstein checks the interval against the per-sample
// terms computed one by one, and, with every coefficient 0, against PI's
// empirical-Bernstein interval.
func TestCVEmpiricalBernstein(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	b := BoundSpec{Delta: 0.1, WeightLo: -2, WeightHi: 8, RewardLo: 0, RewardHi: 1}
	for _, n := range []int{50, 400, 5000} {
		r, w := make([]float64, n), make([]float64, n)
		for i := range r {
			w[i] = b.WeightLo + (b.WeightHi-b.WeightLo)*rng.Float64()*rng.Float64()
			r[i] = rng.Float64()
		}
		for _, k := range []int{1, 3} {
			c := addAll(k, r, w)
			betas := c.Betas()
			// The terms one by one.
			z := make([]float64, n)
			var mean float64
			for i := range z {
				bk := betas[i%k]
				z[i] = w[i]*r[i] - bk*(w[i]-1)
				mean += z[i] / float64(n)
			}
			var ss float64
			zlo, zhi := math.Inf(1), math.Inf(-1)
			for i := range z {
				ss += (z[i] - mean) * (z[i] - mean)
			}
			for _, bk := range betas {
				// w(r − β) + β is bilinear: its extremes are at the corners.
				for _, wc := range []float64{b.WeightLo, b.WeightHi} {
					for _, rc := range []float64{b.RewardLo, b.RewardHi} {
						zlo, zhi = min(zlo, wc*(rc-bk)+bk), max(zhi, wc*(rc-bk)+bk)
					}
				}
			}
			h := ebHalfWidth(float64(n), ss/float64(n-1), zhi-zlo, b.Delta)
			want := b.intersect(mean-h, mean+h, mean)
			got := c.empiricalBernstein(betas, b)
			name := fmt.Sprintf("n=%d K=%d", n, k)
			if !near(got.Lo, want.Lo, 1e-9) || !near(got.Hi, want.Hi, 1e-9) || !near(c.Value(betas), mean, 1e-12) {
				t.Errorf("%s: interval %+v, by hand %+v", name, got, want)
			}
			pi := sumsOf(r, w)
			if got, want := c.empiricalBernstein(make([]float64, k), b), empiricalBernstein(&pi, b); !near(got.Lo, want.Lo, 1e-9) || !near(got.Hi, want.Hi, 1e-9) {
				t.Errorf("%s, β = 0: interval %+v, PI's %+v", name, got, want)
			}
		}
	}
}
