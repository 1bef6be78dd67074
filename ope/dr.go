package ope

import (
	"context"
	"fmt"
	"math"

	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/parallel"
)

// RewardModel is a slot-additive reward model: per query x, φ̄_x(j, a), the
// predicted contribution of candidate a in slot j+1, so that the model's
// value of slate s is 1_sᵀφ̄_x. dr and wdr use it as their baseline.
type RewardModel interface {
	// Phi returns query q's ℓ_x·m_x values, index j·m_x + a (the package's
	// ℓm convention, as the PI weights Γ†q_π). The caller does not modify
	// them.
	Phi(q int) []float64
}

// PhiTable is a RewardModel held in memory, one vector per query.
type PhiTable [][]float64

// Phi implements RewardModel.
func (t PhiTable) Phi(q int) []float64 { return t[q] }

// ConstantModel returns the model whose every slate of every query is worth
// v: φ̄_x(j, a) = v/ℓ_x. dr with it is pi-cv with the fixed coefficient v.
func ConstantModel(c *impute.Candidates, slots int, v float64) PhiTable {
	t := make(PhiTable, c.NumQueries())
	for q := range t {
		l, m := c.Slots(q, slots), c.Size(q)
		t[q] = make([]float64, l*m)
		for i := range t[q] {
			t[q][i] = v / float64(l)
		}
	}
	return t
}

// drEvaluator folds a log into dr and wdr for a plan's target and a fixed
// reward model (drSums has the arithmetic). Memory is O(queries).
type drEvaluator struct {
	plan  *Plan
	model RewardModel
	base  []float64 // per query: q_πᵀφ̄_x, the model's value of the target
	sums  drSums
	// σ²_x summed over the samples' contexts, as Evaluator does for PI.
	sigma2 float64
	// ModelLo and ModelHi are the exact extremes of 1_sᵀφ̄_x over every
	// query and every slate μ can log: the range the intervals assume.
	ModelLo, ModelHi float64
}

// newDR returns an evaluator of dr and wdr with the reward model φ̄. It
// computes, per query, the model's value of the target and the exact range
// of its slate values (two assignment problems, as Prepare does for ρ).
func (p *Plan) newDR(ctx context.Context, model RewardModel) (*drEvaluator, error) {
	nq := len(p.queries)
	d := &drEvaluator{plan: p, model: model, base: make([]float64, nq)}
	lo, hi := make([]float64, nq), make([]float64, nq)
	err := parallel.For(ctx, nq, p.Threads, newPrepareScratch, func(sc *prepareScratch, q int) error {
		qp := &p.queries[q]
		phi := model.Phi(q)
		if len(phi) != qp.l*qp.m {
			return fmt.Errorf("offpolicy: reward model of query %q has %d values, want ℓ·m = %d·%d", p.Candidates.Name(q), len(phi), qp.l, qp.m)
		}
		d.base[q] = p.modelValue(q, phi)
		lo[q], hi[q] = slateSumRange(qp, phi, &sc.solver, &sc.buf)
		return nil
	})
	if err != nil {
		return nil, err
	}
	d.ModelLo, d.ModelHi = math.Inf(1), math.Inf(-1)
	for q := range lo {
		d.ModelLo, d.ModelHi = min(d.ModelLo, lo[q]), max(d.ModelHi, hi[q])
	}
	return d, nil
}

// modelValue is the reward model's value of query q's target, q_πᵀφ̄_x.
func (p *Plan) modelValue(q int, phi []float64) float64 {
	qp := &p.queries[q]
	if qp.star != nil {
		return seenSum(phi, qp.m, qp.star)
	}
	v := 0.0
	for i, x := range p.Target.marginals(q) {
		v += x * phi[i]
	}
	return v
}

// empty returns an evaluator of the same model that has seen no sample:
// the per-query values and ranges are shared, read-only.
func (d *drEvaluator) empty() *drEvaluator {
	e := *d
	e.sums, e.sigma2 = drSums{}, 0
	return &e
}

// slateSumRange returns min and max of vᵀ1_s over the slates query qp's μ
// can log: two assignment problems when its support is full, else a scan of
// the listed slates (the same computation as Prepare's weight range).
func slateSumRange(qp *queryPlan, v []float64, solver *impute.SlateSolver, scratch *[]float64) (lo, hi float64) {
	if !qp.dist.FullSupport() {
		lo, hi = math.Inf(1), math.Inf(-1)
		qp.dist.EachSupportSlate(func(s []int32) {
			x := impute.SlateSum(v, qp.m, s)
			lo, hi = min(lo, x), max(hi, x)
		})
		return lo, hi
	}
	*scratch = grow(*scratch, qp.m*qp.l)
	sc := *scratch
	copy(sc, v)
	slate := make([]int32, qp.l)
	hi = solver.Exact(sc, qp.m, slate)
	for i := range sc {
		sc[i] = -sc[i]
	}
	return -solver.Exact(sc, qp.m, slate), hi
}

// Add records one logged sample: query q, slate s (candidate indices) and
// reward r.
func (d *drEvaluator) Add(q int, s []int32, r float64) {
	qp := &d.plan.queries[q]
	c := impute.SlateSum(d.model.Phi(q), qp.m, s)
	d.sums.Add(r, d.plan.Weight(q, s), d.base[q], c)
	d.sigma2 += qp.sigma2
}

// Sums returns the statistics gathered so far.
func (d *drEvaluator) Sums() *drSums { return &d.sums }

// Spec returns the intervals' specification: δ and the reward range of iv,
// the plan's PI weight range and the model's range.
func (d *drEvaluator) Spec(iv Intervals) drSpec {
	p := d.plan
	n := float64(max(d.sums.Terms.N, 1))
	return drSpec{
		Bound: BoundSpec{Delta: iv.Delta, Sigma2: d.sigma2 / n, WeightLo: p.WeightLo, WeightHi: p.WeightHi,
			RewardLo: iv.RewardLo, RewardHi: iv.RewardHi},
		ModelLo: d.ModelLo, ModelHi: d.ModelHi,
	}
}

// Estimates returns dr and wdr with their empirical-Bernstein intervals and
// the PI weights' diagnostics (the Bernstein interval of Theorem 1 is PI's
// and is not given).
func (d *drEvaluator) Estimates(iv Intervals) (dr, wdr *Estimate) {
	spec := d.Spec(iv)
	s := &d.sums
	dr = &Estimate{Value: Float(s.Value()), N: s.Terms.N, Weights: d.weightStats(spec.Bound)}
	ebd := s.EmpiricalBernstein(spec)
	dr.EmpiricalBernstein = &ebd
	v, ok := s.SelfNormalized()
	wdr = &Estimate{Value: Float(v), N: s.Terms.N, Weights: d.weightStats(spec.Bound)}
	ebw := s.EmpiricalBernsteinSelfNormalized(spec)
	wdr.EmpiricalBernstein = &ebw
	if !ok {
		wdr.Warnings = append(wdr.Warnings, "Σ PI weights is 0: wdr's correction term set to 0")
	}
	return dr, wdr
}

func (d *drEvaluator) weightStats(b BoundSpec) *WeightStats {
	cs := d.sums.Corr.Sums()
	w := &cs // the residuals weighted by G: its weights are PI's
	return &WeightStats{
		Mean: Float(w.meanWeight()), NegativeShare: Float(w.NegativeShare()), ESS: Float(w.ESS()),
		MaxAbs: Float(w.maxAbsWeight()), Sigma2: Float(b.Sigma2), Rho: Float(b.rho()),
		RangeLo: Float(b.WeightLo), RangeHi: Float(b.WeightHi), Sigma2Uniform: Float(d.plan.Sigma2),
	}
}

// drEstimator gives dr and wdr: it keeps the log's samples and, at the
// end, evaluates them with the Baseline's fixed model or cross-fits one.
type drEstimator struct {
	plan     *Plan
	baseline Baseline
	dr, wdr  bool
	samples  *Samples
}

func (e *drEstimator) Names() []string { return onNames([]bool{e.dr, e.wdr}, DR, WDR) }

func (e *drEstimator) Add(s *Sample) { e.samples.Add(s.Query, s.Slate, s.Reward) }

func (e *drEstimator) Estimate(ctx context.Context, sum *Summary) ([]*Estimate, error) {
	b, err := e.plan.PrepareBaseline(ctx, e.baseline)
	if err != nil {
		return nil, err
	}
	n := e.samples.len()
	d, info, reason, err := e.plan.crossFitDR(ctx, b, e.samples, n)
	if err != nil {
		return nil, err
	}
	var dr, wdr *Estimate
	if d == nil {
		nan := func() *Estimate {
			return &Estimate{Value: Float(math.NaN()), N: int64(n), Warnings: []string{reason}}
		}
		dr, wdr = nan(), nan()
	} else {
		dr, wdr = d.Estimates(sum.Intervals)
		dr.Baseline, wdr.Baseline = info, info
	}
	var out []*Estimate
	if e.dr {
		out = append(out, dr)
	}
	if e.wdr {
		out = append(out, wdr)
	}
	return out, nil
}

// Doubly-robust PI (dr, wdr). A slot-additive reward model φ̄_x(j, a)
// predicts the value of every slate, 1_sᵀφ̄_x; PI is applied to what the
// model gets wrong and the model's value of the target is added:
//
//	dr   V̂ = (1/n) Σ_i [b_i + G_i (r_i − c_i)]
//	wdr  V̂ = (1/n) Σ_i b_i + Σ_i G_i (r_i − c_i) / Σ_i G_i
//
// with G_i the PI weight q_πᵀΓ†1_{s_i}, b_i = q_πᵀφ̄_{x_i} the model's value
// of the target and c_i = 1_{s_i}ᵀφ̄_{x_i} its value of the logged slate.
// wdr self-normalises the correction term exactly as wPI self-normalises
// PI (Σ r w / Σ w): with φ̄ ≡ 0, dr is PI and wdr is wPI.
//
// E_μ[G·1_sᵀφ̄] = q_πᵀΓ†Γφ̄ = q_πᵀφ̄ whenever PI is unbiased (q_π in the
// range of Γ), so under an additive reward dr is unbiased for every fixed
// φ̄, and its terms are b + G(r − c): the closer φ̄ is to the true φ, the
// smaller the residual r − c that the weights multiply. With φ̄(j, a) = β/ℓ
// every slate is worth β and dr is the control-variate estimate with
// coefficient β (cv.go).
//
// The model must be fixed before the log is read (fitted on other data or
// cross-fitted): fitted on the same samples, φ̄ correlates with the
// residuals and dr loses its unbiasedness.

// drSums are the sufficient statistics of dr and wdr over a log. The zero
// value is an empty log.
type drSums struct {
	// Terms holds Z_i = b_i + G_i(r_i − c_i) with weight 1: dr is its mean,
	// and its empirical-Bernstein interval is dr's.
	Terms ExactSums
	// Base holds b_i with weight 1; Corr holds the residual r_i − c_i with
	// weight G_i. wdr is Base's mean plus Corr's self-normalised mean.
	Base, Corr ExactSums
}

// Add records one sample: reward r, PI weight w, the model's value b of
// the target's slate and its value c of the logged slate.
func (d *drSums) Add(r, w, b, c float64) {
	e := r - c
	d.Terms.Add(b+w*e, 1)
	d.Base.Add(b, 1)
	d.Corr.Add(e, w)
}

// Merge adds the statistics of another log to d: a cross-fitted dr is the
// merge of its folds' sums, each computed with its own fold's model.
func (d *drSums) Merge(o *drSums) {
	d.Terms.Merge(&o.Terms)
	d.Base.Merge(&o.Base)
	d.Corr.Merge(&o.Corr)
}

// Value returns dr, or 0 for an empty log.
func (d *drSums) Value() float64 {
	t := d.Terms.Sums()
	return t.Mean()
}

// SelfNormalized returns wdr. When Σ G_i = 0 the correction is dropped and
// ok is false (the caller must warn), as wPI does.
func (d *drSums) SelfNormalized() (v float64, ok bool) {
	c, b := d.Corr.Sums(), d.Base.Sums()
	corr, ok := c.SelfNormalized()
	return b.Mean() + corr, ok
}

// drSpec is what the intervals of dr and wdr know besides the log: the
// confidence level, the PI weights' range, the rewards' range (Bound;
// Sigma2 is not used) and the range [ModelLo, ModelHi] of the model's value
// 1_sᵀφ̄_x over every context and every slate μ can log (which also holds
// q_πᵀφ̄_x, a mean of slate values).
type drSpec struct {
	Bound            BoundSpec
	ModelLo, ModelHi float64
}

// residualRange is the range of r − c.
func (p drSpec) residualRange() (lo, hi float64) {
	return p.Bound.RewardLo - p.ModelHi, p.Bound.RewardHi - p.ModelLo
}

// EmpiricalBernstein returns Maurer and Pontil's interval for dr: the
// terms Z_i are i.i.d. with range [ModelLo, ModelHi] + w·[residual range],
// so empiricalBernstein applies to their Sums as is; the result is
// intersected with the reward range, which holds V.
func (d *drSums) EmpiricalBernstein(p drSpec) Interval {
	b := p.Bound
	elo, ehi := p.residualRange()
	glo, ghi := productRange(elo, ehi, b.WeightLo, b.WeightHi)
	zb := BoundSpec{Delta: b.Delta, WeightLo: 1, WeightHi: 1, RewardLo: p.ModelLo + glo, RewardHi: p.ModelHi + ghi}
	t := d.Terms.Sums()
	iv := empiricalBernstein(&t, zb)
	return b.intersect(iv.Lo, iv.Hi, d.Value())
}

// EmpiricalBernsteinSelfNormalized returns an interval for wdr by a union
// bound: each of its two parts gets half of δ, the model's mean value of
// the target (empiricalBernstein on the b_i, range [ModelLo, ModelHi]) and
// the self-normalised correction (empiricalBernsteinSelfNormalized on the
// residuals weighted by G, whose target is E[G(r − c)]/E[G] = E[G(r − c)]).
// The expectations of the two parts add up to V; so do the intervals' ends.
func (d *drSums) EmpiricalBernsteinSelfNormalized(p drSpec) Interval {
	b := p.Bound
	v, _ := d.SelfNormalized()
	if d.Terms.N < 2 {
		return Interval{b.RewardLo, b.RewardHi}
	}
	half := b.Delta / 2
	bs, cs := d.Base.Sums(), d.Corr.Sums()
	base := empiricalBernstein(&bs, BoundSpec{Delta: half, WeightLo: 1, WeightHi: 1, RewardLo: p.ModelLo, RewardHi: p.ModelHi})
	elo, ehi := p.residualRange()
	corr := empiricalBernsteinSelfNormalized(&cs, BoundSpec{Delta: half, WeightLo: b.WeightLo, WeightHi: b.WeightHi, RewardLo: elo, RewardHi: ehi})
	return b.intersect(base.Lo+corr.Lo, base.Hi+corr.Hi, v)
}
