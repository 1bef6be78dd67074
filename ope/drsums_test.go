package ope

import (
	"math/rand/v2"
	"testing"
)

// TestDRHandComputed: three samples (r, G, b, c) = (1, 2, 0.5, 0.25),
// (0, −1, 0.5, 0.75), (0.5, 3, 0.2, 0.5). The terms b + G(r − c) are
// 0.5 + 1.5, 0.5 + 0.75, 0.2 + 0 = 2, 1.25, 0.2: dr = 3.45/3. wdr =
// mean b + Σ G(r − c)/Σ G = 1.2/3 + 2.25/4.
func TestDRHandComputed(t *testing.T) {
	var d drSums
	d.Add(1, 2, 0.5, 0.25)
	d.Add(0, -1, 0.5, 0.75)
	d.Add(0.5, 3, 0.2, 0.5)
	wdr, ok := d.SelfNormalized()
	if !near(d.Value(), 3.45/3, 1e-12) || !near(wdr, 0.4+2.25/4, 1e-12) || !ok {
		t.Errorf("dr %.15g, wdr %.15g (ok %v); want %.15g, %.15g", d.Value(), wdr, ok, 3.45/3, 0.4+2.25/4)
	}
}

// randomLog returns n rewards in [0, 1], weights in [lo, hi] and model
// values b, c in [0, 1].
func randomLog(seed uint64, n int, lo, hi float64) (r, w, b, c []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	r, w, b, c = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range r {
		r[i], b[i], c[i] = rng.Float64(), rng.Float64(), rng.Float64()
		w[i] = lo + (hi-lo)*rng.Float64()*rng.Float64()
	}
	return r, w, b, c
}

// TestDRZeroModelIsPI: with φ̄ ≡ 0 (b = c = 0) dr is PI and wdr is wPI, and
// their empirical-Bernstein intervals are PI's and wPI's (a model range
// [0, 0] leaves the terms' range that of r·w).
func TestDRZeroModelIsPI(t *testing.T) {
	bs := BoundSpec{Delta: 0.05, WeightLo: -3, WeightHi: 10, RewardLo: 0, RewardHi: 1}
	for _, n := range []int{2, 30, 3000} {
		r, w, _, _ := randomLog(uint64(n), n, bs.WeightLo, bs.WeightHi)
		var d drSums
		for i := range r {
			d.Add(r[i], w[i], 0, 0)
		}
		pi := sumsOf(r, w)
		wpi, _ := pi.SelfNormalized()
		wdr, _ := d.SelfNormalized()
		if !near(d.Value(), pi.Mean(), 1e-12) || !near(wdr, wpi, 1e-12) {
			t.Errorf("n=%d: dr %.15g, PI %.15g; wdr %.15g, wPI %.15g", n, d.Value(), pi.Mean(), wdr, wpi)
		}
		spec := drSpec{Bound: bs}
		if got, want := d.EmpiricalBernstein(spec), empiricalBernstein(&pi, bs); !near(got.Lo, want.Lo, 1e-12) || !near(got.Hi, want.Hi, 1e-12) {
			t.Errorf("n=%d: dr interval %+v, PI's %+v", n, got, want)
		}
	}
}

// TestDRConstantModelIsCV: a model worth β on every slate (b = c = β) makes
// dr the control-variate estimate with the fixed coefficient β, and its
// interval the same as CVFolds' (one fold).
func TestDRConstantModelIsCV(t *testing.T) {
	bs := BoundSpec{Delta: 0.1, WeightLo: -1, WeightHi: 6, RewardLo: 0, RewardHi: 1}
	r, w, _, _ := randomLog(9, 2000, bs.WeightLo, bs.WeightHi)
	for _, beta := range []float64{0, 0.3, 1.7, -0.4} {
		var d drSums
		c := NewCVFolds(1)
		for i := range r {
			d.Add(r[i], w[i], beta, beta)
			c.Add(r[i], w[i])
		}
		betas := []float64{beta}
		if !near(d.Value(), c.Value(betas), 1e-12) {
			t.Errorf("β=%g: dr %.15g, pi-cv %.15g", beta, d.Value(), c.Value(betas))
		}
		got, want := d.EmpiricalBernstein(drSpec{Bound: bs, ModelLo: beta, ModelHi: beta}), c.empiricalBernstein(betas, bs)
		if !near(got.Lo, want.Lo, 1e-9) || !near(got.Hi, want.Hi, 1e-9) {
			t.Errorf("β=%g: dr interval %+v, pi-cv's %+v", beta, got, want)
		}
	}
}

// TestDRIntervalsHold checks, on random logs, that both intervals contain
// their estimate (clipped to the reward range) and lie in the reward range,
// and that dr's is informative on a long log.
func TestDRIntervalsHold(t *testing.T) {
	bs := BoundSpec{Delta: 0.1, WeightLo: -1, WeightHi: 6, RewardLo: 0, RewardHi: 1}
	spec := drSpec{Bound: bs, ModelLo: 0, ModelHi: 1}
	for _, n := range []int{2, 100, 20000} {
		r, w, b, c := randomLog(uint64(n)+7, n, bs.WeightLo, bs.WeightHi)
		var d drSums
		for i := range r {
			d.Add(r[i], w[i], b[i], c[i])
		}
		wdr, _ := d.SelfNormalized()
		for name, x := range map[string]struct {
			iv Interval
			v  float64
		}{"dr": {d.EmpiricalBernstein(spec), d.Value()}, "wdr": {d.EmpiricalBernsteinSelfNormalized(spec), wdr}} {
			v := bs.clip(x.v)
			if !x.iv.contains(v) || x.iv.Lo < bs.RewardLo || x.iv.Hi > bs.RewardHi {
				t.Errorf("n=%d %s: interval %+v, estimate %.6g", n, name, x.iv, x.v)
			}
		}
		if n == 20000 {
			if iv := d.EmpiricalBernstein(spec); iv.width() > 0.5 || iv.width() <= 0 {
				t.Errorf("dr interval %+v at n = %d: width not in (0, 0.5]", iv, n)
			}
		}
	}
}

// TestDRMergeIsOneLog: a log split in two, each part's sums merged, gives
// the sums of the whole log (so the estimates and intervals are the same).
func TestDRMergeIsOneLog(t *testing.T) {
	r, w, b, c := randomLog(3, 101, -2, 6)
	var all, a, z drSums
	for i := range r {
		all.Add(r[i], w[i], b[i], c[i])
		if i%3 == 0 {
			a.Add(r[i], w[i], b[i], c[i])
		} else {
			z.Add(r[i], w[i], b[i], c[i])
		}
	}
	a.Merge(&z)
	v1, _ := all.SelfNormalized()
	v2, _ := a.SelfNormalized()
	if a.Terms.N != all.Terms.N || !near(a.Value(), all.Value(), 1e-12) || !near(v1, v2, 1e-12) ||
		a.Terms.Sums() != all.Terms.Sums() || a.Corr.minW != all.Corr.minW || a.Corr.maxW != all.Corr.maxW {
		t.Errorf("merged %+v, whole %+v", a, all)
	}
	var empty drSums
	empty.Merge(&all)
	if empty != all {
		t.Errorf("empty merged with the log: %+v, want %+v", empty, all)
	}
}
