package ope

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Bootstrap is a seeded streaming bootstrap of the weighted-mean estimators
// of one log. The classic bootstrap resamples n samples with replacement,
// which needs the whole log in memory; the Poisson bootstrap (Hanley and
// MacGibbon 2006; Chamandy et al. 2012, "Estimating uncertainty for massive
// data streams") instead gives sample i an independent Poisson(1) count in
// every replicate, which has the same limit and needs only running sums per
// replicate. Memory is O(replicates × channels), time O(replicates) per sample.
//
// A channel is one weight per sample (for instance the PI weight and the IPS
// ratio of the same logged slate); all channels of a sample share its counts,
// so replicates of different estimators resample the same logs.
type Bootstrap struct {
	rng      *rand.Rand
	channels int
	count    []float64 // per replicate: Σ k_i
	w        []float64 // per replicate and channel: Σ k_i w_i
	rw       []float64 // per replicate and channel: Σ k_i r_i w_i
}

// poissonCut[k] is 2³²·P(K ≤ k) rounded for K ~ Poisson(1); a 32-bit uniform u
// draws the smallest k with u < poissonCut[k]. The last cut is 2³², so counts
// stop at 15 (P(K > 15) ≈ 1e-13 is below the 2⁻³² resolution anyway).
var poissonCut = func() [16]uint64 {
	var t [16]uint64
	p, cdf := math.Exp(-1), 0.0
	for k := range t {
		cdf += p
		p /= float64(k + 1)
		t[k] = uint64(math.Min(math.Round(cdf*(1<<32)), 1<<32))
	}
	t[len(t)-1] = 1 << 32
	return t
}()

// NewBootstrap returns a bootstrap with the given number of replicates and
// weight channels, drawing its counts from a PCG generator seeded by seed.
func NewBootstrap(replicates, channels int, seed uint64) *Bootstrap {
	return &Bootstrap{
		rng:      rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)),
		channels: channels,
		count:    make([]float64, replicates),
		w:        make([]float64, replicates*channels),
		rw:       make([]float64, replicates*channels),
	}
}

// Replicates returns the number of replicates.
func (b *Bootstrap) Replicates() int { return len(b.count) }

// Add records one sample: its reward and one weight per channel.
func (b *Bootstrap) Add(r float64, w []float64) {
	nc := b.channels
	var bits uint64
	for j := range b.count {
		// Two 32-bit uniforms per 64-bit draw.
		if j&1 == 0 {
			bits = b.rng.Uint64()
		} else {
			bits >>= 32
		}
		u := bits & (1<<32 - 1)
		k := 0
		for k < len(poissonCut) && u >= poissonCut[k] {
			k++
		}
		if k == 0 {
			continue
		}
		fk := float64(k)
		b.count[j] += fk
		ws, rws := b.w[j*nc:(j+1)*nc], b.rw[j*nc:(j+1)*nc]
		for c, x := range w[:nc] {
			ws[c] += fk * x
			rws[c] += fk * r * x
		}
	}
}

// Estimates returns the replicate values of channel c's estimate: the plain
// mean Σk r w / Σk, or the self-normalised Σk r w / Σk w; a replicate whose
// denominator is 0 gets 0, as the estimators do.
func (b *Bootstrap) Estimates(c int, selfNormalized bool) []float64 {
	out := make([]float64, len(b.count))
	for j := range out {
		num, den := b.rw[j*b.channels+c], b.count[j]
		if selfNormalized {
			den = b.w[j*b.channels+c]
		}
		if den != 0 {
			out[j] = num / den
		}
	}
	return out
}

// Interval returns the percentile interval of channel c's estimate: the
// δ/2 and 1 − δ/2 quantiles of the replicates (linear interpolation between
// order statistics).
func (b *Bootstrap) Interval(c int, selfNormalized bool, delta float64) Interval {
	est := b.Estimates(c, selfNormalized)
	return percentileInterval(est, delta)
}

// percentileInterval returns the δ/2 and 1 − δ/2 sample quantiles of xs
// (type 7 of Hyndman and Fan: linear interpolation between order
// statistics). xs is sorted in place.
func percentileInterval(xs []float64, delta float64) Interval {
	if len(xs) == 0 {
		return Interval{math.Inf(-1), math.Inf(1)}
	}
	slices.Sort(xs)
	return Interval{quantile(xs, delta/2), quantile(xs, 1-delta/2)}
}

func quantile(sorted []float64, p float64) float64 {
	h := p * float64(len(sorted)-1)
	i := int(math.Floor(h))
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}
