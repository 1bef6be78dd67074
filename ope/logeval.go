package ope

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/internal/parallel"
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
	// A wrong samples= means a second pass, which the caller's Extra
	// estimators, fed once, cannot take: count first for them.
	if dm && (!haveN || len(e.Options.Extra) > 0) {
		cr, err := e.Open()
		if err != nil {
			return nil, err
		}
		n, err := countLog(ctx, cr)
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
	if dm && ev.n != int64(logged) {
		// The header's count was wrong: read again with the true one.
		logged = int(ev.n)
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

// EvaluateLogs evaluates the targets of several plans on one slate log in
// a single pass: every record is read, checked and mapped to candidate
// indices once, and then added to every plan's Evaluator, in log order,
// so each plan's Result is bit for bit the one EvaluateLog gives it alone.
// The plans must share their candidates and slots (one logging setup,
// several targets). Batches of records are handed to the evaluators in
// parallel (up to the first plan's Threads goroutines, one evaluator each);
// results do not depend on the number of threads.
//
// DM is refused: it needs the log's length before reading it and keeps its
// training part, so it is evaluated per plan with EvaluateLog. e.Open is
// not used (no second pass is ever needed).
func EvaluateLogs(ctx context.Context, plans []*Plan, lr *data.LogReader, e LogEvaluation) ([]*Result, error) {
	if len(plans) == 0 {
		return nil, errors.New("offpolicy: no plan to evaluate")
	}
	if len(e.Options.Estimators.DM) > 0 {
		return nil, errors.New("offpolicy: DM trains on a prefix of the log: evaluate each target with EvaluateLog")
	}
	if len(e.Options.Extra) > 0 {
		return nil, errors.New("ope: Extra estimators belong to one evaluator: evaluate each target with EvaluateLog")
	}
	c, slots := plans[0].Candidates, plans[0].Slots
	for _, p := range plans[1:] {
		if p.Candidates != c || p.Slots != slots {
			return nil, fmt.Errorf("offpolicy: target %s is planned on other candidates or slots than %s", p.Target.Name(), plans[0].Target.Name())
		}
	}
	evs := make([]*Evaluator, len(plans))
	for i, p := range plans {
		ev, err := p.NewEvaluator(e.Options)
		if err != nil {
			return nil, err
		}
		evs[i] = ev
	}
	var add func(int64)
	done := func() {}
	if e.Pass != nil {
		add, done = e.Pass()
	}
	b := &logBatch{off: []int{0}}
	flush := func() error {
		if len(b.q) == 0 {
			return nil
		}
		err := parallel.For(ctx, len(evs), plans[0].Threads, nil, func(_ struct{}, i int) error {
			// Checked every record: with a large bootstrap a batch takes
			// seconds (see AddLog).
			stop := newStopper(ctx)
			for k, q := range b.q {
				if stop.stopped() {
					return ctx.Err()
				}
				evs[i].Add(q, b.slates[b.off[k]:b.off[k+1]], b.r[k])
			}
			return nil
		})
		b.reset()
		return err
	}
	err := c.ReadLog(ctx, lr, slots, add, func(q int, s []int32, r float64) {
		b.add(q, s, r)
		if len(b.q) == batchRecords {
			// ReadLog's callback cannot fail; a cancelled context stops
			// the read at its next check.
			_ = flush()
		}
	})
	if err == nil {
		err = flush()
	}
	done()
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	out := make([]*Result, len(evs))
	for i, ev := range evs {
		res, err := ev.Result(ctx)
		if err != nil {
			return nil, err
		}
		if e.NonAdditive {
			warnNonAdditive(res) // as EvaluateLog does
		}
		out[i] = res
	}
	return out, nil
}

// batchRecords is the number of log records read before they are added to
// the evaluators in parallel.
const batchRecords = 4096

// logBatch holds records read from a log (candidate-index slates, flat).
type logBatch struct {
	q      []int
	r      []float64
	slates []int32
	off    []int
}

func (b *logBatch) add(q int, s []int32, r float64) {
	b.q = append(b.q, q)
	b.r = append(b.r, r)
	b.slates = append(b.slates, s...)
	b.off = append(b.off, len(b.slates))
}

func (b *logBatch) reset() {
	b.q, b.r, b.slates, b.off = b.q[:0], b.r[:0], b.slates[:0], b.off[:1]
}
