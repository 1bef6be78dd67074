package ope

import (
	"context"
	"math"

	"github.com/piopt/piopt/data"
)

// LogEvaluation is the evaluation of a plan's target from one slate log
// file, as piopt evaluate runs it.
type LogEvaluation struct {
	// Options are the estimators and intervals; EvaluateLog sets DMTrain.
	Options EvalOptions
	// DMShare is the share of the log, its first part, that DM trains on.
	DMShare float64
	// NonAdditive says the reward is not additive over slots (ERR): PI and
	// wPI then carry a warning, as their bias and intervals assume it is.
	NonAdditive bool
	// Open opens the log again, for the passes after the first.
	Open func() (*data.LogReader, error)
	// Pass, when not nil, starts the progress display of one pass over the
	// log and returns its counter of impressions read and its end.
	Pass func() (add func(n int64), done func())
}

// EvaluateLog reads the log lr and returns every estimate. DM trains on the
// first DMShare of the log, so it needs the log's length before reading it:
// the header's samples= (simulate writes it), else a counting pass; when the
// header's count proves wrong the log is read again with the true one.
func (p *Plan) EvaluateLog(ctx context.Context, lr *data.LogReader, e LogEvaluation) (*Result, error) {
	dm := len(e.Options.Estimators.DM) > 0
	logged, haveN, _ := lr.Header().Int("samples")
	if dm && !haveN {
		cr, err := e.Open()
		if err != nil {
			return nil, err
		}
		n, err := CountLog(ctx, cr)
		cr.Close()
		if err != nil {
			return nil, err
		}
		logged = int(n)
	}
	opt := e.Options
	evaluate := func(lr *data.LogReader) (*Evaluator, error) {
		if dm {
			opt.DMTrain = int64(math.Floor(e.DMShare * float64(logged)))
		}
		ev, err := p.NewEvaluator(opt)
		if err != nil {
			return nil, err
		}
		var add func(int64)
		done := func() {}
		if e.Pass != nil {
			add, done = e.Pass()
		}
		err = ev.AddLog(ctx, lr, add)
		done()
		return ev, err
	}
	ev, err := evaluate(lr)
	if err != nil {
		return nil, err
	}
	if dm && ev.N() != int64(logged) {
		// The header's count was wrong: read again with the true one.
		logged = int(ev.N())
		lr2, err := e.Open()
		if err != nil {
			return nil, err
		}
		defer lr2.Close()
		if ev, err = evaluate(lr2); err != nil {
			return nil, err
		}
	}
	res, err := ev.Result(ctx)
	if err != nil {
		return nil, err
	}
	if e.NonAdditive {
		warnNonAdditive(res)
	}
	return res, nil
}

// warnNonAdditive warns on the estimators built on PI's weights (PI, wPI,
// pi-cv, dr, wdr) that the reward (ERR) is not additive over slots, the
// assumption behind their unbiasedness.
func warnNonAdditive(res *Result) {
	for _, name := range []string{PI, WPI, PICV, DR, WDR} {
		if est := res.Estimates[name]; est != nil {
			est.Warnings = append(est.Warnings, "ERR is not additive over slots: PI is biased for it and its intervals assume additivity")
		}
	}
}
