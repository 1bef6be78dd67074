package impute

import (
	"math/rand/v2"
	"slices"
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

// The unrolled products give the general loops' results bit for bit:
// biMulLin against biMulLinAny, biMul against biMulAny, on random a, b
// (a of both signs) and factors r + p·x + q·y.
func TestBiMulUnrolled(t *testing.T) {
	kernels := []struct {
		name      string
		fast, any func(a, b []float64, d int, r, p, q float64) []float64
	}{
		{"biMulLin",
			func(a, _ []float64, d int, r, p, q float64) []float64 { biMulLin(a, d, r, p, q); return a },
			func(a, _ []float64, d int, r, p, q float64) []float64 { biMulLinAny(a, d, r, p, q); return a }},
		{"biMul",
			func(a, b []float64, d int, _, _, _ float64) []float64 {
				c := make([]float64, len(a))
				biMul(c, a, b, d)
				return c
			},
			func(a, b []float64, d int, _, _, _ float64) []float64 {
				c := make([]float64, len(a))
				biMulAny(c, a, b, d)
				return c
			}},
	}
	rng := rand.New(rand.NewPCG(3, 6))
	for _, k := range kernels {
		for d := 1; d <= 3; d++ {
			n := tri(d + 1)
			for range 100 {
				a, b := make([]float64, n), make([]float64, n)
				for i := range a {
					a[i], b[i] = rng.Float64()-0.25, rng.Float64()
				}
				r, p, q := rng.Float64(), rng.Float64(), rng.Float64()
				want := k.any(slices.Clone(a), b, d, r, p, q)
				got := k.fast(slices.Clone(a), b, d, r, p, q)
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%s d=%d coefficient %d: %v, want %v", k.name, d, i, got[i], want[i])
					}
				}
			}
		}
	}
}
