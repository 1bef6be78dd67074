package ope

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/internal/parallel"
)

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
			for k, q := range b.q {
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

// Interval kinds a selection compares its models by.
const (
	IntervalBernstein          = "bernstein"
	IntervalEmpiricalBernstein = "empirical-bernstein"
	IntervalBootstrap          = "bootstrap"
)

// SelectEstimators are the estimators a selection can rank by (every one a
// single pass over the log computes).
var SelectEstimators = []string{PI, WPI, IPS, WIPS}

// ParseIntervalKind reads the name of an interval kind.
func ParseIntervalKind(s string) (string, error) {
	switch k := strings.ToLower(strings.TrimSpace(s)); k {
	case IntervalBernstein, IntervalEmpiricalBernstein, IntervalBootstrap:
		return k, nil
	}
	return "", fmt.Errorf("unknown interval %q (want %s, %s or %s)", s, IntervalBernstein, IntervalEmpiricalBernstein, IntervalBootstrap)
}

// interval returns the estimate's interval of the given kind (nil when it
// was not computed).
func interval(e *Estimate, kind string) *Interval {
	if e == nil {
		return nil
	}
	switch kind {
	case IntervalBernstein:
		return e.Bernstein
	case IntervalEmpiricalBernstein:
		return e.EmpiricalBernstein
	case IntervalBootstrap:
		return e.Bootstrap
	}
	return nil
}

// SelectModel is one model (target policy) of a selection with its
// evaluation from the log.
type SelectModel struct {
	Name   string         // as the user listed it
	Setup  *EvaluateSetup // the evaluation's setup; Setup.Target is the target's spelling
	Result *Result
}

// RankedModel is a model of a Selection in its place.
type RankedModel struct {
	SelectModel
	Rank     int       // 1 = best
	Value    float64   // the ranking estimator's estimate
	Interval *Interval // its interval of the selection's kind
	// NotSeparable says the model's interval overlaps the best model's:
	// at the intervals' level the log does not tell the two apart. The
	// best model itself is not marked.
	NotSeparable bool
}

// Selection is a set of models ranked by one estimator's estimate of
// their value on one log.
type Selection struct {
	Estimator string  // pi, wpi, ips or wips
	Interval  string  // IntervalBernstein, ...
	Delta     float64 // every interval holds with probability ≥ 1 − Delta
	Log       string
	Models    []RankedModel // best first
}

// Rank sorts the models by the estimator's estimate, highest first (an
// estimate that is NaN last; equal estimates in the given order), and marks
// the models whose interval of the given kind overlaps the best one's.
func Rank(models []SelectModel, estimator, kind string, delta float64, log string) (*Selection, error) {
	if !slices.Contains(SelectEstimators, estimator) {
		return nil, fmt.Errorf("estimator %q cannot rank models (want %s)", estimator, strings.Join(SelectEstimators, ", "))
	}
	if _, err := ParseIntervalKind(kind); err != nil {
		return nil, err
	}
	s := &Selection{Estimator: estimator, Interval: kind, Delta: delta, Log: log, Models: make([]RankedModel, len(models))}
	for i, m := range models {
		e := m.Result.Estimates[estimator]
		if e == nil {
			return nil, fmt.Errorf("model %s: no %s estimate", m.Name, estimator)
		}
		s.Models[i] = RankedModel{SelectModel: m, Value: float64(e.Value), Interval: interval(e, kind)}
	}
	// cmp.Compare orders NaN below every number: a NaN estimate sorts last.
	slices.SortStableFunc(s.Models, func(a, b RankedModel) int { return cmp.Compare(b.Value, a.Value) })
	for i := range s.Models {
		s.Models[i].Rank = i + 1
	}
	if len(s.Models) > 0 {
		best := s.Models[0].Interval
		for i := range s.Models[1:] {
			m := &s.Models[i+1]
			m.NotSeparable = best != nil && m.Interval != nil && m.Interval.Lo <= best.Hi && best.Lo <= m.Interval.Hi
		}
	}
	return s, nil
}

// Best returns the name of the best model ("" when there is none).
func (s *Selection) Best() string {
	if len(s.Models) == 0 {
		return ""
	}
	return s.Models[0].Name
}

// notSeparableMark marks, in the table, a model not separable from the
// best.
const notSeparableMark = "*"

// WriteTable prints the log's setup, one line per model, best first (rank,
// name, estimate, interval, the mark of a model not separable from the
// best), and the ranking estimator's warnings.
func (s *Selection) WriteTable(w io.Writer) {
	if len(s.Models) == 0 {
		return
	}
	st := s.Models[0].Setup
	over := fmt.Sprintf("%d of %d queries; %d slots, logging %s", st.LoggedQueries, st.Queries, st.Slots, st.Logging)
	if st.Policy != "" {
		over = fmt.Sprintf("%d of %d contexts; %d slots, logging policy file %s", st.LoggedQueries, st.Queries, st.Slots, st.Policy)
	} else {
		if st.RankBy != "" {
			over += " by " + st.RankBy
		}
		if st.Candidates > 0 {
			over += fmt.Sprintf(", top %d candidates", st.Candidates)
		}
	}
	fmt.Fprintf(w, "%s: %d impressions over %s\n", s.Log, st.Samples, over)
	conf := fmt.Sprintf("%g%%", 100*(1-s.Delta))
	fmt.Fprintf(w, "models ranked by %s, best first; %s %s intervals; %s: interval overlaps the best's (not separable from the best)\n",
		s.Estimator, s.Interval, conf, notSeparableMark)
	width := len("model")
	for _, m := range s.Models {
		width = max(width, len([]rune(m.Name)))
	}
	fmt.Fprintf(w, "%4s  %-*s  %9s  %s\n", "rank", width, "model", s.Estimator, s.Interval+" "+conf)
	var warnings []string
	for _, m := range s.Models {
		mark := ""
		if m.NotSeparable {
			mark = notSeparableMark
		}
		line := fmt.Sprintf("%4d  %s%*s  %9s  %-20s  %s", m.Rank, m.Name, width-len([]rune(m.Name)), "",
			FormatNum(m.Value), fmtInterval(m.Interval), mark)
		fmt.Fprintln(w, strings.TrimRight(line, " "))
		for _, msg := range m.Result.Estimates[s.Estimator].Warnings {
			warnings = append(warnings, fmt.Sprintf("%s: %s: %s", m.Name, s.Estimator, msg))
		}
	}
	fmt.Fprintf(w, "best: %s\n", s.Best())
	for _, msg := range warnings {
		fmt.Fprintln(w, "warning:", msg)
	}
}

// JSON returns the value of a selection's JSON output:
//
//	{"estimator": "wpi", "interval": "bernstein", "delta": 0.05, "log": ...,
//	 "models": [{"name": ..., "target": ..., "rank": 1,
//	 "not_separable": false, "pi": {...}, "wpi": {...}, "ips": {...},
//	 "wips": {...}}, ...], "best": name}
//
// with the models best first and each estimator's object exactly the one
// piopt evaluate writes for it (EstimatesJSON: value, n, intervals,
// weights, warnings, Γ for pi and wpi, and the setup).
func (s *Selection) JSON() (any, error) {
	type modelJSON struct {
		Name         string          `json:"name"`
		Target       string          `json:"target"`
		Rank         int             `json:"rank"`
		NotSeparable bool            `json:"not_separable"`
		PI           json.RawMessage `json:"pi,omitempty"`
		WPI          json.RawMessage `json:"wpi,omitempty"`
		IPS          json.RawMessage `json:"ips,omitempty"`
		WIPS         json.RawMessage `json:"wips,omitempty"`
	}
	type selectionJSON struct {
		Estimator string      `json:"estimator"`
		Interval  string      `json:"interval"`
		Delta     float64     `json:"delta"`
		Log       string      `json:"log"`
		Models    []modelJSON `json:"models"`
		Best      string      `json:"best"`
	}
	out := selectionJSON{Estimator: s.Estimator, Interval: s.Interval, Delta: s.Delta, Log: s.Log,
		Models: make([]modelJSON, len(s.Models)), Best: s.Best()}
	for i, m := range s.Models {
		// evaluate's objects, through its own encoder.
		b, err := json.Marshal(EstimatesJSON(m.Setup, m.Result))
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", m.Name, err)
		}
		var ests map[string]json.RawMessage
		if err := json.Unmarshal(b, &ests); err != nil {
			return nil, fmt.Errorf("model %s: %w", m.Name, err)
		}
		out.Models[i] = modelJSON{Name: m.Name, Target: m.Setup.Target, Rank: m.Rank, NotSeparable: m.NotSeparable,
			PI: ests[PI], WPI: ests[WPI], IPS: ests[IPS], WIPS: ests[WIPS]}
	}
	return out, nil
}
