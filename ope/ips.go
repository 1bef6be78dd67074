package ope

import (
	"context"
	"fmt"
	"math"

	"github.com/piopt/piopt/internal/xsum"
)

// ipsEstimator gives inverse propensity scoring (ips) and its
// self-normalised version (wips): the slate is one action, weighted by
// π(s|x)/μ(s|x). Its σ² and ρ are E_x[1/μ(s*|x)] and max_x 1/μ(s*|x) for
// a deterministic target; a stochastic one without slate probabilities
// gives no IPS.
type ipsEstimator struct {
	plan      *Plan
	ips, wips bool
	sums      ExactSums
	sigma2    xsum.Sum // Σ_i 1/μ(s*|x_i) over samples whose target slate μ can log
	unknown   bool     // a ratio was NaN
	zero      int64    // samples whose context's target slate μ cannot log
}

func (e *ipsEstimator) Names() []string { return onNames([]bool{e.ips, e.wips}, IPS, WIPS) }

func (e *ipsEstimator) Add(s *Sample) {
	ratio := s.Ratio
	if math.IsNaN(ratio) {
		e.unknown = true
		ratio = 0
	}
	e.sums.Add(s.Reward, ratio)
	if invMu := e.plan.queries[s.Query].invMu; math.IsInf(invMu, 1) {
		e.zero++ // μ(s*|x) = 0: IPS cannot see this context's target slate
	} else {
		e.sigma2.Add(invMu)
	}
}

func (e *ipsEstimator) Estimate(_ context.Context, sum *Summary) ([]*Estimate, error) {
	p, iv := e.plan, sum.Intervals
	n := float64(max(sum.N, 1))
	b := BoundSpec{Delta: iv.Delta, Sigma2: e.sigma2.Float64() / n, WeightLo: 0, WeightHi: p.IPSMax,
		RewardLo: iv.RewardLo, RewardHi: iv.RewardHi}
	var out []*Estimate
	s := e.sums.Sums()
	for _, selfNorm := range []bool{false, true} {
		if (!selfNorm && !e.ips) || (selfNorm && !e.wips) {
			continue
		}
		if e.unknown {
			out = append(out, &Estimate{Value: Float(math.NaN()), N: e.sums.N,
				Warnings: []string{"IPS needs the target's slate probabilities, which this stochastic target does not give"}})
			continue
		}
		est := weightEstimate(&s, b, sum.Bootstrap, 1, selfNorm, p.IPSSigma2, "IPS")
		if e.zero > 0 {
			est.Warnings = append(est.Warnings, fmt.Sprintf("the target's slate has probability 0 under the logging policy of the contexts of %d of %d impressions: IPS is biased (their value counts as 0)", e.zero, e.sums.N))
		}
		out = append(out, est)
	}
	return out, nil
}
