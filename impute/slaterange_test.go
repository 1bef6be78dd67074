package impute

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The Hungarian solution equals brute force over every slate.
func TestSlateSumRangeMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, sh := range shapes(1, 8) {
		m, l := sh[0], sh[1]
		for range 5 {
			w := make([]float64, l*m)
			for i := range w {
				w[i] = rng.NormFloat64()
			}
			lo, hi := math.Inf(1), math.Inf(-1)
			d, _ := Uniform().Dist(m, l)
			d.EachSlate(func(s []int32, _ float64) {
				v := SlateSum(w, m, s)
				lo, hi = min(lo, v), max(hi, v)
			})
			glo, ghi := SlateSumRange(w, m, l)
			if math.Abs(glo-lo) > 1e-12 || math.Abs(ghi-hi) > 1e-12 {
				t.Fatalf("m=%d ℓ=%d: range [%v, %v], brute force [%v, %v]", m, l, glo, ghi, lo, hi)
			}
			s, v := MaxSlate(w, m, l)
			if d.Prob(s) == 0 || math.Abs(SlateSum(w, m, s)-v) > 1e-15 {
				t.Fatalf("MaxSlate returned invalid slate %v", s)
			}
		}
	}
}

// ρ for a deterministic target under uniform logging is 1 + ℓ(m−1), reached
// at the target itself (the paper's appendix).
func TestRhoUniform(t *testing.T) {
	for _, sh := range [][2]int{{10, 3}, {100, 10}, {5, 5}} {
		m, l := sh[0], sh[1]
		g := mustGamma(t, Uniform(), m, l)
		target := make([]int32, l)
		for j := range target {
			target[j] = int32(j)
		}
		w := make([]float64, l*m)
		g.PinvMulVec(w, Indicator(nil, m, target))
		lo, hi := SlateSumRange(w, m, l)
		want := float64(1 + l*(m-1))
		if l == m {
			want = float64(m*m - 2*m + 2)
		}
		if math.Abs(hi-want) > 1e-9*want || lo >= 1 {
			t.Errorf("m=%d ℓ=%d: weight range [%v, %v], want max %v", m, l, lo, hi, want)
		}
	}
}
