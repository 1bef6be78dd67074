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
	lg, err := pl(tau)
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

// benchImpression builds Γ per impression from scratch (PL moments
// included) with build, and applies Γ† once (the PI weights Γ†q_π).
func benchImpression(b *testing.B, build func(*Dist, GammaOptions) (*Gamma, error)) {
	for _, sh := range impressionShapes {
		b.Run(fmt.Sprintf("m=%d/l=%d", sh[0], sh[1]), func(b *testing.B) {
			d := plImpressionDist(b, sh[0], sh[1], 1, 1)
			v := Indicator(nil, d.m, lastSlate(d.m, d.l))
			w := make([]float64, len(v))
			b.ResetTimer()
			start := processCPU()
			for range b.N {
				g, err := build(d, GammaOptions{})
				if err != nil {
					b.Fatal(err)
				}
				g.PinvMulVec(w, v)
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkImpressionGammaOld is today's path: the eigendecomposition.
func BenchmarkImpressionGammaOld(b *testing.B) { benchImpression(b, NewGamma) }

// BenchmarkImpressionGammaNew is the fast path (GammaCache.ForDist).
func BenchmarkImpressionGammaNew(b *testing.B) { benchImpression(b, newFastGamma) }

// BenchmarkImpressionMoments is the PL moments alone.
func BenchmarkImpressionMoments(b *testing.B) {
	for _, sh := range impressionShapes {
		b.Run(fmt.Sprintf("m=%d/l=%d", sh[0], sh[1]), func(b *testing.B) {
			d := plImpressionDist(b, sh[0], sh[1], 1, 1)
			b.ResetTimer()
			start := processCPU()
			for range b.N {
				if _, err := plackettLuceMoments(d.classSizes(), d.w, d.l, plOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}
