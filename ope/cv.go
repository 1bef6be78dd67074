package ope

import (
	"fmt"
)

// DefaultCVFolds is pi-cv's number of cross-fitting folds: each fold's
// coefficient is estimated on 90% of the log, and ten Sums are all the
// memory it costs.
const DefaultCVFolds = 10

// cvFolds is k, or DefaultCVFolds for 0.
func cvFolds(k int) int {
	if k > 0 {
		return k
	}
	return DefaultCVFolds
}

// CVEvaluator folds a log into pi-cv, PI with the control variate G − 1
// and a cross-fitted coefficient (CVFolds has the arithmetic and the
// reasons).
type CVEvaluator struct {
	plan   *Plan
	folds  *CVFolds
	sigma2 float64 // σ²_x summed over the samples' contexts
}

// NewCV returns an evaluator of pi-cv with k folds (k ≥ 2 cross-fits; 1
// estimates the coefficient in-sample).
func (p *Plan) NewCV(k int) (*CVEvaluator, error) {
	if k < 1 {
		return nil, fmt.Errorf("offpolicy: pi-cv needs at least one fold, got %d", k)
	}
	return &CVEvaluator{plan: p, folds: NewCVFolds(k)}, nil
}

// Add records one logged sample: query q, slate s and reward r.
func (c *CVEvaluator) Add(q int, s []int32, r float64) {
	c.add(r, c.plan.Weight(q, s), c.plan.queries[q].sigma2)
}

// add records a sample whose PI weight w and context's σ²_x are known.
func (c *CVEvaluator) add(r, w, sigma2 float64) {
	c.folds.Add(r, w)
	c.sigma2 += sigma2
}

// Folds returns the per-fold statistics gathered so far.
func (c *CVEvaluator) Folds() *CVFolds { return c.folds }

// CVDiagnostics are what pi-cv reports besides its estimate: the
// coefficient on the whole log (in-sample, what the folds' coefficients
// estimate) and the folds' own coefficients.
type CVDiagnostics struct {
	Beta      Float   `json:"beta"`
	FoldBetas []Float `json:"fold_betas"`
}

// Estimate returns pi-cv with its empirical-Bernstein interval (on the
// terms G_i(r_i − β_k) + β_k, see CVFolds.EmpiricalBernstein), the PI
// weights' diagnostics and the coefficients.
func (c *CVEvaluator) Estimate(iv Intervals) (*Estimate, CVDiagnostics) {
	p := c.plan
	t := c.folds.Total()
	n := float64(max(t.N, 1))
	b := BoundSpec{Delta: iv.Delta, Sigma2: c.sigma2 / n, WeightLo: p.WeightLo, WeightHi: p.WeightHi,
		RewardLo: iv.RewardLo, RewardHi: iv.RewardHi}
	betas := c.folds.Betas()
	e := &Estimate{Value: Float(c.folds.Value(betas)), N: t.N}
	eb := c.folds.EmpiricalBernstein(betas, b)
	e.EmpiricalBernstein = &eb
	e.Weights = &WeightStats{
		Mean: Float(t.MeanWeight()), NegativeShare: Float(t.NegativeShare()), ESS: Float(t.ESS()),
		MaxAbs: Float(t.MaxAbsWeight()), Sigma2: Float(b.Sigma2), Rho: Float(b.Rho()),
		RangeLo: Float(b.WeightLo), RangeHi: Float(b.WeightHi), Sigma2Uniform: Float(p.Sigma2),
	}
	beta, ok := Beta(&t)
	if !ok && t.N >= 2 {
		e.Warnings = append(e.Warnings, "the PI weights do not vary on this log: pi-cv is PI")
	}
	diag := CVDiagnostics{Beta: Float(beta)}
	for _, x := range betas {
		diag.FoldBetas = append(diag.FoldBetas, Float(x))
	}
	return e, diag
}
