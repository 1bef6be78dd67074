package ope

import (
	"fmt"
	"math"
	"slices"

	"github.com/piopt/piopt/internal/xsum"
)

// Bootstrap is a seeded streaming bootstrap of the weighted-mean estimators
// of one log. The classic bootstrap resamples n samples with replacement,
// which needs the whole log in memory; the Poisson bootstrap (Hanley and
// MacGibbon 2006; Chamandy et al. 2012, "Estimating uncertainty for massive
// data streams") instead gives sample i an independent Poisson(1) count in
// every replicate, which has the same limit and needs only running sums per
// replicate. Memory is O(replicates × channels), time O(replicates) per sample.
//
// A sample's counts are a function of the seed, its context and its
// position among that context's impressions alone (a counter-based hash,
// see counts), and the replicates' sums are exact (internal/xsum): a log
// read in shards of contexts, in any order of its files, gives the
// replicates of one pass, bit for bit.
//
// A channel is one weight per sample (for instance the PI weight and the IPS
// ratio of the same logged slate); all channels of a sample share its counts,
// so replicates of different estimators resample the same logs.
type Bootstrap struct {
	seed     uint64
	channels int
	count    []float64  // per replicate: Σ k_i (an integer, exact in a float64)
	w        []xsum.Sum // per replicate and channel: Σ k_i w_i
	rw       []xsum.Sum // per replicate and channel: Σ k_i r_i w_i
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
// weight channels, whose counts are drawn from seed.
func NewBootstrap(replicates, channels int, seed uint64) *Bootstrap {
	return &Bootstrap{
		seed:     seed,
		channels: channels,
		count:    make([]float64, replicates),
		w:        make([]xsum.Sum, replicates*channels),
		rw:       make([]xsum.Sum, replicates*channels),
	}
}

// Replicates returns the number of replicates.
func (b *Bootstrap) Replicates() int { return len(b.count) }

// golden is 2⁶⁴/φ, splitmix64's increment.
const golden = 0x9e3779b97f4a7c15

// mix64 is splitmix64's finaliser (Steele, Lea and Flood 2014): a bijection
// of 64-bit words whose outputs for consecutive inputs pass BigCrush.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// ContextKey is the bootstrap's key of a context: FNV-1a 64 of its name
// (the qid, or QID@TAG of a policy file), the hash piopt's shards use.
func ContextKey(name string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return h
}

// Add records one sample: the j-th impression (from 0) of the context whose
// key is key (ContextKey), with its reward and one weight per channel.
// Replicate t's count of it is Poisson(1) by inversion of the 32-bit
// uniform taken from word ⌊t/2⌋ of the splitmix64 stream that starts at
// mix64(mix64(seed ⊕ key) + j·golden): a function of (seed, context, j)
// alone. It does not allocate.
func (b *Bootstrap) Add(key uint64, j int64, r float64, w []float64) {
	nc := b.channels
	base := mix64(mix64(b.seed^key) + uint64(j)*golden)
	var bits uint64
	for t := range b.count {
		// Two 32-bit uniforms per 64-bit word.
		if t&1 == 0 {
			bits = mix64(base + uint64(t>>1+1)*golden)
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
		b.count[t] += fk
		ws, rws := b.w[t*nc:(t+1)*nc], b.rw[t*nc:(t+1)*nc]
		for c, x := range w[:nc] {
			ws[c].Add(fk * x)
			rws[c].Add(fk * r * x)
		}
	}
}

// Merge adds the samples of o, a bootstrap of another part of the log with
// the same seed, replicates and channels.
func (b *Bootstrap) Merge(o *Bootstrap) error {
	if o.seed != b.seed || len(o.count) != len(b.count) || o.channels != b.channels {
		return fmt.Errorf("ope: bootstraps of different seeds, replicates or channels")
	}
	for t := range b.count {
		b.count[t] += o.count[t]
	}
	for i := range b.w {
		b.w[i].AddSum(&o.w[i])
		b.rw[i].AddSum(&o.rw[i])
	}
	return nil
}

// Estimates returns the replicate values of channel c's estimate: the plain
// mean Σk r w / Σk, or the self-normalised Σk r w / Σk w; a replicate whose
// denominator is 0 gets 0, as the estimators do.
func (b *Bootstrap) Estimates(c int, selfNormalized bool) []float64 {
	out := make([]float64, len(b.count))
	for j := range out {
		num, den := b.rw[j*b.channels+c].Float64(), b.count[j]
		if selfNormalized {
			den = b.w[j*b.channels+c].Float64()
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
