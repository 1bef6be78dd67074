package ope

import (
	"context"
	"fmt"
	"math"
)

// DefaultBaselineFolds is dr's number of cross-fitting folds: each tenth of
// the log is evaluated with the reward model fitted on the other nine. On
// MQ2008 (M = 10, ℓ = 5, pa:1, 20 runs) more folds fit better models where
// samples are scarce: dr's RMSE at n = 10⁴ is 0.0161, 0.0135 and 0.0114
// with 2, 5 and 10 folds (wPI 0.0216), at the cost of K fits.
const DefaultBaselineFolds = 10

// Baseline is where dr and wdr get their reward model φ̄: a fixed model
// (fitted on other data), or one fitted on the log itself with K-fold
// cross-fitting, so that no sample is evaluated with a model that saw it.
type Baseline struct {
	// Model, when not nil, is the fixed φ̄ and Name says where it came
	// from (e.g. "model:PATH").
	Model RewardModel
	Name  string
	// Fitter fits φ̄ on K−1 folds of the log for the K-th, when Model is
	// nil; Folds is K (0: DefaultBaselineFolds).
	Fitter PhiFitter
	Folds  int

	// fixed is Model's evaluator before any sample (its value of the
	// target and its range per query), made once by prepare.
	fixed *DREvaluator
}

func (b Baseline) folds() int {
	if b.Folds > 0 {
		return b.Folds
	}
	return DefaultBaselineFolds
}

func (b Baseline) check() error {
	if b.Model == nil && b.Fitter == nil {
		return fmt.Errorf("offpolicy: dr and wdr need a reward model or a fitter (Baseline)")
	}
	return nil
}

// minSamples is the smallest log dr can be computed on: any with a fixed
// model, two samples per fold when cross-fitting.
func (b Baseline) minSamples() int {
	if b.Model != nil {
		return 0
	}
	return 2 * b.folds()
}

// prepareBaseline checks b and returns it with a fixed model's per-query
// values computed, so that every log (every grid point of every run of a
// sweep) reuses them.
func (p *Plan) prepareBaseline(ctx context.Context, b Baseline) (Baseline, error) {
	if err := b.check(); err != nil || b.Model == nil {
		return b, err
	}
	var err error
	b.fixed, err = p.NewDR(ctx, b.Model)
	return b, err
}

// BaselineInfo is what dr and wdr report about their φ̄.
type BaselineInfo struct {
	// Kind is "crossfit" or the fixed model's name.
	Kind string `json:"kind"`
	// Folds, FoldSamples and FoldTrees describe cross-fitting: sample i
	// is in fold i mod Folds, evaluated with the model fitted on the
	// other folds, whose boosting rounds FoldTrees gives (when the fitter
	// says).
	Folds       int     `json:"folds,omitempty"`
	FoldSamples []int64 `json:"fold_samples,omitempty"`
	FoldTrees   []int   `json:"fold_trees,omitempty"`
	// ModelLo and ModelHi bound the model's value 1_sᵀφ̄_x of every slate
	// μ can log, over the folds' models: the range the intervals assume.
	ModelLo Float `json:"model_lo"`
	ModelHi Float `json:"model_hi"`
}

// Rounder is implemented by a fitted reward model that knows its number
// of boosting rounds (BaselineInfo.FoldTrees).
type Rounder interface{ Rounds() int }

// drSamples are the samples dr and wdr keep to cross-fit on: query, slate
// padded with −1 to the plan's Slots, and the reward in full precision
// (dr with φ̄ ≡ 0 is PI to the last bit).
type drSamples struct {
	slots int
	q     []int32
	s     []int32
	r     []float64
}

// newDRSamples returns room for n samples of slots slots.
func newDRSamples(slots int, n int64) drSamples {
	return drSamples{slots: slots, q: make([]int32, 0, n), s: make([]int32, 0, n*int64(slots)), r: make([]float64, 0, n)}
}

func (d *drSamples) add(q int, s []int32, r float64) {
	d.q = append(d.q, int32(q))
	d.s = append(d.s, s...)
	for range d.slots - len(s) {
		d.s = append(d.s, -1)
	}
	d.r = append(d.r, r)
}

func (d *drSamples) len() int { return len(d.q) }

// slate returns sample i's ℓ_x slotted candidates.
func (d *drSamples) slate(p *Plan, i int) []int32 {
	return d.s[i*d.slots : i*d.slots+p.Candidates.Slots(int(d.q[i]), d.slots)]
}

// crossFitDR returns dr's and wdr's statistics of the first n samples, all
// merged into one DREvaluator, and what was done; b comes from
// prepareBaseline. The merged evaluator's folds had different models: it
// gives Estimates and Sums, and must not be added to. Its intervals treat
// the terms as i.i.d.; cross-fitted, they are independent only given the
// other folds' models (TestCrossFitCoverage checks that they still
// cover). With too few samples to give every fold a model to fit, it
// returns a nil evaluator and the reason.
func (p *Plan) crossFitDR(ctx context.Context, b Baseline, d *drSamples, n int) (*DREvaluator, *BaselineInfo, string, error) {
	if b.fixed != nil {
		ev := b.fixed.empty()
		for i := range n {
			ev.Add(int(d.q[i]), d.slate(p, i), d.r[i])
		}
		return ev, &BaselineInfo{Kind: b.Name, ModelLo: Float(ev.ModelLo), ModelHi: Float(ev.ModelHi)}, "", nil
	}
	k := b.folds()
	if n < b.minSamples() {
		return nil, nil, fmt.Sprintf("dr cross-fits %d folds and needs at least %d samples, the log has %d", k, b.minSamples(), n), nil
	}
	info := &BaselineInfo{Kind: "crossfit", Folds: k, FoldSamples: make([]int64, k)}
	var all *DREvaluator
	lo, hi := math.Inf(1), math.Inf(-1)
	for f := range k {
		q, s, r := d.foldOut(n, k, f)
		model, err := b.Fitter.FitPhi(ctx, p, q, s, r)
		if err != nil {
			return nil, nil, "", fmt.Errorf("offpolicy: dr's reward model for fold %d of %d: %w", f+1, k, err)
		}
		if r, ok := model.(Rounder); ok {
			info.FoldTrees = append(info.FoldTrees, r.Rounds())
		}
		ev, err := p.NewDR(ctx, model)
		if err != nil {
			return nil, nil, "", err
		}
		for i := f; i < n; i += k {
			ev.Add(int(d.q[i]), d.slate(p, i), d.r[i])
		}
		info.FoldSamples[f] = ev.sums.Terms.N
		lo, hi = min(lo, ev.ModelLo), max(hi, ev.ModelHi)
		if all == nil {
			all = ev
			continue
		}
		all.sums.Merge(&ev.sums)
		all.sigma2 += ev.sigma2
	}
	all.model, all.base = nil, nil // read-only from here: Add would mix the folds' models
	all.ModelLo, all.ModelHi = lo, hi
	info.ModelLo, info.ModelHi = Float(lo), Float(hi)
	return all, info, "", nil
}

// foldOut returns the first n samples but those of fold f (i mod k = f),
// in FitPhi's layout.
func (d *drSamples) foldOut(n, k, f int) (q, s []int32, r []float32) {
	m := n - (n-f+k-1)/k
	q, s, r = make([]int32, 0, m), make([]int32, 0, m*d.slots), make([]float32, 0, m)
	for i := range n {
		if i%k == f {
			continue
		}
		q = append(q, d.q[i])
		s = append(s, d.s[i*d.slots:(i+1)*d.slots]...)
		r = append(r, float32(d.r[i]))
	}
	return q, s, r
}
