package impute

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// plImpressionDist returns a Plackett–Luce distribution (pl:τ) over l
// slots of m candidates with distinct N(0, 1) scores drawn from seed: one
// production impression's logging policy.
func plImpressionDist(t testing.TB, m, l int, tau float64, seed uint64) *Dist {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	s := make([]float64, m)
	for i := range s {
		s[i] = rng.NormFloat64()
	}
	slices.Sort(s)
	slices.Reverse(s)
	lg, err := PL(tau)
	if err != nil {
		t.Fatal(err)
	}
	d, err := lg.ScoredDist(s, l)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var impressionShapes = [][2]int{{20, 3}, {50, 5}, {100, 10}}

// BenchmarkImpressionGammaOld builds Γ per impression, from scratch (PL
// moments included), with today's eigendecomposition Γ†.
func BenchmarkImpressionGammaOld(b *testing.B) {
	for _, sh := range impressionShapes {
		b.Run(fmt.Sprintf("m=%d/l=%d", sh[0], sh[1]), func(b *testing.B) {
			d := plImpressionDist(b, sh[0], sh[1], 1, 1)
			for range b.N {
				if _, err := NewGamma(d, GammaOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkImpressionMoments is the PL moments alone.
func BenchmarkImpressionMoments(b *testing.B) {
	for _, sh := range impressionShapes {
		b.Run(fmt.Sprintf("m=%d/l=%d", sh[0], sh[1]), func(b *testing.B) {
			d := plImpressionDist(b, sh[0], sh[1], 1, 1)
			for range b.N {
				if _, err := plackettLuceMoments(d.ClassSizes(), d.w, d.l, PLOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
