package ope

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/xsum"
)

// EvalPartial is the state of an Evaluator after a part of a log (a shard
// of its contexts, `evaluate --shard`), as JSON: every sum every
// estimator and interval needs, exact (internal/xsum), and what the
// result takes from the plan. MergeEvalPartials adds the parts up and
// gives the Result of the whole log, bit for bit: the sums are exact, the
// bootstrap's counts depend only on (seed, context, index in context), and
// pi-cv's folds on (context, index in context).
//
// Only the estimators whose statistics are sums can be split: pi, wpi,
// pi-cv, ips, wips and onpolicy. DM trains on the log's first part, and dr
// and wdr cross-fit a model on the whole log; Partial refuses them.
type EvalPartial struct {
	Estimators     Estimators `json:"estimators"`
	Intervals      Intervals  `json:"intervals"`
	CVFolds        int        `json:"cv_folds"`
	StrictCoverage bool       `json:"strict_coverage"`
	NonAdditive    bool       `json:"non_additive"`
	Facts          planFacts  `json:"plan"`

	N        int64     `json:"n"`
	Queries  int       `json:"queries"`
	Sigma2   string    `json:"sigma2"`
	PI       *sumsJSON `json:"pi,omitempty"`
	IPS      *ipsJSON  `json:"ips,omitempty"`
	CV       *cvJSON   `json:"pi_cv,omitempty"`
	OnPolicy string    `json:"onpolicy,omitempty"`
	Coverage coverJSON `json:"coverage"`
	Boot     *bootJSON `json:"bootstrap,omitempty"`
}

// jfloat is a float64 in JSON as text, so that NaN and ±Inf survive.
type jfloat float64

func (f jfloat) MarshalJSON() ([]byte, error) {
	return json.Marshal(strconv.FormatFloat(float64(f), 'g', -1, 64))
}

func (f *jfloat) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	x, err := strconv.ParseFloat(s, 64)
	*f = jfloat(x)
	return err
}

// planFacts is what an evaluation's result takes from its plan.
type planFacts struct {
	TrueValue, Sigma2, WeightLo, WeightHi, IPSSigma2, IPSMax jfloat
	Gamma                                                    []GammaInfo
	GammaCount                                               int
	PerContext                                               bool
	Approximation                                            impute.Approximation
	OnPolicyMissing                                          string
}

func (p *Plan) facts() *planFacts {
	return &planFacts{TrueValue: jfloat(p.TrueValue), Sigma2: jfloat(p.Sigma2), WeightLo: jfloat(p.WeightLo), WeightHi: jfloat(p.WeightHi),
		IPSSigma2: jfloat(p.IPSSigma2), IPSMax: jfloat(p.IPSMax), Gamma: p.Spectra(), GammaCount: p.GammaCount(),
		PerContext: p.Gammas.PerContext(), Approximation: p.Gammas.Approximations(), OnPolicyMissing: p.onPolicyMissing()}
}

// sumsJSON is an ExactSums.
type sumsJSON struct {
	N, Neg                 int64
	W, W2, RW, RW2, R2W2   string
	MinW, MaxW, MinR, MaxR jfloat
}

func sumsToJSON(s *ExactSums) *sumsJSON {
	return &sumsJSON{N: s.N, Neg: s.neg, W: s.w.String(), W2: s.w2.String(), RW: s.rw.String(), RW2: s.rw2.String(), R2W2: s.r2w2.String(),
		MinW: jfloat(s.minW), MaxW: jfloat(s.maxW), MinR: jfloat(s.minR), MaxR: jfloat(s.maxR)}
}

func (j *sumsJSON) exact() (ExactSums, error) {
	s := ExactSums{N: j.N, neg: j.Neg, extremes: extremes{float64(j.MinW), float64(j.MaxW), float64(j.MinR), float64(j.MaxR)}}
	for _, x := range []struct {
		dst *xsum.Sum
		src string
	}{{&s.w, j.W}, {&s.w2, j.W2}, {&s.rw, j.RW}, {&s.rw2, j.RW2}, {&s.r2w2, j.R2W2}} {
		v, err := xsum.Parse(x.src)
		if err != nil {
			return s, err
		}
		*x.dst = v
	}
	if s.N < 0 || s.neg < 0 || s.neg > s.N {
		return s, fmt.Errorf("sums: %d samples, %d negative", s.N, s.neg)
	}
	return s, nil
}

type ipsJSON struct {
	Sums    sumsJSON
	Sigma2  string
	Unknown bool
	Zero    int64
}

type cvJSON struct {
	Folds  []sumsJSON
	N      int64
	Sigma2 string
}

type coverJSON struct {
	N, NShort    int64
	Share, Bound string
	Cov          Coverage
	Worst        []worstContext
}

type bootJSON struct {
	Seed     uint64
	Channels int
	Count    []float64
	W, RW    []string
}

// Partial returns the evaluator's state as an EvalPartial.
func (e *Evaluator) Partial() (*EvalPartial, error) {
	if len(e.opt.Extra) > 0 {
		return nil, errors.New("ope: a partial evaluation cannot carry Extra estimators")
	}
	est := e.opt.Estimators
	if len(est.DM) > 0 || est.DR || est.WDR {
		return nil, errors.New("dm, dr and wdr fit models on the whole log: they cannot be evaluated in shards (give --estimators among pi, wpi, pi-cv, ips, wips, onpolicy)")
	}
	out := &EvalPartial{Estimators: est, Intervals: e.opt.Intervals, CVFolds: e.opt.CVFolds, StrictCoverage: e.opt.StrictCoverage,
		Facts: *e.plan.facts(), N: e.n, Sigma2: e.sigma2.String()}
	for _, c := range e.counts {
		if c > 0 {
			out.Queries++
		}
	}
	for _, x := range e.ests {
		switch x := x.(type) {
		case *piEstimator:
			out.PI = sumsToJSON(&x.sums)
		case *ipsEstimator:
			out.IPS = &ipsJSON{Sums: *sumsToJSON(&x.sums), Sigma2: x.sigma2.String(), Unknown: x.unknown, Zero: x.zero}
		case *picvEstimator:
			cv := &cvJSON{N: x.c.folds.n, Sigma2: x.c.sigma2.String()}
			for i := range x.c.folds.folds {
				cv.Folds = append(cv.Folds, *sumsToJSON(&x.c.folds.folds[i]))
			}
			out.CV = cv
		case *onPolicyEstimator:
			out.OnPolicy = x.value.String()
		}
	}
	c := e.cov
	out.Coverage = coverJSON{N: c.n, NShort: c.nShort, Share: c.share.String(), Bound: c.bound.String(), Cov: c.cov, Worst: c.worstFirst()}
	if b := e.boot; b != nil {
		bj := &bootJSON{Seed: b.seed, Channels: b.channels, Count: b.count}
		for i := range b.w {
			bj.W, bj.RW = append(bj.W, b.w[i].String()), append(bj.RW, b.rw[i].String())
		}
		out.Boot = bj
	}
	return out, nil
}

// MergeEvalPartials merges the partials of every part of a log (their
// settings and plan facts must agree: the caller checks them) into the
// Result of the whole log.
func MergeEvalPartials(ctx context.Context, parts []*EvalPartial) (*Result, error) {
	if len(parts) == 0 {
		return nil, errors.New("ope: no partial to merge")
	}
	f := parts[0]
	p := &Plan{Sigma2: float64(f.Facts.Sigma2), WeightLo: float64(f.Facts.WeightLo), WeightHi: float64(f.Facts.WeightHi),
		IPSSigma2: float64(f.Facts.IPSSigma2), IPSMax: float64(f.Facts.IPSMax), TrueValue: float64(f.Facts.TrueValue)}
	opt := EvalOptions{Estimators: f.Estimators, Intervals: f.Intervals, CVFolds: f.CVFolds, StrictCoverage: f.StrictCoverage}
	e := &Evaluator{plan: p, opt: opt, merged: &f.Facts, cov: &coverageSums{lo: f.Intervals.RewardLo, hi: f.Intervals.RewardHi}}
	var err error
	if e.ests, err = p.estimators(opt); err != nil {
		return nil, err
	}
	if f.Intervals.Bootstrap > 0 {
		e.boot = NewBootstrap(f.Intervals.Bootstrap, 2, f.Intervals.Seed)
	}
	for _, part := range parts {
		if err := e.merge(part); err != nil {
			return nil, err
		}
	}
	res, err := e.Result(ctx)
	if err != nil {
		return nil, err
	}
	if f.NonAdditive {
		warnNonAdditive(res)
	}
	return res, nil
}

// merge adds a partial's sums to a merged evaluator's.
func (e *Evaluator) merge(part *EvalPartial) error {
	sigma2, err := xsum.Parse(part.Sigma2)
	if err != nil {
		return err
	}
	e.n += part.N
	e.queries += part.Queries
	e.sigma2.AddSum(&sigma2)
	for _, x := range e.ests {
		if err := mergeEstimator(x, part); err != nil {
			return err
		}
	}
	if err := e.cov.merge(&part.Coverage); err != nil {
		return err
	}
	if e.boot == nil {
		return nil
	}
	if part.Boot == nil {
		return errors.New("a partial without the bootstrap")
	}
	return e.boot.merge(part.Boot)
}

// mergeEstimator adds a partial's sums of estimator x.
func mergeEstimator(x Estimator, part *EvalPartial) error {
	var err error
	switch x := x.(type) {
	case *piEstimator:
		if part.PI == nil {
			return errors.New("a partial without pi's sums")
		}
		var s ExactSums
		if s, err = part.PI.exact(); err == nil {
			x.sums.Merge(&s)
		}
	case *ipsEstimator:
		if part.IPS == nil {
			return errors.New("a partial without ips's sums")
		}
		var s ExactSums
		var sig xsum.Sum
		if s, err = part.IPS.Sums.exact(); err == nil {
			if sig, err = xsum.Parse(part.IPS.Sigma2); err == nil {
				x.sums.Merge(&s)
				x.sigma2.AddSum(&sig)
				x.unknown = x.unknown || part.IPS.Unknown
				x.zero += part.IPS.Zero
			}
		}
	case *picvEstimator:
		err = x.c.merge(part.CV)
	case *onPolicyEstimator:
		var v xsum.Sum
		if v, err = xsum.Parse(part.OnPolicy); err == nil {
			x.value.AddSum(&v)
			x.missing = part.Facts.OnPolicyMissing
		}
	}
	return err
}

func (c *cvEvaluator) merge(j *cvJSON) error {
	if j == nil || len(j.Folds) != len(c.folds.folds) {
		return errors.New("a partial without pi-cv's folds, or with another number of them")
	}
	sig, err := xsum.Parse(j.Sigma2)
	if err != nil {
		return err
	}
	c.sigma2.AddSum(&sig)
	c.folds.n += j.N
	for i := range j.Folds {
		s, err := j.Folds[i].exact()
		if err != nil {
			return err
		}
		c.folds.folds[i].Merge(&s)
	}
	return nil
}

func (s *coverageSums) merge(j *coverJSON) error {
	share, err1 := xsum.Parse(j.Share)
	bound, err2 := xsum.Parse(j.Bound)
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	s.n += j.N
	s.nShort += j.NShort
	s.share.AddSum(&share)
	s.bound.AddSum(&bound)
	c, o := &s.cov, &j.Cov
	c.Contexts += o.Contexts
	c.RankShortContexts += o.RankShortContexts
	c.ContextsOutsideRange += o.ContextsOutsideRange
	c.RangeShareMax = max(c.RangeShareMax, o.RangeShareMax)
	c.ContextsUnseen += o.ContextsUnseen
	c.ContextsShort += o.ContextsShort
	s.worst = append(s.worst, j.Worst...)
	return nil
}

func (b *Bootstrap) merge(j *bootJSON) error {
	if j.Seed != b.seed || j.Channels != b.channels || len(j.Count) != len(b.count) || len(j.W) != len(b.w) || len(j.RW) != len(b.rw) {
		return errors.New("a partial's bootstrap has another seed, replicates or channels")
	}
	o := &Bootstrap{seed: j.Seed, channels: j.Channels, count: j.Count, w: make([]xsum.Sum, len(j.W)), rw: make([]xsum.Sum, len(j.RW))}
	for i := range j.W {
		var err1, err2 error
		o.w[i], err1 = xsum.Parse(j.W[i])
		o.rw[i], err2 = xsum.Parse(j.RW[i])
		if err := errors.Join(err1, err2); err != nil {
			return err
		}
	}
	return b.Merge(o)
}
