package ope

import (
	"math"

	"github.com/piopt/piopt/internal/xsum"
)

// The off-policy estimators of this file are weighted means of logged
// rewards. Sample i of a log carries its reward r_i and a weight w_i that
// depends only on the logging policy μ, the target policy π, the context x_i
// and the logged slate s_i:
//
//	PI   (pseudoinverse):  w_i = q_π(x_i)ᵀ Γ_μ(x_i)† 1_{s_i}
//	IPS  (inverse propensity): w_i = π(s_i|x_i) / μ(s_i|x_i)
//
// The plain estimators are (1/n) Σ r_i w_i; the weighted ("self-normalised")
// ones divide by Σ w_i instead of n. E_μ[w] = 1 for both weights (for PI
// because q_μᵀΓ†1_s = 1 for every slate μ can log), which is what makes the
// self-normalised ratio consistent and is used by the intervals of bounds.go.
//
// Everything is computed from a handful of running sums (Sums), so a log of
// any length is evaluated in constant memory and a prefix of a log costs
// nothing extra: snapshot the sums.

// Sums are the sufficient statistics of one weight over a log: enough for
// the plain and the self-normalised estimate, the Bernstein and
// empirical-Bernstein intervals, and the weight diagnostics. The zero value
// is an empty log.
type Sums struct {
	N    int64   // samples
	W    float64 // Σ w
	w2   float64 // Σ w²
	RW   float64 // Σ r·w
	rw2  float64 // Σ r·w²
	r2W2 float64 // Σ r²·w²
	// neg counts samples with w < 0 (PI weights can be negative; IPS
	// ratios never are).
	neg int64
	extremes
}

// extremes are the smallest and largest weights and rewards of a log (0
// when it is empty), kept alike by Sums and ExactSums.
type extremes struct {
	minW, maxW float64
	minR, maxR float64
}

// add records reward r and weight w; first says the log was empty.
func (e *extremes) add(first bool, r, w float64) {
	if first {
		*e = extremes{w, w, r, r}
		return
	}
	e.minW, e.maxW = min(e.minW, w), max(e.maxW, w)
	e.minR, e.maxR = min(e.minR, r), max(e.maxR, r)
}

// merge takes in o, the extremes of another non-empty part of the log.
func (e *extremes) merge(o extremes) {
	e.minW, e.maxW = min(e.minW, o.minW), max(e.maxW, o.maxW)
	e.minR, e.maxR = min(e.minR, o.minR), max(e.maxR, o.maxR)
}

// Add records one sample with reward r and weight w.
func (s *Sums) Add(r, w float64) {
	s.extremes.add(s.N == 0, r, w)
	s.N++
	rw := r * w
	s.W += w
	s.w2 += w * w
	s.RW += rw
	s.rw2 += rw * w
	s.r2W2 += rw * rw
	if w < 0 {
		s.neg++
	}
}

// sumsOf returns the sums of the paired per-sample rewards and weights.
// It panics if the slices differ in length (a programming error).
func sumsOf(rewards, weights []float64) Sums {
	if len(rewards) != len(weights) {
		panic("ope: rewards and weights differ in length")
	}
	var s Sums
	for i, r := range rewards {
		s.Add(r, weights[i])
	}
	return s
}

// Mean returns the plain estimate (1/n) Σ r_i w_i, or 0 for an empty log.
func (s *Sums) Mean() float64 {
	if s.N == 0 {
		return 0
	}
	return s.RW / float64(s.N)
}

// SelfNormalized returns the weighted estimate Σ r_i w_i / Σ w_i. When the
// denominator is 0 (for instance, IPS on a log that never showed the target
// slate) it returns 0 and ok = false, and the caller must warn.
func (s *Sums) SelfNormalized() (v float64, ok bool) {
	if s.W == 0 {
		return 0, false
	}
	return s.RW / s.W, true
}

// meanWeight returns (1/n) Σ w_i, whose expectation is 1; its distance from 1
// is a quick check that μ is the policy that logged the data.
func (s *Sums) meanWeight() float64 {
	if s.N == 0 {
		return 0
	}
	return s.W / float64(s.N)
}

// ESS returns Kish's effective sample size (Σ w)² / Σ w², or 0 when every
// weight is 0.
func (s *Sums) ESS() float64 {
	if s.w2 == 0 {
		return 0
	}
	return s.W * s.W / s.w2
}

// NegativeShare returns the share of samples with a negative weight.
func (s *Sums) NegativeShare() float64 {
	if s.N == 0 {
		return 0
	}
	return float64(s.neg) / float64(s.N)
}

// maxAbsWeight returns max |w_i|.
func (s *Sums) maxAbsWeight() float64 { return max(math.Abs(s.minW), math.Abs(s.maxW)) }

// ExactSums accumulate the Sums of a log exactly (internal/xsum): their
// value does not depend on the order of the samples, so a log read in
// shards (evaluate --shard, then merge) gives the bits of one pass. The
// zero value is an empty log. Sums returns the rounded view every
// estimate is computed from.
type ExactSums struct {
	N                    int64
	neg                  int64
	w, w2, rw, rw2, r2w2 xsum.Sum
	extremes
}

// Add records one sample with reward r and weight w.
func (s *ExactSums) Add(r, w float64) {
	s.extremes.add(s.N == 0, r, w)
	s.N++
	rw := r * w
	s.w.Add(w)
	s.w2.Add(w * w)
	s.rw.Add(rw)
	s.rw2.Add(rw * w)
	s.r2w2.Add(rw * rw)
	if w < 0 {
		s.neg++
	}
}

// Merge adds the samples of o (another part of the log).
func (s *ExactSums) Merge(o *ExactSums) {
	switch {
	case o.N == 0:
		return
	case s.N == 0:
		*s = *o
		return
	}
	s.extremes.merge(o.extremes)
	s.N += o.N
	s.neg += o.neg
	s.w.AddSum(&o.w)
	s.w2.AddSum(&o.w2)
	s.rw.AddSum(&o.rw)
	s.rw2.AddSum(&o.rw2)
	s.r2w2.AddSum(&o.r2w2)
}

// Sums returns the sums, each rounded once to the nearest float64.
func (s *ExactSums) Sums() Sums {
	return Sums{N: s.N, W: s.w.Float64(), w2: s.w2.Float64(), RW: s.rw.Float64(), rw2: s.rw2.Float64(), r2W2: s.r2w2.Float64(),
		neg: s.neg, extremes: s.extremes}
}
