// Package selection holds what piopt select adds to evaluate: the list of
// rankers it reads (ParseModels), the checks of a selection before any
// data is read (Config.Check), and the ranking of the models by one
// estimator, each marked where its interval overlaps the best one's
// (Rank), with its table and JSON. internal/pipeline's Select evaluates
// every model in one pass over the log (ope.EvaluateLogs) and ranks them
// here.
package selection

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/internal/evalreport"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/ranker"
)

// Resolver reads the spelling of a rank source (feature:K, tree:SUBSET,
// ...): its canonical spelling, and whether it is fitted to relevance
// labels. (internal/pipeline gives package policy's; tests a fake.)
type Resolver interface {
	Resolve(spec string) (canonical string, fitted bool, err error)
}

// Config describes a selection: rankers ranked by their estimated
// value on one slate log, reading no label. internal/pipeline's Select
// runs it; Check refuses what would fail only after the data is read.
type Config struct {
	Models []Spec // as ParseModels reads them
	Log    string // the slate log's path
	// LogHeader is the header a log without a header line is read with
	// (data.OpenLogAssuming; nil: the log must have one).
	LogHeader data.Header
	Resolver  Resolver
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
func ParseModels(list string, p Resolver, labelled bool) ([]Spec, error) {
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
func parseSpec(item string, p Resolver, labelled bool) (Spec, error) {
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
	case "run", "policy", "scores": // targets given as data
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

// Check reads the estimator's and the interval's names (any case) and
// refuses a configuration that cannot rank, then checks, from the log's
// header alone, what would otherwise fail only after the data is read.
func (cfg *Config) Check() error {
	if err := cfg.check(); err != nil {
		return err
	}
	return checkSelectLog(*cfg)
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
	if data.IsRowLog(cfg.Log) {
		return nil // a log with a policy per row has no header: its reader checks it
	}
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
		if _, fitted, err := cfg.Resolver.Resolve(h[key]); err == nil && fitted {
			return fmt.Errorf("%s: header %s=%s is fitted to relevance labels and select reads no label of --data: give the labelled file it was fitted on as --policy-data FILE", cfg.Log, key, h[key])
		}
	}
	return nil
}

// readLogHeader reads the header line of a slate log (gzip allowed)
// without the dataset a LogReader checks it against (data.ReadLogHeader);
// assumed, when not nil, for a log whose first line is not a header.
func readLogHeader(path string, assumed data.Header) (data.Header, error) {
	h, err := data.ReadLogHeader(path)
	switch {
	case err != nil:
		return nil, err
	case h == nil && assumed != nil:
		return assumed, nil
	case h == nil:
		return nil, fmt.Errorf("%s:1: no `# %s %s key=value ...` header line", path, data.LogMagic, data.FormatVersion)
	}
	return h, nil
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
