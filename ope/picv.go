package ope

import (
	"context"
	"fmt"
	"math"

	"github.com/piopt/piopt/internal/xsum"
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

// cvEvaluator folds a log into pi-cv, PI with the control variate G − 1
// and a cross-fitted coefficient (CVFolds has the arithmetic and the
// reasons).
type cvEvaluator struct {
	plan   *Plan
	folds  *CVFolds
	sigma2 xsum.Sum // σ²_x summed over the samples' contexts
}

// newCV returns an evaluator of pi-cv with k folds (k ≥ 2 cross-fits; 1
// estimates the coefficient in-sample).
func (p *Plan) newCV(k int) (*cvEvaluator, error) {
	if k < 1 {
		return nil, fmt.Errorf("offpolicy: pi-cv needs at least one fold, got %d", k)
	}
	return &cvEvaluator{plan: p, folds: NewCVFolds(k)}, nil
}

// Add records one logged sample: query q, slate s and reward r, in fold
// i mod K by its index i in the log (CVFolds.Add; the Evaluator folds by
// context instead).
func (c *cvEvaluator) Add(q int, s []int32, r float64) {
	c.folds.Add(r, c.plan.Weight(q, s))
	c.sigma2.Add(c.plan.queries[q].sigma2)
}

// add records the j-th sample (from 0) of context q, whose PI weight w
// and context's σ²_x are known.
func (c *cvEvaluator) add(q int, j int64, r, w, sigma2 float64) {
	c.folds.AddContext(q, j, r, w)
	c.sigma2.Add(sigma2)
}

// folds returns the per-fold statistics gathered so far.
func (c *cvEvaluator) Folds() *CVFolds { return c.folds }

// CVDiagnostics are what pi-cv reports besides its estimate: the
// coefficient on the whole log (in-sample, what the folds' coefficients
// estimate) and the folds' own coefficients.
type CVDiagnostics struct {
	Beta      Float   `json:"beta"`
	FoldBetas []Float `json:"fold_betas"`
}

// Estimate returns pi-cv with its empirical-Bernstein interval (on the
// terms G_i(r_i − β_k) + β_k, see CVFolds.empiricalBernstein), the PI
// weights' diagnostics and the coefficients.
func (c *cvEvaluator) Estimate(iv Intervals) (*Estimate, CVDiagnostics) {
	p := c.plan
	t := c.folds.total()
	n := float64(max(t.N, 1))
	b := BoundSpec{Delta: iv.Delta, Sigma2: c.sigma2.Float64() / n, WeightLo: p.WeightLo, WeightHi: p.WeightHi,
		RewardLo: iv.RewardLo, RewardHi: iv.RewardHi}
	betas := c.folds.Betas()
	e := &Estimate{Value: Float(c.folds.Value(betas)), N: t.N}
	eb := c.folds.empiricalBernstein(betas, b)
	e.EmpiricalBernstein = &eb
	e.Weights = &WeightStats{
		Mean: Float(t.meanWeight()), NegativeShare: Float(t.NegativeShare()), ESS: Float(t.ESS()),
		MaxAbs: Float(t.maxAbsWeight()), Sigma2: Float(b.Sigma2), Rho: Float(b.rho()),
		RangeLo: Float(b.WeightLo), RangeHi: Float(b.WeightHi), Sigma2Uniform: Float(p.Sigma2),
	}
	beta, ok := cvBeta(&t)
	if !ok && t.N >= 2 {
		e.Warnings = append(e.Warnings, "the PI weights do not vary on this log: pi-cv is PI")
	}
	diag := CVDiagnostics{Beta: Float(beta)}
	for _, x := range betas {
		diag.FoldBetas = append(diag.FoldBetas, Float(x))
	}
	return e, diag
}

// picvEstimator gives pi-cv through the Estimator interface.
type picvEstimator struct{ c *cvEvaluator }

func (e *picvEstimator) Names() []string { return []string{PICV} }

func (e *picvEstimator) Add(s *Sample) {
	e.c.add(s.Query, s.InContext, s.Reward, s.Weight, e.c.plan.queries[s.Query].sigma2)
}

func (e *picvEstimator) Estimate(_ context.Context, sum *Summary) ([]*Estimate, error) {
	est, diag := e.c.Estimate(sum.Intervals)
	est.ControlVariate = &diag
	return []*Estimate{est}, nil
}

// PI with a control variate (pi-cv). The PI weight G_i = q_πᵀΓ†1_{s_i} has
// E_μ[G] = 1 exactly, so for every constant β
//
//	V̂_β = (1/n) Σ_i [G_i r_i − β (G_i − 1)] = β + (1/n) Σ_i G_i (r_i − β)
//
// is unbiased wherever PI is, and its variance Var(G r) − 2β Cov(G r, G) +
// β² Var(G) is smallest at β* = Cov(G r, G)/Var(G). The second form shows
// what the control variate does: PI applied to the rewards shifted by a
// baseline β, which is added back; it is the doubly-robust estimator
// (dr.go) with a reward model whose every slate is worth β.
//
// β* is unknown and estimated from the log. Estimated on the very samples
// it multiplies, β̂ correlates with their mean weight, and E[β̂ (Ḡ − 1)] ≠ 0
// is a bias of order 1/n. CVFolds removes it by cross-fitting: sample i
// goes to fold i mod K, and fold k's terms use β̂_{−k}, estimated on the
// other K − 1 folds only. β̂_{−k} is then independent of fold k's samples
// (the log is i.i.d.), so E[β̂_{−k}(G_i − 1)] = E[β̂_{−k}]·0 for i in fold k
// and the estimate is exactly unbiased wherever PI is. Each fold needs only
// its own Sums, so the log is still read once in constant memory.
//
// The Evaluator assigns folds by context (AddContext): the j-th impression
// of context q goes to fold (q + j) mod K, so that a log read in shards of
// contexts folds every impression as one pass does. Given the contexts,
// the slates and rewards are independent and E[G − 1 | x] = 0, so
// β̂_{−k}, a function of the other folds' samples, still multiplies terms
// of mean zero: the estimate stays unbiased.

// CVFolds accumulates the PI sums of a log split into K folds: by sample
// index (Add: sample i, 0-based in log order, goes to fold i mod K) or by
// context (AddContext). The sums are exact (ExactSums), so a fold's sums
// do not depend on the order of its samples.
type CVFolds struct {
	folds []ExactSums
	n     int64
}

// NewCVFolds returns the folds of an empty log. k ≥ 2 cross-fits β̂; k = 1
// estimates it in-sample (biased by O(1/n): for tests and comparison). It
// panics if k < 1 (a programming error).
func NewCVFolds(k int) *CVFolds {
	if k < 1 {
		panic("ope: control variate needs at least one fold")
	}
	return &CVFolds{folds: make([]ExactSums, k)}
}

// Add records the next sample of the log, with reward r and PI weight w.
func (c *CVFolds) Add(r, w float64) {
	c.folds[c.n%int64(len(c.folds))].Add(r, w)
	c.n++
}

// AddContext records the j-th sample (from 0) of context q, with reward r
// and PI weight w, in fold (q + j) mod K.
func (c *CVFolds) AddContext(q int, j int64, r, w float64) {
	k := int64(len(c.folds))
	c.folds[(int64(q)%k+j%k)%k].Add(r, w)
	c.n++
}

// total returns the sums of the whole log (those of PI and wPI).
func (c *CVFolds) total() Sums {
	var t ExactSums
	for i := range c.folds {
		t.Merge(&c.folds[i])
	}
	return t.Sums()
}

// cvBeta returns the control-variate coefficient Cov(r w, w)/Var(w) of the
// samples of s (moments with divisor n in both, which cancels). ok is false,
// and β = 0 (the estimate falls back to PI), with fewer than two samples or
// when the weights do not vary (Var(w) ≤ 1e-12·E[w²], e.g. π = μ).
func cvBeta(s *Sums) (beta float64, ok bool) {
	if s.N < 2 {
		return 0, false
	}
	n := float64(s.N)
	// n²·Cov and n²·Var: n Σ r w² − Σ r w Σ w and n Σ w² − (Σ w)².
	cov := n*s.rw2 - s.RW*s.W
	v := n*s.w2 - s.W*s.W
	if !(v > 1e-12*n*s.w2) {
		return 0, false
	}
	return cov / v, true
}

// Betas returns each fold's coefficient: for K ≥ 2, β̂_{−k} estimated on
// every fold but k; for K = 1, the in-sample β̂.
func (c *CVFolds) Betas() []float64 {
	k := len(c.folds)
	out := make([]float64, k)
	if k == 1 {
		s := c.folds[0].Sums()
		out[0], _ = cvBeta(&s)
		return out
	}
	for f := range c.folds {
		var o ExactSums
		for g := range c.folds {
			if g != f {
				o.Merge(&c.folds[g])
			}
		}
		s := o.Sums()
		out[f], _ = cvBeta(&s)
	}
	return out
}

// foldTerms returns Σ Z and Σ Z² over fold f's samples of the terms
// Z_i = G_i r_i − β (G_i − 1).
func foldTerms(s *Sums, beta float64) (sum, sum2 float64) {
	n := float64(s.N)
	sum = s.RW - beta*(s.W-n)
	// Z² = G²r² − 2β(G²r − Gr) + β²(G² − 2G + 1).
	sum2 = s.r2W2 - 2*beta*(s.rw2-s.RW) + beta*beta*(s.w2-2*s.W+n)
	return sum, sum2
}

// Value returns the control-variate estimate (1/n) Σ_k Σ_{i∈k} [G_i r_i −
// β_k (G_i − 1)] with fold k's coefficient betas[k] (Betas, or any fixed
// values: all zero gives PI). 0 for an empty log.
func (c *CVFolds) Value(betas []float64) float64 {
	if c.n == 0 {
		return 0
	}
	var sum float64
	for f := range c.folds {
		fs := c.folds[f].Sums()
		s, _ := foldTerms(&fs, betas[f])
		sum += s
	}
	return sum / float64(c.n)
}

// empiricalBernstein returns Maurer and Pontil's interval (as
// EmpiricalBernstein for PI) applied to the terms Z_i = G_i(r_i − β_k) + β_k,
// intersected with the reward range. Their sample variance is exact, from
// each fold's sums; their range is the hull over folds of β_k plus the range
// of w·(r − β_k) given by b's weight and reward ranges. The coefficients are
// treated as fixed: given the other folds, each fold's terms are i.i.d.
// with that range, and the β̂_{−k} differ from each other by O(1/√n), so
// the pooled terms behave as one i.i.d. sample to that order.
func (c *CVFolds) empiricalBernstein(betas []float64, b BoundSpec) Interval {
	if c.n < 2 {
		return Interval{b.RewardLo, b.RewardHi}
	}
	n := float64(c.n)
	var sum, sum2 float64
	zlo, zhi := math.Inf(1), math.Inf(-1)
	for f := range c.folds {
		fs := c.folds[f].Sums()
		s1, s2 := foldTerms(&fs, betas[f])
		sum += s1
		sum2 += s2
		if c.folds[f].N == 0 {
			continue
		}
		lo, hi := productRange(b.RewardLo-betas[f], b.RewardHi-betas[f], b.WeightLo, b.WeightHi)
		zlo, zhi = min(zlo, lo+betas[f]), max(zhi, hi+betas[f])
	}
	mean := sum / n
	vn := max((sum2-n*mean*mean)/(n-1), 0)
	h := ebHalfWidth(n, vn, zhi-zlo, b.Delta)
	return b.intersect(mean-h, mean+h, mean)
}
