package ope

import (
	"context"
	"fmt"
	"math"

	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/parallel"
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
	// target and its range per query), made once by PrepareBaseline.
	fixed *drEvaluator
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

// MinSamples is the smallest log dr can be computed on: any with a fixed
// model, two samples per fold when cross-fitting.
func (b Baseline) MinSamples() int {
	if b.Model != nil {
		return 0
	}
	return 2 * b.folds()
}

// PrepareBaseline checks b and returns it with a fixed model's per-query
// values computed, so that every log evaluated with the result (every
// prefix of every log of a sweep) reuses them.
func (p *Plan) PrepareBaseline(ctx context.Context, b Baseline) (Baseline, error) {
	if err := b.check(); err != nil || b.Model == nil {
		return b, err
	}
	var err error
	b.fixed, err = p.newDR(ctx, b.Model)
	return b, err
}

// BaselineInfo is what dr and wdr report about their φ̄.
type BaselineInfo struct {
	// Kind is "crossfit" or the fixed model's name.
	Kind string `json:"kind"`
	// folds, FoldSamples and FoldTrees describe cross-fitting: sample i
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

// crossFitDR returns dr's and wdr's statistics of the first n samples, all
// merged into one DREvaluator, and what was done; b comes from
// PrepareBaseline. The merged evaluator's folds had different models: it
// gives Estimates and Sums, and must not be added to. Its intervals treat
// the terms as i.i.d.; cross-fitted, they are independent only given the
// other folds' models (TestCrossFitCoverage checks that they still
// cover). With too few samples to give every fold a model to fit, it
// returns a nil evaluator and the reason.
func (p *Plan) crossFitDR(ctx context.Context, b Baseline, d *Samples, n int) (*drEvaluator, *BaselineInfo, string, error) {
	if b.fixed != nil {
		ev := b.fixed.empty()
		for i := range n {
			ev.Add(int(d.q[i]), d.slate(p, i), d.r[i])
		}
		return ev, &BaselineInfo{Kind: b.Name, ModelLo: Float(ev.ModelLo), ModelHi: Float(ev.ModelHi)}, "", nil
	}
	k := b.folds()
	if n < b.MinSamples() {
		return nil, nil, fmt.Sprintf("dr cross-fits %d folds and needs at least %d samples, the log has %d", k, b.MinSamples(), n), nil
	}
	info := &BaselineInfo{Kind: "crossfit", Folds: k, FoldSamples: make([]int64, k)}
	var all *drEvaluator
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
		ev, err := p.newDR(ctx, model)
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

// CrossFitDR returns dr and wdr on the first n samples, with b's fixed
// model or its model cross-fitted over its folds; b comes from
// PrepareBaseline. With fewer than b.MinSamples() samples both are NaN.
func (p *Plan) CrossFitDR(ctx context.Context, b Baseline, s *Samples, n int) (dr, wdr float64, err error) {
	d, _, _, err := p.crossFitDR(ctx, b, s, n)
	if err != nil || d == nil {
		return math.NaN(), math.NaN(), err
	}
	wdr, _ = d.sums.SelfNormalized()
	return d.sums.Value(), wdr, nil
}

// PhiFitter fits the slot-additive reward model φ̄ that dr and wdr use as
// their baseline (issue 13: by default a PI-OPT regression on the log
// itself, cross-fitted by the caller). A sweep calls FitPhi from several
// goroutines at once: it must be safe for concurrent use, and the model it
// returns is only read.
type PhiFitter interface {
	// FitPhi fits a slot-additive reward model on samples of p's queries: sample i is query q[i],
	// slate s[i*p.Slots:(i+1)*p.Slots] (candidate indices, −1 past ℓ_x), reward r[i]. The model
	// gives Phi for every query of the plan, also those without samples.
	FitPhi(ctx context.Context, p *Plan, q []int32, s []int32, r []float32) (RewardModel, error)
}

// PhiTargets are PI-OPT's regression targets of a set of logged samples,
// per query x of a plan: φ̂_x = Γ_x†θ̂_x, where θ̂_x = S_x/n_x is the mean
// of r·1_s over the query's n_x samples, and n_x, the query's weight. They
// are the targets `piopt impute` writes for the logging policy with
// per-sample weights (impute.ComputeTargets, PerSample), computed by the
// same code: impute.Stats for θ̂ and the plan's Γ† (Gamma.PinvMulVec).
type PhiTargets struct {
	// Phi is per query ℓ_x·m_x values, index j·m_x + a (the package's ℓm
	// convention), or nil for a query without samples.
	Phi   [][]float64
	Count []int64 // n_x per query
}

// PhiTargets computes the PI-OPT targets of the samples in FitPhi's layout
// (sample i: query q[i], slate s[i·Slots:(i+1)·Slots], reward r[i]). It
// checks every sample: a query of the plan, a slate of ℓ_x distinct
// candidates padded with −1, a finite reward; errors name the sample.
func (p *Plan) PhiTargets(ctx context.Context, q, s []int32, r []float32) (*PhiTargets, error) {
	if err := p.checkSamples(q, s, r); err != nil {
		return nil, err
	}
	c := p.Candidates
	st, err := impute.NewStats(c, p.Slots)
	if err != nil {
		return nil, fmt.Errorf("offpolicy: φ̂ targets: %w", err)
	}
	for i, x := range q {
		lx := c.Slots(int(x), p.Slots)
		st.Add(int(x), s[i*p.Slots:i*p.Slots+lx], float64(r[i]))
	}
	t := &PhiTargets{Phi: make([][]float64, c.NumQueries()), Count: make([]int64, c.NumQueries())}
	// Every query writes only its own target: the result does not depend
	// on the number of threads.
	err = parallel.For(ctx, c.NumQueries(), p.Threads, nil, func(_ struct{}, x int) error {
		n := st.Count(x)
		if n == 0 {
			return nil
		}
		m, lx := c.Size(x), c.Slots(x, p.Slots)
		g, err := p.Gammas.Query(x, m, lx)
		if err != nil {
			return fmt.Errorf("offpolicy: φ̂ targets of query %q: %w", c.Name(x), err)
		}
		// θ̂ = S/n divided element by element, exactly as impute does, so
		// that the targets are the same bits as impute's.
		theta := make([]float64, lx*m)
		for k, v := range st.Sum(x) {
			theta[k] = v / float64(n)
		}
		t.Phi[x] = make([]float64, lx*m)
		g.PinvMulVec(t.Phi[x], theta)
		p.Gammas.Release(x)
		t.Count[x] = n
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// checkSamples refuses samples PhiTargets cannot use, naming the first bad
// one.
func (p *Plan) checkSamples(q, s []int32, r []float32) error {
	L, nq := p.Slots, p.Candidates.NumQueries()
	if len(s) != len(q)*L || len(r) != len(q) {
		return fmt.Errorf("offpolicy: φ̂ targets: %d queries, %d slate entries and %d rewards, want %d slate entries (%d slots each) and %d rewards",
			len(q), len(s), len(r), len(q)*L, L, len(q))
	}
	for i, x := range q {
		if x < 0 || int(x) >= nq {
			return fmt.Errorf("offpolicy: φ̂ sample %d: query index %d outside the plan's %d queries", i, x, nq)
		}
		if v := float64(r[i]); math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("offpolicy: φ̂ sample %d (query %q): reward %v", i, p.Candidates.Name(int(x)), r[i])
		}
		if err := p.checkSlate(int(x), s[i*L:(i+1)*L]); err != nil {
			return fmt.Errorf("offpolicy: φ̂ sample %d (query %q): %w", i, p.Candidates.Name(int(x)), err)
		}
	}
	return nil
}

// checkSlate checks that slate (Slots entries) holds ℓ_x distinct candidate
// indices of query x, then −1.
func (p *Plan) checkSlate(x int, slate []int32) error {
	m, lx := p.Candidates.Size(x), p.Candidates.Slots(x, p.Slots)
	for j, a := range slate {
		switch {
		case j >= lx && a != -1:
			return fmt.Errorf("slot %d holds %d past ℓ_x = %d, want −1", j+1, a, lx)
		case j < lx && (a < 0 || int(a) >= m):
			return fmt.Errorf("slot %d holds %d, want a candidate index in 0..%d", j+1, a, m-1)
		}
		if j >= lx {
			continue
		}
		for k, b := range slate[:j] {
			if b == a {
				return fmt.Errorf("slots %d and %d both hold candidate %d", k+1, j+1, a)
			}
		}
	}
	return nil
}
