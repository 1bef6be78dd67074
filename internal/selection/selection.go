// Package selection ranks rankers by their estimated value on one slate
// log, reading no label (piopt select): every model is a target policy
// evaluated in one pass over the log (ope.EvaluateLogs), ranked by one
// estimator, and marked where its interval overlaps the best one's.
package selection

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/evalreport"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/ranker"
)

// Logging is the logging side of a selection's log: the setup its
// header (or its policy file) records, built over the dataset.
type Logging struct {
	Slots      int
	Candidates *impute.Candidates
	Gammas     *impute.GammaCache
	Logging    string // the logging policy's spelling ("" when Policy gives it per context)
	RankBy     string // its rank source
	Limit      int    // candidates per query (0: all)
	Policy     string // name of the policy file giving every context's logging policy, if any
	Metric     string // the log's reward metric, e.g. "ndcg@3" ("" when nothing names it)
}

// Policies turns the spellings of a selection's policies into
// policies. Package policy knows the spellings, but it imports this package,
// so the caller supplies them.
type Policies interface {
	// Resolve reads a rank source's spelling (feature:K, tree:SUBSET, ...):
	// its canonical spelling, and whether it is fitted to relevance labels.
	Resolve(spec string) (canonical string, fitted bool, err error)
	// Logging reads the logging setup from the log's header, checking any
	// flags against it, and builds its candidates and Γ over ds.
	Logging(ctx context.Context, lr *data.LogReader, ds *data.Dataset) (*Logging, error)
	// Target builds the target policy a spelling (model:PATH, feature:K,
	// ...) names over the logging setup's candidates.
	Target(ctx context.Context, spec string, l *Logging) (*ope.Target, error)
}

// Config describes a selection: rankers ranked by their estimated
// value on one slate log, reading no label.
type Config struct {
	Models []Spec // as ParseModels reads them
	Log    string // the slate log's path
	// LogHeader is the header a log without a header line is read with
	// (data.OpenLogAssuming; nil: the log must have one).
	LogHeader data.Header
	Policies  Policies
	// Load reads the dataset the log refers to. Select calls it once the
	// checks that need only the log's header and the models have passed.
	Load func() (*data.Dataset, error)
	// Labelled says a labelled dataset is given to fit the rank sources
	// fitted to relevance labels on (tree:, lasso:); without one they are
	// refused, since the log's dataset is not read for its labels.
	Labelled bool
	// PolicyFile says a policy file given apart from the log's header
	// gives every context's logging policy (the header's rank sources are
	// then not used).
	PolicyFile bool
	Estimator  string // the estimator ranking the models: one of Estimators
	Interval   string // the interval compared with the best model's: IntervalBernstein, ...
	Intervals  ope.Intervals
	Threads    int    // 0: all cores; results do not depend on it
	Command    string // the command line, recorded in each model's setup
	// Pass, when not nil, shows the progress of the pass over the log.
	Pass func() (add func(n int64), done func())
}

// Spec is one ranker of a selection as its list names it.
type Spec struct {
	Name  string        // NAME of NAME=SPEC, else the path or spelling
	Given string        // the entry as listed
	Spec  string        // the target's spelling: model:PATH, feature:K, ...
	Path  string        // the model file of model:PATH ("" for other sources)
	Model *ranker.Model // loaded from Path
}

// selectName is what NAME=SPEC accepts as a name: no path or spec
// separators, so that a path or spec containing '=' is not split.
var selectName = regexp.MustCompile(`^[\p{L}\p{N}_.+-]+$`)

// ParseModels reads a comma-separated list of rankers (--models):
// model files (PATH or model:PATH, loaded now, so that a missing or bad
// file is refused before any data is read) and rank sources (feature:K,
// tree:SUBSET[@DEPTH], lasso:SUBSET[@L1]), each optionally NAME=SPEC. It
// refuses an empty entry, a name or ranker listed twice, and, unless
// labelled, a ranker fitted to relevance labels.
func ParseModels(list string, p Policies, labelled bool) ([]Spec, error) {
	var out []Spec
	for _, item := range strings.Split(list, ",") {
		e, err := parseSpec(strings.TrimSpace(item), p, labelled)
		if err != nil {
			return nil, fmt.Errorf("--models %s: %w", item, err)
		}
		for _, o := range out {
			if o.Name == e.Name {
				return nil, fmt.Errorf("--models: two models named %q (%s and %s; name them NAME=SPEC)", e.Name, o.Given, e.Given)
			}
			if o.Spec == e.Spec || (o.Path != "" && e.Path != "" && sameModelFile(o.Path, e.Path)) {
				return nil, fmt.Errorf("--models: %s and %s are the same ranker", o.Given, e.Given)
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// parseSpec reads one entry of ParseModels.
func parseSpec(item string, p Policies, labelled bool) (Spec, error) {
	if item == "" {
		return Spec{}, errors.New("empty entry")
	}
	e := Spec{Given: item, Name: item, Spec: item}
	named := false
	if n, s, ok := strings.Cut(item, "="); ok && selectName.MatchString(n) && s != "" {
		if _, err := os.Stat(item); err != nil { // a file named a=b is a file
			e.Name, e.Spec, named = n, s, true
		}
	}
	switch kind, arg, _ := strings.Cut(e.Spec, ":"); kind {
	case "feature", "tree", "lasso":
		canon, fitted, err := p.Resolve(e.Spec)
		if err != nil {
			return e, err
		}
		if fitted && !labelled {
			return e, fmt.Errorf("%s is fitted to relevance labels and select reads no label of --data: give the labelled file to fit it on as --policy-data FILE", canon)
		}
		e.Spec = canon
		return e, nil
	case "model":
		e.Path = arg
	default:
		e.Path, e.Spec = e.Spec, "model:"+e.Spec
	}
	if !named {
		e.Name = e.Path
	}
	if e.Path == "" {
		return e, errors.New("missing model path")
	}
	st, err := os.Stat(e.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return e, fmt.Errorf("no model file %s", e.Path)
	case err != nil:
		return e, err
	case st.IsDir():
		return e, fmt.Errorf("%s is a folder, not a model file", e.Path)
	}
	e.Model, err = ranker.LoadModel(e.Path)
	return e, err
}

// sameModelFile reports whether two model paths name one existing file.
func sameModelFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// Select evaluates every model of the configuration on its log in one pass
// (PI, wPI, IPS and wIPS, each exactly as EvaluateLog gives it for the
// model alone) and ranks them by the configuration's estimator. Only the
// log's rewards are read, never the dataset's labels: there is no true
// value.
func Select(ctx context.Context, cfg Config) (*Selection, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if err := checkSelectLog(cfg); err != nil {
		return nil, err
	}
	ds, err := cfg.Load()
	if err != nil {
		return nil, err
	}
	for _, m := range cfg.Models {
		if m.Model != nil {
			if err := m.Model.Fits(ds); err != nil {
				return nil, fmt.Errorf("--models %s: %w", m.Given, err)
			}
		}
	}
	lr, err := data.OpenLogAssuming(cfg.Log, ds, cfg.LogHeader)
	if err != nil {
		return nil, err
	}
	defer lr.Close()
	lg, err := cfg.Policies.Logging(ctx, lr, ds)
	if err != nil {
		return nil, err
	}
	metric, nonAdditive, err := selectMetric(lg)
	if err != nil {
		return nil, err
	}
	plans, err := selectPlans(ctx, cfg, lg)
	if err != nil {
		return nil, err
	}
	opt := ope.EvalOptions{Estimators: ope.Estimators{PI: true, WPI: true, IPS: true, WIPS: true}, Intervals: cfg.Intervals}
	results, err := ope.EvaluateLogs(ctx, plans, lr, ope.LogEvaluation{Options: opt, NonAdditive: nonAdditive, Pass: cfg.Pass})
	if err != nil {
		return nil, err
	}
	iv := cfg.Intervals
	models := make([]Model, len(cfg.Models))
	for i, m := range cfg.Models {
		res := results[i]
		// The setup evaluate records, less the conventions of the true
		// value select does not compute.
		info := evalreport.EvaluateSetup{Data: ds.Source, Logs: cfg.Log, Samples: res.N, LoggedQueries: res.Queries, Queries: ds.NumQueries(),
			Slots: lg.Slots, Logging: lg.Logging, RankBy: lg.RankBy, Candidates: lg.Limit, Target: plans[i].Target.Name(),
			Metric: metric, Delta: iv.Delta, Bootstrap: iv.Bootstrap, Seed: iv.Seed, RewardRange: [2]float64{iv.RewardLo, iv.RewardHi},
			TrueValue: ope.Float(res.TrueValue), Command: cfg.Command}
		if lg.Policy != "" {
			info.Policy, info.Logging, info.Queries = lg.Policy, "", lg.Candidates.NumQueries()
		}
		models[i] = Model{Name: m.Name, Setup: &info, Result: res}
	}
	return Rank(models, cfg.Estimator, cfg.Interval, iv.Delta, cfg.Log)
}

// check reads the estimator's and the interval's names (any case), and
// refuses a configuration that cannot rank, before any file is read.
func (cfg *Config) check() error {
	if len(cfg.Models) == 0 {
		return errors.New("--models: no model to rank")
	}
	est := strings.ToLower(strings.TrimSpace(cfg.Estimator))
	if !slices.Contains(Estimators, est) {
		return fmt.Errorf("--estimator %q: want %s", cfg.Estimator, strings.Join(Estimators, ", "))
	}
	kind, err := ParseIntervalKind(cfg.Interval)
	if err != nil {
		return fmt.Errorf("--interval: %w", err)
	}
	cfg.Estimator, cfg.Interval = est, kind
	if cfg.Interval == IntervalBootstrap && cfg.Intervals.Bootstrap == 0 {
		return errors.New("--interval bootstrap needs --bootstrap > 0")
	}
	return nil
}

// checkSelectLog checks, from the log's header alone, what would otherwise
// fail only after the data is read: a PI-OPT model scoring fewer slots than
// the log's slates have, and a logging rank source fitted to labels with no
// labelled file to fit it on.
func checkSelectLog(cfg Config) error {
	h, err := readLogHeader(cfg.Log, cfg.LogHeader)
	if err != nil {
		return err
	}
	if _, ok := h["slots"]; !ok && cfg.LogHeader != nil {
		return nil // a headerless log without --slots: the log reader says so
	}
	slots, _, err := h.Int("slots")
	if err != nil || slots < 1 {
		return fmt.Errorf("%s:1: header slots=%q: want an integer ≥ 1", cfg.Log, h["slots"])
	}
	for _, m := range cfg.Models {
		if m.Model != nil && m.Model.Meta().Slots > 0 && m.Model.Meta().Slots < slots {
			return fmt.Errorf("--models %s: the PI-OPT model scores %d slots, the log's slates have %d", m.Given, m.Model.Meta().Slots, slots)
		}
	}
	if cfg.PolicyFile || h["policy"] != "" || cfg.Labelled {
		return nil
	}
	for _, key := range []string{"rank-by", "candidates-by"} {
		if h[key] == "" {
			continue
		}
		// A bad spelling is reported when the setup is read.
		if _, fitted, err := cfg.Policies.Resolve(h[key]); err == nil && fitted {
			return fmt.Errorf("%s: header %s=%s is fitted to relevance labels and select reads no label of --data: give the labelled file it was fitted on as --policy-data FILE", cfg.Log, key, h[key])
		}
	}
	return nil
}

// readLogHeader reads the header line of a slate log (gzip allowed)
// without the dataset a LogReader checks it against; assumed, when not nil,
// for a log whose first line is not a header.
func readLogHeader(path string, assumed data.Header) (data.Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open slate log: %w", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	switch {
	case err == io.EOF && line == "":
		return nil, fmt.Errorf("%s: empty file: no `# %s %s ...` header", path, data.LogMagic, data.FormatVersion)
	case err != nil && err != io.EOF:
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if assumed != nil && !strings.HasPrefix(line, "#") {
		return assumed, nil
	}
	h, err := data.ParseHeader(line, data.LogMagic)
	if err != nil {
		return nil, fmt.Errorf("%s:1: %w", path, err)
	}
	return h, nil
}

// selectMetric returns the name of the log's reward metric at the log's
// slots ("" when nothing names it) and whether it is not additive over
// slots (ERR).
func selectMetric(lg *Logging) (string, bool, error) {
	if lg.Metric == "" {
		return "", false, nil
	}
	kindName, _, _ := strings.Cut(lg.Metric, "@")
	kind, err := eval.ParseKind(kindName)
	if err != nil {
		return "", false, fmt.Errorf("log metric: %w", err)
	}
	return eval.Metric{Kind: kind, K: lg.Slots}.Name(), kind == eval.KindERR, nil
}

// selectPlans builds every model's target, then every plan, so that a
// ranker that fails does so before any Γ is solved.
func selectPlans(ctx context.Context, cfg Config, lg *Logging) ([]*ope.Plan, error) {
	targets := make([]*ope.Target, len(cfg.Models))
	for i, m := range cfg.Models {
		var err error
		if targets[i], err = cfg.Policies.Target(ctx, m.Spec, lg); err != nil {
			return nil, fmt.Errorf("--models %s: %w", m.Given, err)
		}
	}
	plans := make([]*ope.Plan, len(cfg.Models))
	for i, m := range cfg.Models {
		// No scorer: labels would give only the true value.
		p, err := ope.Prepare(ctx, ope.Setup{Candidates: lg.Candidates, Gammas: lg.Gammas, Slots: lg.Slots, Target: targets[i], Threads: cfg.Threads})
		if err != nil {
			return nil, fmt.Errorf("--models %s: %w", m.Given, err)
		}
		plans[i] = p
	}
	return plans, nil
}

// Interval kinds a selection compares its models by.
const (
	IntervalBernstein          = "bernstein"
	IntervalEmpiricalBernstein = "empirical-bernstein"
	IntervalBootstrap          = "bootstrap"
)

// Estimators are the estimators a selection can rank by (every one a
// single pass over the log computes).
var Estimators = []string{ope.PI, ope.WPI, ope.IPS, ope.WIPS}

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
func interval(e *ope.Estimate, kind string) *ope.Interval {
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

// Model is one model (target policy) of a selection with its
// evaluation from the log.
type Model struct {
	Name   string                    // as the user listed it
	Setup  *evalreport.EvaluateSetup // the evaluation's setup; Setup.Target is the target's spelling
	Result *ope.Result
}

// RankedModel is a model of a Selection in its place.
type RankedModel struct {
	Model
	Rank     int           // 1 = best
	Value    float64       // the ranking estimator's estimate
	Interval *ope.Interval // its interval of the selection's kind
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
func Rank(models []Model, estimator, kind string, delta float64, log string) (*Selection, error) {
	if !slices.Contains(Estimators, estimator) {
		return nil, fmt.Errorf("estimator %q cannot rank models (want %s)", estimator, strings.Join(Estimators, ", "))
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
		s.Models[i] = RankedModel{Model: m, Value: float64(e.Value), Interval: interval(e, kind)}
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
			evalreport.FormatNum(m.Value), evalreport.FormatInterval(m.Interval), mark)
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
		b, err := json.Marshal(evalreport.EstimatesJSON(m.Setup, m.Result))
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", m.Name, err)
		}
		var ests map[string]json.RawMessage
		if err := json.Unmarshal(b, &ests); err != nil {
			return nil, fmt.Errorf("model %s: %w", m.Name, err)
		}
		out.Models[i] = modelJSON{Name: m.Name, Target: m.Setup.Target, Rank: m.Rank, NotSeparable: m.NotSeparable,
			PI: ests[ope.PI], WPI: ests[ope.WPI], IPS: ests[ope.IPS], WIPS: ests[ope.WIPS]}
	}
	return out, nil
}
