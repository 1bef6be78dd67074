package ope

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/impute"
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
}

// Evaluator folds a log, one sample at a time, into every estimator's
// statistics: memory is O(queries + bootstrap replicates), independent of
// the log's length, except for DM's training part, which is kept.
type Evaluator struct {
	plan   *Plan
	opt    EvalOptions
	pi     Sums
	ips    Sums
	boot   *Bootstrap
	w      []float64
	counts []int64 // per query: samples
	// Σ_i over samples of the per-context terms: σ²_x, 1/μ(s*|x), V(x, s*).
	sigma2, ipsSigma2, value float64
	ipsUnknown               bool
	ipsZero                  int64 // samples whose context's target slate μ cannot log
	dm                       *dmSamples
	dmEval                   []int64
	cv                       *CVEvaluator
	dr                       *drSamples
}

// NewEvaluator returns an evaluator of the plan's target.
func (p *Plan) NewEvaluator(opt EvalOptions) (*Evaluator, error) {
	iv := opt.Intervals
	if err := (BoundSpec{Delta: iv.Delta, WeightLo: 0, WeightHi: 0, RewardLo: iv.RewardLo, RewardHi: iv.RewardHi}).Validate(); err != nil {
		return nil, err
	}
	e := &Evaluator{plan: p, opt: opt, w: make([]float64, 2), counts: make([]int64, p.Candidates.NumQueries())}
	if iv.Bootstrap > 0 {
		e.boot = NewBootstrap(iv.Bootstrap, 2, iv.Seed)
	}
	if opt.Estimators.PICV {
		var err error
		if e.cv, err = p.NewCV(cvFolds(opt.CVFolds)); err != nil {
			return nil, err
		}
	}
	if opt.Estimators.Baseline() {
		if err := opt.Baseline.check(); err != nil {
			return nil, err
		}
		e.dr = &drSamples{slots: p.Slots}
	}
	if len(opt.Estimators.DM) > 0 {
		e.dm = &dmSamples{slots: p.Slots}
		e.dmEval = make([]int64, p.Candidates.NumQueries())
	}
	return e, nil
}

// Add records one logged sample: query q, slate s (candidate indices, ℓ_x
// of them) and reward r.
func (e *Evaluator) Add(q int, s []int32, r float64) {
	p := e.plan
	qp := &p.queries[q]
	n := e.pi.N
	w := p.Weight(q, s)
	e.pi.Add(r, w)
	if e.cv != nil {
		e.cv.add(r, w, qp.sigma2)
	}
	if e.dr != nil {
		e.dr.add(q, s, r)
	}
	ratio := p.Ratio(q, s)
	if math.IsNaN(ratio) {
		e.ipsUnknown = true
		ratio = 0
	}
	e.ips.Add(r, ratio)
	if e.boot != nil {
		e.w[0], e.w[1] = w, ratio
		e.boot.Add(r, e.w)
	}
	e.counts[q]++
	e.sigma2 += qp.sigma2
	if math.IsInf(qp.invMu, 1) {
		e.ipsZero++ // μ(s*|x) = 0: IPS cannot see this context's target slate
	} else {
		e.ipsSigma2 += qp.invMu
	}
	e.value += qp.value
	if e.dm != nil {
		if n < e.opt.DMTrain {
			e.dm.add(q, s, r)
		} else {
			e.dmEval[q]++
		}
	}
}

// N returns the number of samples added.
func (e *Evaluator) N() int64 { return e.pi.N }

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
	// PerContext: the log's contexts each have their own policy (a policy
	// file), so Queries counts contexts and Gamma distinct policies.
	PerContext bool
	// Approximation says which Γ were not exact and how far off they can be.
	Approximation impute.Approximation `json:"-"`
}

// Result computes every estimate (training DM's models if asked).
func (e *Evaluator) Result(ctx context.Context) (*Result, error) {
	p, est, iv := e.plan, e.opt.Estimators, e.opt.Intervals
	res := &Result{Names: est.Names(), Estimates: map[string]*Estimate{}, N: e.pi.N, TrueValue: p.TrueValue, Gamma: p.Spectra(),
		PerContext: p.Gammas.PerContext(), Approximation: p.Gammas.Approximations()}
	for _, c := range e.counts {
		if c > 0 {
			res.Queries++
		}
	}
	n := float64(max(e.pi.N, 1))
	// σ² is an expectation over the context distribution; the log's
	// contexts are its empirical version. ρ is a supremum over contexts;
	// the dataset's queries contain every context a log can name.
	piBound := BoundSpec{Delta: iv.Delta, Sigma2: e.sigma2 / n, WeightLo: p.WeightLo, WeightHi: p.WeightHi,
		RewardLo: iv.RewardLo, RewardHi: iv.RewardHi}
	if est.PI {
		res.Estimates[PI] = weightEstimate(&e.pi, piBound, e.boot, 0, false, p.Sigma2, "PI")
	}
	if est.WPI {
		res.Estimates[WPI] = weightEstimate(&e.pi, piBound, e.boot, 0, true, p.Sigma2, "PI")
	}
	if est.PICV {
		cv, diag := e.cv.Estimate(iv)
		cv.ControlVariate = &diag
		res.Estimates[PICV] = cv
	}
	if e.dr != nil {
		if err := e.drEstimates(ctx, res); err != nil {
			return nil, err
		}
	}
	if est.IPS || est.WIPS {
		ipsBound := BoundSpec{Delta: iv.Delta, Sigma2: e.ipsSigma2 / n, WeightLo: 0, WeightHi: p.IPSMax,
			RewardLo: iv.RewardLo, RewardHi: iv.RewardHi}
		for _, x := range []struct {
			on   bool
			name string
			sn   bool
		}{{est.IPS, IPS, false}, {est.WIPS, WIPS, true}} {
			if !x.on {
				continue
			}
			if e.ipsUnknown {
				res.Estimates[x.name] = &Estimate{Value: Float(math.NaN()), N: e.ips.N,
					Warnings: []string{"IPS needs the target's slate probabilities, which this stochastic target does not give"}}
				continue
			}
			est := weightEstimate(&e.ips, ipsBound, e.boot, 1, x.sn, p.IPSSigma2, "IPS")
			if e.ipsZero > 0 {
				est.Warnings = append(est.Warnings, fmt.Sprintf("the target's slate has probability 0 under the logging policy of the contexts of %d of %d impressions: IPS is biased (their value counts as 0)", e.ipsZero, e.ips.N))
			}
			res.Estimates[x.name] = est
		}
	}
	if est.OnPolicy {
		o := &Estimate{Value: Float(math.NaN()), N: e.pi.N}
		if math.IsNaN(p.TrueValue) {
			o.Warnings = []string{p.onPolicyMissing()}
		} else if e.pi.N > 0 {
			o.Value = Float(e.value / n)
		}
		res.Estimates[OnPolicy] = o
	}
	if len(est.DM) > 0 {
		dm, err := p.directMethod(ctx, e.dm, e.dm.len(), e.dmEval, e.opt.Regressors, est.DM, new(dmFit))
		if err != nil {
			return nil, err
		}
		for k, v := range dm {
			res.Estimates[k] = v
		}
	}
	for _, name := range res.Names {
		if est := res.Estimates[name]; est != nil {
			est.warnOutsideRange(iv.RewardLo, iv.RewardHi)
		}
	}
	return res, nil
}

// onPolicyMissing says what OnPolicy lacks when the plan has no true value:
// a deterministic target, or a Scorer, which the CLI builds from the log
// header's metric= (or --metric), so a log without it is named as the cause.
func (p *Plan) onPolicyMissing() string {
	var lacks []string
	if !p.Target.Deterministic() {
		lacks = append(lacks, fmt.Sprintf("a deterministic target (%s is stochastic)", p.Target.Name()))
	}
	if p.Scorer == nil {
		lacks = append(lacks, "the reward metric, which the log's header does not give (no metric=; give --metric ndcg or err)")
	}
	if len(lacks) == 0 {
		return "OnPolicy needs a deterministic target and the dataset's labels"
	}
	return "OnPolicy needs " + strings.Join(lacks, " and ")
}

// AddLog reads every record of a slate log into the evaluator, mapping
// document positions to candidate indices and checking that every slate is
// one the logging policy can draw (its documents are candidates; it has ℓ_x
// slots). Errors name the log's file, line and field. progress, when not
// nil, is called with 1 after every record.
func (e *Evaluator) AddLog(ctx context.Context, lr *data.LogReader, progress func(n int64)) error {
	return e.plan.Candidates.ReadLog(ctx, lr, e.plan.Slots, progress, e.Add)
}

// CountLog returns the number of records of a slate log (a first pass that
// fixes DM's training part before the evaluating pass).
func CountLog(ctx context.Context, lr *data.LogReader) (int64, error) {
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

// drEstimates adds dr and wdr (as asked) to res.
func (e *Evaluator) drEstimates(ctx context.Context, res *Result) error {
	est := e.opt.Estimators
	b, err := e.plan.prepareBaseline(ctx, e.opt.Baseline)
	if err != nil {
		return err
	}
	d, info, reason, err := e.plan.crossFitDR(ctx, b, e.dr, e.dr.len())
	if err != nil {
		return err
	}
	var dr, wdr *Estimate
	if d == nil {
		nan := func() *Estimate {
			return &Estimate{Value: Float(math.NaN()), N: int64(e.dr.len()), Warnings: []string{reason}}
		}
		dr, wdr = nan(), nan()
	} else {
		dr, wdr = d.Estimates(e.opt.Intervals)
		dr.Baseline, wdr.Baseline = info, info
	}
	if est.DR {
		res.Estimates[DR] = dr
	}
	if est.WDR {
		res.Estimates[WDR] = wdr
	}
	return nil
}
