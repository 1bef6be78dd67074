package ope

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestSumsHandComputed(t *testing.T) {
	r := []float64{1, 0, 0.5}
	w := []float64{2, -1, 4}
	s := sumsOf(r, w)
	checks := []struct {
		name      string
		got, want float64
	}{
		{"N", float64(s.N), 3},
		{"Σw", s.W, 5},
		{"Σw²", s.w2, 21},
		{"Σrw", s.RW, 4},
		{"Σrw²", s.rw2, 12},
		{"Σr²w²", s.r2W2, 8},
		{"mean", s.Mean(), 4.0 / 3},
		{"mean weight", s.meanWeight(), 5.0 / 3},
		{"ESS", s.ESS(), 25.0 / 21},
		{"negative share", s.NegativeShare(), 1.0 / 3},
		{"max |w|", s.maxAbsWeight(), 4},
		{"min w", s.minW, -1},
		{"max r", s.maxR, 1},
		{"PI", piOf(r, w), 4.0 / 3},
		{"IPS", piOf(r, w), 4.0 / 3},
	}
	for _, c := range checks {
		if !near(c.got, c.want, 1e-12) {
			t.Errorf("%s = %.15g, want %.15g", c.name, c.got, c.want)
		}
	}
	if v, ok := wpiOf(r, w); !ok || !near(v, 0.8, 1e-12) {
		t.Errorf("wPI = %g, %v; want 0.8", v, ok)
	}
	if v, ok := wpiOf(r, w); !ok || !near(v, 0.8, 1e-12) {
		t.Errorf("wIPS = %g, %v; want 0.8", v, ok)
	}
}

func TestRatioEstimatorsZeroDenominator(t *testing.T) {
	for _, tc := range []struct {
		name string
		r, w []float64
	}{
		{"empty log", nil, nil},
		{"target never logged", []float64{0.3, 0.9}, []float64{0, 0}},
		{"weights cancel", []float64{0.3, 0.9}, []float64{1, -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if v, ok := wpiOf(tc.r, tc.w); ok || v != 0 {
				t.Fatalf("wPI = %g, %v; want 0, false", v, ok)
			}
			if v, ok := wpiOf(tc.r, tc.w); ok || v != 0 {
				t.Fatalf("wIPS = %g, %v; want 0, false", v, ok)
			}
		})
	}
	if piOf(nil, nil) != 0 {
		t.Fatal("PI of an empty log must be 0")
	}
}

// perm3 is the PI weight 1_{s*}ᵀΓ†1_s of uniform logging over the 6
// rankings of m = ℓ = 3 documents: (2 − m) + (m − 1)·#{j: s_j = s*_j}
// (paper, Prop. "ranking spectrum"), with s* = (0, 1, 2).
var perm3 = [6][3]int32{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}}

func perm3Weight(s [3]int32) float64 {
	c := 0
	for j, a := range s {
		if int(a) == j {
			c++
		}
	}
	return float64(-1 + 2*c)
}

// TestPIUnbiasedByHand checks E_μ[r·w] = V(s*) exactly for an additive
// reward under uniform logging over the rankings of 3 documents, and the
// paper's σ² = 1_{s*}ᵀΓ†1_{s*} = E_μ[w²] and E_μ[w] = 1.
func TestPIUnbiasedByHand(t *testing.T) {
	phi := [3][3]float64{{0.30, 0.05, 0.10}, {0.02, 0.20, 0.07}, {0.01, 0.04, 0.15}}
	reward := func(s [3]int32) float64 {
		v := 0.0
		for j, a := range s {
			v += phi[j][a]
		}
		return v
	}
	var ew, ew2, erw float64
	for _, s := range perm3 {
		w := perm3Weight(s)
		ew += w / 6
		ew2 += w * w / 6
		erw += reward(s) * w / 6
	}
	if !near(ew, 1, 1e-14) || !near(ew2, 5, 1e-14) || !near(erw, reward(perm3[0]), 1e-14) {
		t.Fatalf("E[w] = %g (want 1), E[w²] = %g (want σ² = 5), E[rw] = %g (want V = %g)", ew, ew2, erw, reward(perm3[0]))
	}
}

func TestPIEqualsIPSForOneSlot(t *testing.T) {
	// ℓ = 1, uniform logging over m docs: Γ = I/m, so the PI weight of a
	// deterministic target is m·1{s = s*}, the IPS ratio.
	rng := rand.New(rand.NewPCG(1, 2))
	const m = 7
	var r, wpi, wips []float64
	for range 1000 {
		a := rng.IntN(m)
		r = append(r, rng.Float64())
		ratio := 0.0
		if a == 3 {
			ratio = m
		}
		wips = append(wips, ratio)
		// Γ† = m·I: 1_{s*}ᵀ(mI)1_s.
		wpi = append(wpi, m*b2f(a == 3))
	}
	if piOf(r, wpi) != piOf(r, wips) {
		t.Fatal("PI ≠ IPS at ℓ = 1")
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func ExampleSums() {
	// Three logged slates with their rewards and PI weights q_πᵀΓ†1_s.
	rewards := []float64{1, 0, 0.5}
	weights := []float64{2, -1, 4}
	wpi, ok := wpiOf(rewards, weights)
	fmt.Printf("PI %.4f  wPI %.4f (%v)\n", piOf(rewards, weights), wpi, ok)
	s := sumsOf(rewards, weights)
	fmt.Printf("ESS %.3f, negative weights %.0f%%\n", s.ESS(), 100*s.NegativeShare())
	// Output:
	// PI 1.3333  wPI 0.8000 (true)
	// ESS 1.190, negative weights 33%
}

// piOf and wpiOf are the plain and self-normalised weighted means of
// paired rewards and weights (PI and wPI, or IPS and wIPS with ratios).
func piOf(rewards, weights []float64) float64 {
	s := sumsOf(rewards, weights)
	return s.Mean()
}

func wpiOf(rewards, weights []float64) (float64, bool) {
	s := sumsOf(rewards, weights)
	return s.SelfNormalized()
}
