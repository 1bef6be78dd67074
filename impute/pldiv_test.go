package impute

import (
	"math/rand/v2"
	"testing"
)

// The unrolled kernels give biDivAcc's results bit for bit.
func TestBiDivAccUnrolled(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for d := range 4 {
		n := tri(d + 1)
		for range 100 {
			a := make([]float64, n)
			for i := range a {
				a[i] = rng.Float64()
			}
			r := 0.5 + rng.Float64()/2
			p, q, w := rng.Float64()*(1-r), rng.Float64()*(1-r), rng.Float64()
			want, got := make([]float64, n), make([]float64, n)
			for i := range want {
				want[i] = rng.Float64()
				got[i] = want[i]
			}
			biDivAcc(make([]float64, n), a, d, r, p, q, w, want)
			biDivAccFor(d)(nil, a, d, r, p, q, w, got)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("d=%d coefficient %d: %v, want %v", d, i, got[i], want[i])
				}
			}
		}
	}
}

// The unrolled products give biMulLinAny's results bit for bit.
func TestBiMulLinUnrolled(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 6))
	for d := 1; d <= 3; d++ {
		n := tri(d + 1)
		for range 100 {
			want := make([]float64, n)
			for i := range want {
				want[i] = rng.Float64()
			}
			got := append([]float64(nil), want...)
			r, p, q := rng.Float64(), rng.Float64(), rng.Float64()
			biMulLinAny(want, d, r, p, q)
			biMulLin(got, d, r, p, q)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("d=%d coefficient %d: %v, want %v", d, i, got[i], want[i])
				}
			}
		}
	}
}

// The unrolled products give biMulAny's results bit for bit.
func TestBiMulUnrolled(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	for d := 1; d <= 3; d++ {
		n := tri(d + 1)
		for range 100 {
			a, b := make([]float64, n), make([]float64, n)
			for i := range a {
				a[i], b[i] = rng.Float64()-0.25, rng.Float64()
			}
			want, got := make([]float64, n), make([]float64, n)
			biMulAny(want, a, b, d)
			biMul(got, a, b, d)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("d=%d coefficient %d: %v, want %v", d, i, got[i], want[i])
				}
			}
		}
	}
}
