package ope

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestBernsteinHandComputed(t *testing.T) {
	// Theorem 1 at n = 100, σ² = ρ = 1, δ = 0.05:
	// sqrt(2 ln 40 / 100) + 4 ln 40 / 300.
	if got := bernsteinHalfWidth(100, 1, 1, 0.05); !near(got, 0.32080536253630976, 1e-15) {
		t.Fatalf("half-width %.17g", got)
	}
	if !math.IsInf(bernsteinHalfWidth(0, 1, 1, 0.05), 1) {
		t.Fatal("no samples must give an infinite half-width")
	}
	// Around the mean, clipped to the reward range.
	s := Sums{N: 100, RW: 50}
	b := BoundSpec{Delta: 0.05, Sigma2: 1, WeightLo: 1, WeightHi: 1, RewardHi: 1}
	iv := Bernstein(&s, b)
	if !near(iv.Lo, 0.5-0.32080536253630976, 1e-15) || !near(iv.Hi, 0.5+0.32080536253630976, 1e-15) {
		t.Fatalf("Bernstein interval %+v", iv)
	}
	s.RW = 90
	if iv := Bernstein(&s, b); iv.Hi != 1 {
		t.Fatalf("interval not clipped to the reward range: %+v", iv)
	}
	// Rewards in [−2, 2] scale the width by 2.
	s.RW = 0
	b.RewardLo, b.RewardHi = -2, 2
	if iv := Bernstein(&s, b); !near(iv.Hi, 2*0.32080536253630976, 1e-15) {
		t.Fatalf("scaled interval %+v", iv)
	}
}

func TestBernsteinSelfNormalizedHandComputed(t *testing.T) {
	// n = 1000, W̄ = 1.25, Ā = 0.5, σ² = 2, ρ = 3, δ = 0.05, R = 1:
	// ε = sqrt(4 ln 40/1000) + 6 ln 40/3000; V ∈ [(Ā−ε)/W̄, (Ā+ε)/W̄].
	s := Sums{N: 1000, W: 1250, RW: 500}
	b := BoundSpec{Delta: 0.05, Sigma2: 2, WeightLo: -3, WeightHi: 2, RewardLo: 0, RewardHi: 1}
	iv := bernsteinSelfNormalized(&s, b)
	if !near(iv.Lo, 0.29691995896808887, 1e-14) || !near(iv.Hi, 0.5030800410319112, 1e-14) {
		t.Fatalf("interval %+v", iv)
	}
	// A negative mean weight flips the ends.
	s = Sums{N: 1000, W: -1250, RW: -500}
	iv = bernsteinSelfNormalized(&s, b)
	if !near(iv.Lo, 0.29691995896808887, 1e-14) || !near(iv.Hi, 0.5030800410319112, 1e-14) {
		t.Fatalf("interval with negative weights %+v", iv)
	}
	// Zero mean weight: the whole range when |Ā| ≤ ε.
	s = Sums{N: 1000, W: 0, RW: 0.01}
	if iv = bernsteinSelfNormalized(&s, b); iv != (Interval{0, 1}) {
		t.Fatalf("zero denominator: %+v", iv)
	}
}

func TestEmpiricalBernsteinHandComputed(t *testing.T) {
	// 250 copies of rewards (1, 0, 0.5, 1) with weights (1, 0, 1, 0.5):
	// terms (1, 0, 0.5, 0.5), mean 0.5, unbiased variance 125/999, terms in
	// [0, 1]; δ = 0.1: h = sqrt(2·(125/999)·ln 40/1000) + 7 ln 40/(3·999).
	var s Sums
	for range 250 {
		s.Add(1, 1)
		s.Add(0, 0)
		s.Add(0.5, 1)
		s.Add(1, 0.5)
	}
	b := BoundSpec{Delta: 0.1, Sigma2: 1, WeightLo: 0, WeightHi: 1, RewardLo: 0, RewardHi: 1}
	iv := empiricalBernstein(&s, b)
	if !near(iv.Lo, 0.4610007300761845, 1e-12) || !near(iv.Hi, 0.5389992699238155, 1e-12) {
		t.Fatalf("interval %+v", iv)
	}
	one := Sums{}
	one.Add(0.5, 1)
	if iv := empiricalBernstein(&one, b); iv != (Interval{0, 1}) {
		t.Fatalf("one sample: %+v, want the reward range", iv)
	}
}

func TestEmpiricalBernsteinSelfNormalizedMatchesPlainWhenWeightsAreOne(t *testing.T) {
	// With every weight 1 the self-normalised test at V reads
	// |V − r̄| ≤ sqrt(2 V_n ln(4/δ)/n) + 7 L ln(4/δ)/(3(n−1)), V_n the sample
	// variance of r (independent of V), L = RewardHi − RewardLo: the plain
	// interval of the rewards.
	rng := rand.New(rand.NewPCG(3, 4))
	var s Sums
	for range 5000 {
		s.Add(rng.Float64()*0.6, 1)
	}
	b := BoundSpec{Delta: 0.05, Sigma2: 1, WeightLo: 1, WeightHi: 1, RewardLo: 0, RewardHi: 1}
	a, c := empiricalBernstein(&s, b), empiricalBernsteinSelfNormalized(&s, b)
	if !near(a.Lo, c.Lo, 1e-9) || !near(a.Hi, c.Hi, 1e-9) {
		t.Fatalf("plain %+v, self-normalised %+v", a, c)
	}
}

func TestBoundSpecValidate(t *testing.T) {
	good := BoundSpec{Delta: 0.05, Sigma2: 1, WeightLo: 0, WeightHi: 1, RewardHi: 1}
	if err := good.validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []BoundSpec{
		{Delta: 0, RewardHi: 1},
		{Delta: 1, RewardHi: 1},
		{Delta: 0.1, Sigma2: math.NaN(), RewardHi: 1},
		{Delta: 0.1, WeightLo: 2, WeightHi: 1, RewardHi: 1},
		{Delta: 0.1, RewardLo: 1},
	} {
		if bad.validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// TestIntervalsCoverage simulates many seeded logs of the m = ℓ = 3
// uniform-ranking instance (PI weights −1, 1, 5; σ² = ρ = 5) with a
// Bernoulli reward whose mean is additive over slots, and checks that every
// interval covers the true value in at least 1 − δ of the logs. The
// Bernstein intervals are conservative, so they must never miss here; the
// bootstrap is asymptotic and gets a little slack.
func TestIntervalsCoverage(t *testing.T) {
	phi := [3][3]float64{{0.30, 0.05, 0.10}, {0.02, 0.20, 0.07}, {0.01, 0.04, 0.15}}
	mean := func(s [3]int32) float64 { return phi[0][s[0]] + phi[1][s[1]] + phi[2][s[2]] }
	v := mean(perm3[0])
	const (
		reps  = 1000
		n     = 400
		delta = 0.1
	)
	b := BoundSpec{Delta: delta, Sigma2: 5, WeightLo: -1, WeightHi: 5, RewardLo: 0, RewardHi: 1}
	names := []string{"bernstein", "bernstein-sn", "emp-bernstein", "emp-bernstein-sn", "bootstrap", "bootstrap-sn"}
	miss := make([]int, len(names))
	rng := rand.New(rand.NewPCG(11, 12))
	for rep := range reps {
		var s Sums
		boot := NewBootstrap(200, 1, uint64(rep))
		w := make([]float64, 1)
		for i := range n {
			sl := perm3[rng.IntN(6)]
			r := b2f(rng.Float64() < mean(sl))
			w[0] = perm3Weight(sl)
			s.Add(r, w[0])
			boot.Add(1, int64(i), r, w)
		}
		for i, iv := range []Interval{
			Bernstein(&s, b), bernsteinSelfNormalized(&s, b),
			empiricalBernstein(&s, b), empiricalBernsteinSelfNormalized(&s, b),
			boot.Interval(0, false, delta), boot.Interval(0, true, delta),
		} {
			if !iv.contains(v) {
				miss[i]++
			}
		}
	}
	for i, name := range names {
		rate := float64(miss[i]) / reps
		limit := delta
		if i >= 4 {
			limit = delta + 0.03
		}
		t.Logf("%-17s miss rate %.3f", name, rate)
		if rate > limit {
			t.Errorf("%s misses V in %.3f of logs, more than %.3f", name, rate, limit)
		}
	}
}

func ExampleBernstein() {
	// 10 000 logged samples whose PI weights have σ² = 5 and range [−1, 5].
	s := Sums{N: 10000, W: 10050, RW: 4200}
	b := BoundSpec{Delta: 0.05, Sigma2: 5, WeightLo: -1, WeightHi: 5, RewardLo: 0, RewardHi: 1}
	iv := Bernstein(&s, b)
	fmt.Printf("PI %.3f, 95%% interval [%.3f, %.3f]\n", s.Mean(), iv.Lo, iv.Hi)
	// Output: PI 0.420, 95% interval [0.358, 0.482]
}
