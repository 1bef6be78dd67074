package ope

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/xsum"
)

// EvalOptions control an Evaluator.
type EvalOptions struct {
	Estimators Estimators
	Intervals  Intervals
	// DMTrain is the number of leading samples of the log that DM trains
	// on; the rest are its evaluation part.
	DMTrain int64
	// Regressors maps a DM model name ("tree", "linear") to its fitter.
	Regressors map[string]Regressor
	// CVFolds is pi-cv's number of cross-fitting folds (0: DefaultCVFolds).
	CVFolds int
	// Baseline is dr's and wdr's reward model. They keep every sample
	// (query, slate, reward: 12 + 4·Slots bytes each) to cross-fit on.
	Baseline Baseline
	// Extra are estimators of the caller's own, evaluated after those of
	// Estimators; their estimates join the Result under their names. An
	// Evaluator adds every sample to them, so each belongs to one
	// Evaluator.
	Extra []Estimator
	// StrictCoverage turns a coverage shortfall (see Coverage) into an
	// error of Result.
	StrictCoverage bool
}

// Evaluator folds a log, one sample at a time, into every estimator's
// statistics: memory is O(queries + bootstrap replicates), independent of
// the log's length, except for what DM, dr and wdr keep (DM's training
// part; dr's samples).
type Evaluator struct {
	plan   *Plan
	opt    EvalOptions
	ests   []Estimator
	boot   *Bootstrap
	w      []float64 // the bootstrap's channels of one sample
	n      int64
	counts []int64  // per query: samples
	keys   []uint64 // per logged query: its ContextKey, the bootstrap's
	sigma2 xsum.Sum // Σ_i σ²_{x_i}
	sample Sample
	cov    *coverageSums // what of the target the log cannot see
	// merged: the evaluator of merged partials (partial.go), whose plan
	// holds only its scalars: what Result takes from the plan, and the
	// number of contexts logged.
	merged  *planFacts
	queries int
}

// NewEvaluator returns an evaluator of the plan's target.
func (p *Plan) NewEvaluator(opt EvalOptions) (*Evaluator, error) {
	iv := opt.Intervals
	if err := (BoundSpec{Delta: iv.Delta, WeightLo: 0, WeightHi: 0, RewardLo: iv.RewardLo, RewardHi: iv.RewardHi}).validate(); err != nil {
		return nil, err
	}
	e := &Evaluator{plan: p, opt: opt, w: make([]float64, 2), counts: make([]int64, p.Candidates.NumQueries())}
	if iv.Bootstrap > 0 {
		e.boot = NewBootstrap(iv.Bootstrap, 2, iv.Seed)
		e.keys = make([]uint64, len(e.counts))
	}
	var err error
	if e.ests, err = p.estimators(opt); err != nil {
		return nil, err
	}
	e.ests = append(e.ests, opt.Extra...)
	e.cov = newCoverageSums(p, iv.RewardLo, iv.RewardHi)
	return e, nil
}

// Add records one logged sample: query q, slate s (candidate indices, ℓ_x
// of them) and reward r.
func (e *Evaluator) Add(q int, s []int32, r float64) {
	p := e.plan
	w, ratio := p.Weight(q, s), p.Ratio(q, s)
	j := e.counts[q]
	e.sample = Sample{Index: e.n, InContext: j, Query: q, Slate: s, Reward: r, Weight: w, Ratio: ratio}
	if e.boot != nil {
		if math.IsNaN(ratio) {
			ratio = 0
		}
		if j == 0 {
			e.keys[q] = ContextKey(p.Candidates.Name(q))
		}
		e.w[0], e.w[1] = w, ratio
		e.boot.Add(e.keys[q], j, r, e.w)
	}
	e.n++
	e.counts[q]++
	e.sigma2.Add(p.queries[q].sigma2)
	e.cov.add(q)
	for _, est := range e.ests {
		est.Add(&e.sample)
	}
}

// Result is an evaluation: one estimate per estimator, keyed by its name.
type Result struct {
	Names     []string             // estimator keys in canonical order
	Estimates map[string]*Estimate // by name
	N         int64                // logged samples
	Queries   int                  // distinct logged queries
	// TrueValue is V(π) with contexts uniform over the dataset's queries
	// (semi-synthetic mode, deterministic target; NaN otherwise).
	TrueValue float64
	Gamma     []GammaInfo
	// GammaCount is the number of distinct Γ (Gamma lists them all but
	// for a policy per context, see Plan.Spectra).
	GammaCount int
	// PerContext: the log's contexts each have their own policy (a policy
	// file), so Queries counts contexts and Gamma distinct policies.
	PerContext bool
	// Approximation says which Γ were not exact and how far off they can be.
	Approximation impute.Approximation `json:"-"`
	// Coverage is the share of the target the log cannot see (nil for an
	// empty log).
	Coverage *Coverage `json:"-"`
}

// attachCoverage gives every PI-family estimate (pi, wpi, pi-cv, dr, wdr)
// the result's Coverage, and a warning when it is short; IPS and wIPS a
// warning too when the target shows unseen documents (a slate with one has
// μ(s|x) = 0). Where the coverage is short the weights' mean is not
// expected to be 1, so the warning that blames the log is dropped.
func (r *Result) attachCoverage() {
	if r.Coverage == nil {
		return
	}
	for _, name := range []string{PI, WPI, PICV, DR, WDR, IPS, WIPS} {
		est := r.Estimates[name]
		if est == nil {
			continue
		}
		ips := name == IPS || name == WIPS
		if !ips {
			est.Coverage = r.Coverage
		}
		if !r.Coverage.Short() {
			continue
		}
		est.Warnings = slices.DeleteFunc(est.Warnings, func(w string) bool { return strings.HasSuffix(w, drawnFromWarning) })
		if !ips || r.Coverage.ContextsUnseen > 0 {
			est.Warnings = append(est.Warnings, r.Coverage.Warning())
		}
	}
}

// Result computes every estimate (training DM's and dr's models if asked).
func (e *Evaluator) Result(ctx context.Context) (*Result, error) {
	f := e.merged
	if f == nil {
		f = e.plan.facts()
	}
	p, iv := e.plan, e.opt.Intervals
	res := &Result{Estimates: map[string]*Estimate{}, N: e.n, TrueValue: float64(f.TrueValue), Gamma: f.Gamma, GammaCount: f.GammaCount,
		PerContext: f.PerContext, Approximation: f.Approximation, Queries: e.queries}
	for _, c := range e.counts {
		if c > 0 {
			res.Queries++
		}
	}
	// σ² is an expectation over the context distribution; the log's
	// contexts are its empirical version. ρ is a supremum over contexts;
	// the dataset's queries contain every context a log can name.
	sum := &Summary{Plan: p, Intervals: iv, N: e.n, Counts: e.counts, Sigma2: e.sigma2.Float64() / float64(max(e.n, 1)), Bootstrap: e.boot}
	for _, est := range e.ests {
		names := est.Names()
		out, err := est.Estimate(ctx, sum)
		if err != nil {
			return nil, err
		}
		if len(out) != len(names) {
			return nil, fmt.Errorf("ope: estimator %v gave %d estimates", names, len(out))
		}
		for i, name := range names {
			if res.Estimates[name] != nil {
				return nil, fmt.Errorf("ope: two estimators named %q", name)
			}
			res.Names = append(res.Names, name)
			res.Estimates[name] = out[i]
		}
	}
	for _, name := range res.Names {
		if est := res.Estimates[name]; est != nil {
			est.warnOutsideRange(iv.RewardLo, iv.RewardHi)
		}
	}
	res.Coverage = e.cov.coverage()
	res.attachCoverage()
	if e.opt.StrictCoverage && res.Coverage.Short() {
		return nil, res.Coverage.Err()
	}
	return res, nil
}

// AddLog reads every record of a slate log into the evaluator, mapping
// document positions to candidate indices and checking that every slate is
// one the logging policy can draw (its documents are candidates; it has ℓ_x
// slots). Errors name the log's file, line and field. progress, when not
// nil, is called with 1 after every record.
//
// The context is checked before every record: with a large bootstrap one
// record costs a millisecond, so the reader's own check every 65,536
// records would take a minute to honour a cancellation. Once it is
// cancelled the remaining records up to the reader's next check are read
// but not added, which is fast.
func (e *Evaluator) AddLog(ctx context.Context, lr *data.LogReader, progress func(n int64)) error {
	stop := newStopper(ctx)
	err := e.plan.Candidates.ReadLog(ctx, lr, e.plan.Slots, progress, func(q int, s []int32, r float64) {
		if !stop.stopped() {
			e.Add(q, s, r)
		}
	})
	if stop.stop {
		return ctx.Err()
	}
	return err
}

// stopper checks a context's cancellation in a loop whose body cannot
// return an error: a non-blocking receive from Done, a few nanoseconds, so
// cheap enough for every iteration. Once cancelled it stays stopped.
type stopper struct {
	done <-chan struct{}
	stop bool
}

// newStopper returns a stopper of ctx.
func newStopper(ctx context.Context) stopper { return stopper{done: ctx.Done()} }

// stopped reports whether the context is cancelled.
func (s *stopper) stopped() bool {
	if !s.stop {
		select {
		case <-s.done:
			s.stop = true
		default:
		}
	}
	return s.stop
}

// countLog returns the number of records of a slate log (a first pass that
// fixes DM's training part before the evaluating pass).
func countLog(ctx context.Context, lr *data.LogReader) (int64, error) {
	var n int64
	for {
		if n&0xffff == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		_, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
		n++
	}
}
