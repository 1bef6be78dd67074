package ope

import "context"

// piEstimator gives the pseudoinverse estimator (pi) and its
// self-normalised version (wpi): the mean of r_i G_i over the log, and
// Σ r_i G_i / Σ G_i, with G_i = q_πᵀΓ†1_{s_i} (Sums has the arithmetic,
// BoundSpec the intervals of Theorem 1).
type piEstimator struct {
	plan    *Plan
	pi, wpi bool
	sums    ExactSums
}

func (e *piEstimator) Names() []string { return onNames([]bool{e.pi, e.wpi}, PI, WPI) }

func (e *piEstimator) Add(s *Sample) { e.sums.Add(s.Reward, s.Weight) }

func (e *piEstimator) Estimate(_ context.Context, sum *Summary) ([]*Estimate, error) {
	p, iv := e.plan, sum.Intervals
	b := BoundSpec{Delta: iv.Delta, Sigma2: sum.Sigma2, WeightLo: p.WeightLo, WeightHi: p.WeightHi,
		RewardLo: iv.RewardLo, RewardHi: iv.RewardHi}
	var out []*Estimate
	s := e.sums.Sums()
	if e.pi {
		out = append(out, weightEstimate(&s, b, sum.Bootstrap, 0, false, p.Sigma2, "PI"))
	}
	if e.wpi {
		out = append(out, weightEstimate(&s, b, sum.Bootstrap, 0, true, p.Sigma2, "PI"))
	}
	return out, nil
}
