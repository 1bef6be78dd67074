package ope

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Float is a float64 that encodes NaN and ±Inf as JSON null.
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, x, 'g', -1, 64), nil
}

// UnmarshalJSON implements json.Unmarshaler: null reads as NaN.
func (f *Float) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = Float(math.NaN())
		return nil
	}
	return json.Unmarshal(b, (*float64)(f))
}

// Estimate is one estimator's result: its value, its intervals at the
// chosen δ and its diagnostics.
type Estimate struct {
	Value Float `json:"value"`
	// N is the number of samples the value is computed from (for DM the
	// evaluation part of the log).
	N int64 `json:"n"`
	// Bernstein is the paper's Theorem 1 interval (PI, IPS), or its
	// self-normalised counterpart (wPI, wIPS), with σ² and ρ of Weights.
	Bernstein *Interval `json:"bernstein,omitempty"`
	// EmpiricalBernstein is Maurer and Pontil's interval (2009, Thm. 4).
	EmpiricalBernstein *Interval `json:"empirical_bernstein,omitempty"`
	// Bootstrap is the seeded Poisson-bootstrap percentile interval. All
	// intervals are intersected with the reward range, which holds V.
	Bootstrap *Interval    `json:"bootstrap,omitempty"`
	Weights   *WeightStats `json:"weights,omitempty"`
	// DM only: the rows the model was trained on and the reward range the
	// clipped variant clips to.
	TrainRows int64     `json:"train_rows,omitempty"`
	Clip      *Interval `json:"clip,omitempty"`
	// pi-cv only: the control variate's coefficients.
	ControlVariate *CVDiagnostics `json:"control_variate,omitempty"`
	// dr and wdr only: their reward model.
	Baseline *BaselineInfo `json:"baseline,omitempty"`
	// PI-family estimates (pi, wpi, pi-cv, dr, wdr): how much of the
	// target the log cannot see (all zeros when it sees all of it).
	Coverage *Coverage `json:"coverage,omitempty"`
	Warnings []string  `json:"warnings,omitempty"`
}

// OutsideRange reports whether the estimate's value lies outside the reward
// range [lo, hi] while it has intervals, which are intersected with that
// range: the value and its intervals then disagree. Neither is changed (the
// unclipped value is what the estimator computed); the report flags it.
func (e *Estimate) OutsideRange(lo, hi float64) bool {
	v := float64(e.Value)
	return (v < lo || v > hi) && (e.Bernstein != nil || e.EmpiricalBernstein != nil || e.Bootstrap != nil)
}

// warnOutsideRange adds to e, when its value is outside [lo, hi], the
// warning that its intervals are clipped to the range and it is not.
func (e *Estimate) warnOutsideRange(lo, hi float64) {
	if e.OutsideRange(lo, hi) {
		e.Warnings = append(e.Warnings, fmt.Sprintf("the estimate %s is outside the reward range [%g, %g]: its intervals are clipped to the range, the estimate is not",
			formatNum(float64(e.Value)), lo, hi))
	}
}

// WeightStats describe the weights of PI or IPS over a log.
type WeightStats struct {
	Mean          Float `json:"mean"`           // (1/n) Σ w, expectation 1
	NegativeShare Float `json:"negative_share"` // share of samples with w < 0
	ESS           Float `json:"ess"`            // (Σ w)² / Σ w²
	MaxAbs        Float `json:"max_abs"`        // max |w| over the log
	// sigma2 and Rho are the variance and range terms of Theorem 1 used by
	// the Bernstein intervals; RangeLo and RangeHi the exact range of the
	// weight over contexts and loggable slates (ρ = max |.|).
	Sigma2  Float `json:"sigma2"`
	Rho     Float `json:"rho"`
	RangeLo Float `json:"range_lo"`
	RangeHi Float `json:"range_hi"`
	// Sigma2Uniform is σ² with contexts uniform over the dataset's queries
	// (Sigma2 itself averages over the log's contexts).
	Sigma2Uniform Float `json:"sigma2_uniform_contexts"`
}

// Intervals says which intervals to compute and at which level.
type Intervals struct {
	Delta float64 // every interval holds with probability ≥ 1 − Delta
	// Bootstrap is the number of Poisson-bootstrap replicates (0: none),
	// drawn from Seed.
	Bootstrap int
	Seed      uint64
	// RewardLo and RewardHi bound every reward (NDCG and ERR: 0 and 1).
	RewardLo, RewardHi float64
}

// weightEstimate fills the estimate of a plain or self-normalised weighted
// mean with its intervals and diagnostics.
func weightEstimate(s *Sums, b BoundSpec, boot *Bootstrap, channel int, selfNorm bool, sigma2Uniform float64, label string) *Estimate {
	e := &Estimate{N: s.N}
	// The deviation bounds need σ² and the weight range; without them
	// (IPS of a stochastic target) only the bootstrap is given.
	bounds := b.validate() == nil
	if !bounds {
		e.Warnings = append(e.Warnings, fmt.Sprintf("no exact σ² and range for the %s weights of this target: Bernstein intervals left out", label))
	}
	if selfNorm {
		v, ok := s.SelfNormalized()
		e.Value = Float(v)
		if !ok {
			e.Warnings = append(e.Warnings, fmt.Sprintf("Σ %s weights is 0 (no logged slate carries weight for the target): estimate set to 0", label))
		}
		if bounds {
			iv := bernsteinSelfNormalized(s, b)
			e.Bernstein = &iv
			eb := empiricalBernsteinSelfNormalized(s, b)
			e.EmpiricalBernstein = &eb
		}
	} else {
		e.Value = Float(s.Mean())
		if bounds {
			iv := Bernstein(s, b)
			e.Bernstein = &iv
			eb := empiricalBernstein(s, b)
			e.EmpiricalBernstein = &eb
		}
	}
	if boot != nil {
		// V lies in the reward range, so the percentile interval may be
		// intersected with it; when all replicates fall outside, the
		// interval is the range's end nearest to them.
		iv := boot.Interval(channel, selfNorm, b.Delta)
		iv = b.intersect(iv.Lo, iv.Hi, iv.Lo)
		e.Bootstrap = &iv
	}
	e.Weights = &WeightStats{
		Mean: Float(s.meanWeight()), NegativeShare: Float(s.NegativeShare()), ESS: Float(s.ESS()),
		MaxAbs: Float(s.maxAbsWeight()), Sigma2: Float(b.Sigma2), Rho: Float(b.rho()),
		RangeLo: Float(b.WeightLo), RangeHi: Float(b.WeightHi), Sigma2Uniform: Float(sigma2Uniform),
	}
	if s.N > 0 && bounds {
		// E_μ[w] = 1 and Var(w) ≤ E[w²] = σ²: a mean weight more than
		// 5 standard deviations from 1 means the log was not drawn from μ.
		if d := math.Abs(s.meanWeight() - 1); d > 5*math.Sqrt(b.Sigma2/float64(s.N))+1e-9 {
			e.Warnings = append(e.Warnings, fmt.Sprintf("mean %s weight %.4g is %.1f standard deviations from its expectation 1: %s",
				label, s.meanWeight(), d/math.Sqrt(b.Sigma2/float64(s.N)), drawnFromWarning))
		}
	}
	if s.N > 0 && (s.minR < b.RewardLo || s.maxR > b.RewardHi) {
		e.Warnings = append(e.Warnings, fmt.Sprintf("rewards span [%g, %g], outside the assumed range [%g, %g]: the intervals do not hold (give the range with --reward-range LO,HI)",
			s.minR, s.maxR, b.RewardLo, b.RewardHi))
	}
	return e
}

// drawnFromWarning ends the warning that the weights' mean is far from its
// expectation; it is dropped where the coverage is short (the expectation
// is 1 only for targets Γ† fully sees).
const drawnFromWarning = "was the log drawn from this logging policy?"

// formatNum prints an estimate in a warning: 4 significant digits, "-" for
// NaN.
func formatNum(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.4g", x)
}
