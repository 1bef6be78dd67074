package ope

import (
	"fmt"
	"math"
)

// Interval is a confidence interval [Lo, Hi] for a policy value.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// width returns Hi − Lo.
func (iv Interval) width() float64 { return iv.Hi - iv.Lo }

// contains reports whether v lies in the interval.
func (iv Interval) contains(v float64) bool { return iv.Lo <= v && v <= iv.Hi }

// BoundSpec holds what the deviation bounds know besides the log's sums:
// the confidence level, the variance and range terms of the weight, and the
// range of the rewards. For PI, with q_π the target's expected slate
// indicator and Γ† the logging policy's pseudoinverse,
//
//	σ² = E_x[q_πᵀ Γ† q_π],   ρ = sup_x sup_{s: μ(s|x)>0} |q_πᵀ Γ† 1_s|
//
// (paper, Eq. 5). σ² bounds E_μ[w²] and [WeightLo, WeightHi] is the exact
// range of w over contexts and loggable slates, so ρ = max(|WeightLo|,
// |WeightHi|). For IPS the same bound holds with σ² = E_x[Σ_s π(s|x)²/μ(s|x)]
// and ρ = sup π(s|x)/μ(s|x) (IPS is PI with every slate its own action).
type BoundSpec struct {
	Delta              float64 // the intervals hold with probability ≥ 1 − Delta
	Sigma2             float64 // σ²
	WeightLo, WeightHi float64 // range of the weight; ρ = max(|WeightLo|, |WeightHi|)
	RewardLo, RewardHi float64 // every reward lies in [RewardLo, RewardHi]; NDCG and ERR: [0, 1]
}

// rho returns ρ = max(|WeightLo|, |WeightHi|).
func (b BoundSpec) rho() float64 { return max(math.Abs(b.WeightLo), math.Abs(b.WeightHi)) }

// validate reports an unusable specification.
func (b BoundSpec) validate() error {
	switch {
	case !(b.Delta > 0 && b.Delta < 1):
		return fmt.Errorf("ope: delta %g not in (0, 1)", b.Delta)
	case !(b.Sigma2 >= 0) || math.IsInf(b.Sigma2, 0):
		return fmt.Errorf("ope: sigma² %g is not a finite non-negative number", b.Sigma2)
	case !(b.WeightLo <= b.WeightHi):
		return fmt.Errorf("ope: weight range [%g, %g] is empty", b.WeightLo, b.WeightHi)
	case !(b.RewardLo <= b.RewardHi):
		return fmt.Errorf("ope: reward range [%g, %g] is empty", b.RewardLo, b.RewardHi)
	}
	return nil
}

// rewardScale is c with every reward in [−c, c].
func (b BoundSpec) rewardScale() float64 { return max(math.Abs(b.RewardLo), math.Abs(b.RewardHi)) }

func (b BoundSpec) clip(v float64) float64 { return min(max(v, b.RewardLo), b.RewardHi) }

// bernsteinHalfWidth returns the deviation bound of the paper's Theorem 1:
// with probability at least 1 − δ, for n samples with rewards in [−1, 1],
//
//	|V̂_PI − V| ≤ sqrt(2σ² ln(2/δ)/n) + 2(ρ+1) ln(2/δ)/(3n).
func bernsteinHalfWidth(n int64, sigma2, rho, delta float64) float64 {
	if n <= 0 {
		return math.Inf(1)
	}
	l := math.Log(2 / delta)
	fn := float64(n)
	return math.Sqrt(2*sigma2*l/fn) + 2*(rho+1)*l/(3*fn)
}

// Bernstein returns the paper's Theorem 1 interval around the plain estimate
// (1/n) Σ r_i w_i: the estimate ± c·bernsteinHalfWidth, with c =
// max(|RewardLo|, |RewardHi|) (the theorem is stated for c = 1 and scales
// linearly), intersected with the reward range, which contains V.
func Bernstein(s *Sums, b BoundSpec) Interval {
	v := s.Mean()
	h := b.rewardScale() * bernsteinHalfWidth(s.N, b.Sigma2, b.rho(), b.Delta)
	return b.intersect(v-h, v+h, v)
}

// bernsteinSelfNormalized returns a Bernstein interval for the
// self-normalised estimate Σ r_i w_i / Σ w_i. Because E_μ[w] = 1 and
// E_μ[r w] = V, the terms Z_i = (V − r_i) w_i have mean 0, second moment at
// most R²σ² and |Z_i| ≤ Rρ, with R = RewardHi − RewardLo. Bernstein's
// inequality then gives, with probability ≥ 1 − δ,
//
//	|V·W̄ − Ā| ≤ ε = R·sqrt(2σ² ln(2/δ)/n) + 2Rρ ln(2/δ)/(3n),
//
// W̄ = (1/n)Σ w_i, Ā = (1/n)Σ r_i w_i; the interval is the set of V in the
// reward range that satisfy it, which for W̄ > 0 is the estimate ± ε/W̄.
func bernsteinSelfNormalized(s *Sums, b BoundSpec) Interval {
	v, _ := s.SelfNormalized()
	if s.N == 0 {
		return Interval{b.RewardLo, b.RewardHi}
	}
	l := math.Log(2 / b.Delta)
	n := float64(s.N)
	r := b.RewardHi - b.RewardLo
	eps := r*math.Sqrt(2*b.Sigma2*l/n) + 2*r*b.rho()*l/(3*n)
	wbar, abar := s.W/n, s.RW/n
	switch {
	case wbar > 0:
		return b.intersect((abar-eps)/wbar, (abar+eps)/wbar, v)
	case wbar < 0:
		return b.intersect((abar+eps)/wbar, (abar-eps)/wbar, v)
	case math.Abs(abar) <= eps:
		return Interval{b.RewardLo, b.RewardHi}
	}
	return b.intersect(1, 0, v)
}

// intersect returns [lo, hi] ∩ [RewardLo, RewardHi]. An empty intersection
// (the data contradict the assumptions, an event of probability ≤ δ) is
// reported as the single point clip(v).
func (b BoundSpec) intersect(lo, hi, v float64) Interval {
	lo, hi = max(lo, b.RewardLo), min(hi, b.RewardHi)
	if lo > hi {
		c := b.clip(v)
		return Interval{c, c}
	}
	return Interval{lo, hi}
}

// productRange returns the range of x·y over x ∈ [a, b], y ∈ [c, d].
func productRange(a, b, c, d float64) (lo, hi float64) {
	p := [4]float64{a * c, a * d, b * c, b * d}
	lo, hi = p[0], p[0]
	for _, x := range p[1:] {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

// empiricalBernstein returns the two-sided empirical-Bernstein interval of
// Maurer and Pontil (2009, Theorem 4) around the plain estimate: for i.i.d.
// terms X_i = r_i w_i in an interval of length L_X, with V_n their unbiased
// sample variance, each side holds with probability ≥ 1 − δ/2 at
//
//	sqrt(2 V_n ln(4/δ)/n) + 7 L_X ln(4/δ)/(3(n−1)).
//
// L_X comes from the reward and weight ranges of b. With fewer than two
// samples the interval is the whole reward range.
func empiricalBernstein(s *Sums, b BoundSpec) Interval {
	if s.N < 2 {
		return Interval{b.RewardLo, b.RewardHi}
	}
	n := float64(s.N)
	mean := s.RW / n
	vn := max((s.r2W2-n*mean*mean)/(n-1), 0)
	lo, hi := productRange(b.RewardLo, b.RewardHi, b.WeightLo, b.WeightHi)
	h := ebHalfWidth(n, vn, hi-lo, b.Delta)
	return b.intersect(mean-h, mean+h, mean)
}

func ebHalfWidth(n, variance, length, delta float64) float64 {
	l := math.Log(4 / delta)
	return math.Sqrt(2*variance*l/n) + 7*length*l/(3*(n-1))
}

// empiricalBernsteinSelfNormalized returns an empirical-Bernstein interval
// for the self-normalised estimate: the set of V in the reward range for
// which the mean-zero terms Z_i(V) = (V − r_i) w_i pass the two-sided test
// of empiricalBernstein,
//
//	|V·W̄ − Ā| ≤ sqrt(2 V_n(V) ln(4/δ)/n) + 7 L_Z(V) ln(4/δ)/(3(n−1)),
//
// where V_n(V) is a quadratic in V computed from the sums and L_Z(V) is the
// length of the range of (V − r)·w. The set is found by a scan of the reward
// range on a grid of 4096 steps refined by bisection at its ends; the
// interval returned is its hull.
func empiricalBernsteinSelfNormalized(s *Sums, b BoundSpec) Interval {
	if s.N < 2 {
		return Interval{b.RewardLo, b.RewardHi}
	}
	n := float64(s.N)
	wbar, abar := s.W/n, s.RW/n
	inside := func(v float64) bool {
		// Σ Z² = v²Σw² − 2vΣrw² + Σr²w², Σ Z = n(v·W̄ − Ā).
		mz := v*wbar - abar
		sz2 := v*v*s.w2 - 2*v*s.rw2 + s.r2W2
		vn := max((sz2-n*mz*mz)/(n-1), 0)
		lo, hi := productRange(v-b.RewardHi, v-b.RewardLo, b.WeightLo, b.WeightHi)
		return math.Abs(mz) <= ebHalfWidth(n, vn, hi-lo, b.Delta)
	}
	const steps = 4096
	a, c := b.RewardLo, b.RewardHi
	if a == c {
		return Interval{a, c}
	}
	at := func(k int) float64 { return a + (c-a)*float64(k)/steps }
	first, last := -1, -1
	for k := 0; k <= steps; k++ {
		if inside(at(k)) {
			if first < 0 {
				first = k
			}
			last = k
		}
	}
	v, _ := s.SelfNormalized()
	if first < 0 {
		// The grid may step over a set narrower than one step around v.
		if inside(v) && b.RewardLo <= v && v <= b.RewardHi {
			return Interval{v, v}
		}
		cv := b.clip(v)
		return Interval{cv, cv}
	}
	lo, hi := at(first), at(last)
	if first > 0 {
		lo = bisect(inside, at(first-1), lo)
	}
	if last < steps {
		hi = bisect(inside, at(last+1), hi)
	}
	if b.RewardLo <= v && v <= b.RewardHi {
		lo, hi = min(lo, v), max(hi, v)
	}
	return Interval{lo, hi}
}

// bisect narrows [out, in] (inside(out) false, inside(in) true) to the
// boundary and returns the inner end, so the result still passes the test.
func bisect(inside func(float64) bool, out, in float64) float64 {
	for range 60 {
		mid := (out + in) / 2
		if mid == out || mid == in {
			break
		}
		if inside(mid) {
			in = mid
		} else {
			out = mid
		}
	}
	return in
}
