package ope

import (
	"context"
	"fmt"
	"math"

	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/parallel"
)

// Names of the estimators of issue 13, as their JSON keys will be.
const (
	PICV = "pi-cv"
	DR   = "dr"
	WDR  = "wdr"
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

// DREvaluator folds a log into dr and wdr for a plan's target and a fixed
// reward model (DRSums has the arithmetic). Memory is O(queries).
type DREvaluator struct {
	plan  *Plan
	model RewardModel
	base  []float64 // per query: q_πᵀφ̄_x, the model's value of the target
	sums  DRSums
	// σ²_x summed over the samples' contexts, as Evaluator does for PI.
	sigma2 float64
	// ModelLo and ModelHi are the exact extremes of 1_sᵀφ̄_x over every
	// query and every slate μ can log: the range the intervals assume.
	ModelLo, ModelHi float64
}

// NewDR returns an evaluator of dr and wdr with the reward model φ̄. It
// computes, per query, the model's value of the target and the exact range
// of its slate values (two assignment problems, as Prepare does for ρ).
func (p *Plan) NewDR(ctx context.Context, model RewardModel) (*DREvaluator, error) {
	nq := len(p.queries)
	d := &DREvaluator{plan: p, model: model, base: make([]float64, nq)}
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
		return impute.SlateSum(phi, qp.m, qp.star)
	}
	v := 0.0
	for i, x := range p.Target.Marginals(q) {
		v += x * phi[i]
	}
	return v
}

// empty returns an evaluator of the same model that has seen no sample:
// the per-query values and ranges are shared, read-only.
func (d *DREvaluator) empty() *DREvaluator {
	e := *d
	e.sums, e.sigma2 = DRSums{}, 0
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
func (d *DREvaluator) Add(q int, s []int32, r float64) {
	qp := &d.plan.queries[q]
	c := impute.SlateSum(d.model.Phi(q), qp.m, s)
	d.sums.Add(r, d.plan.Weight(q, s), d.base[q], c)
	d.sigma2 += qp.sigma2
}

// Sums returns the statistics gathered so far.
func (d *DREvaluator) Sums() *DRSums { return &d.sums }

// Spec returns the intervals' specification: δ and the reward range of iv,
// the plan's PI weight range and the model's range.
func (d *DREvaluator) Spec(iv Intervals) DRSpec {
	p := d.plan
	n := float64(max(d.sums.Terms.N, 1))
	return DRSpec{
		Bound: BoundSpec{Delta: iv.Delta, Sigma2: d.sigma2 / n, WeightLo: p.WeightLo, WeightHi: p.WeightHi,
			RewardLo: iv.RewardLo, RewardHi: iv.RewardHi},
		ModelLo: d.ModelLo, ModelHi: d.ModelHi,
	}
}

// Estimates returns dr and wdr with their empirical-Bernstein intervals and
// the PI weights' diagnostics (the Bernstein interval of Theorem 1 is PI's
// and is not given).
func (d *DREvaluator) Estimates(iv Intervals) (dr, wdr *Estimate) {
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

func (d *DREvaluator) weightStats(b BoundSpec) *WeightStats {
	w := &d.sums.Corr // the residuals weighted by G: its weights are PI's
	return &WeightStats{
		Mean: Float(w.MeanWeight()), NegativeShare: Float(w.NegativeShare()), ESS: Float(w.ESS()),
		MaxAbs: Float(w.MaxAbsWeight()), Sigma2: Float(b.Sigma2), Rho: Float(b.Rho()),
		RangeLo: Float(b.WeightLo), RangeHi: Float(b.WeightHi), Sigma2Uniform: Float(d.plan.Sigma2),
	}
}
