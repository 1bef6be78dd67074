package pipeline

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/internal/atomicfile"
	"github.com/piopt/piopt/internal/evalreport"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/internal/progress"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/ranker"
)

// EvaluateConfig is one run of piopt evaluate: a target policy's value
// estimated from a slate log drawn by another policy.
type EvaluateConfig struct {
	// Data is the LETOR file the log's queries and documents refer to; ""
	// reads none: the documents are the names the log's policy file gives,
	// and only estimators and targets that read no feature can run.
	Data string
	Read data.ReadOptions // how Data (and PolicyData) is read
	Logs string           // the slate log (piopt-log v1; gzip allowed)
	// Setup is the logging setup as given on the command line: checked
	// against the log's header, and the header of a log without one.
	Setup policy.Flags
	// Target is the target policy's spelling, Slate how a PI-OPT model
	// target builds its slates.
	Target string
	Slate  ranker.SlateMethod
	// PolicyData, when not "", is the labelled file tree: and lasso: rank
	// sources are fitted on (else Data).
	PolicyData string
	// Options are the estimators, their intervals and pi-cv's folds; the
	// DM regressors and dr's baseline are set here.
	Options ope.EvalOptions
	// EstimatorsDefault: Options.Estimators is the default list, whose
	// estimators the log cannot give (onpolicy without a reward metric;
	// without Data, those reading features) are left out with a note on
	// Progress rather than refused.
	EstimatorsDefault bool
	DMShare           float64          // the share of the log, its first part, DM trains on
	DM                policy.DMOptions // DM's depth and L1 (threads and seed set here)
	// Baseline is dr's reward model (policy.Crossfit or model:PATH) and
	// BaselineFolds its cross-fitting folds.
	Baseline      string
	BaselineFolds int
	// Conventions of the log's metric, when its header names one (MaxRel 0:
	// the data's highest grade); the header's conventions replace those not
	// in Stated.
	Conventions eval.Conventions
	Stated      []StatedFlag
	Seed        uint64 // Γ's, DM's, dr's and the rank sources' (the bootstrap's is Options.Intervals.Seed)
	Threads     int    // 0: all cores; results do not depend on it
	JSON        string // when not "", receives the estimates as JSON
	Command     string // the command line, recorded in the setup
	Progress    io.Writer
	// Shard, when on, reads only the shard's contexts of Logs; Partial,
	// when not "", receives the shard's sums as a partial file for piopt
	// merge (evalpartial.go) instead of JSON.
	Shard   Shard
	Partial string
}

// EvaluateResult is an evaluation: its setup and every estimate.
type EvaluateResult struct {
	Setup  evalreport.EvaluateSetup
	Result *ope.Result
}

// WriteTable writes what piopt evaluate prints: the setup, every estimate
// with its intervals, and the diagnostics.
func (r *EvaluateResult) WriteTable(w io.Writer) { r.Setup.WriteTable(w, r.Result) }

// Evaluate reads the log's logging setup, builds the target's plan over
// its candidates and computes every estimator in one pass over the log (two
// when DM trains on a share of a log whose length its header does not
// say), then writes JSON when asked.
func Evaluate(ctx context.Context, cfg EvaluateConfig) (*EvaluateResult, error) {
	if data.IsRowLog(cfg.Logs) {
		return evaluateRowLog(ctx, cfg)
	}
	ds, err := logData(ctx, cfg.Data, cfg.Read, cfg.Logs, cfg.Setup, cfg.Progress)
	if err != nil {
		return nil, err
	}
	opt, err := evalOptions(ds, cfg)
	if err != nil {
		return nil, err
	}
	assumed := cfg.Setup.Header()
	lr, ls, metricName, err := policy.OpenLog(cfg.Logs, ds, cfg.Setup)
	if err != nil {
		return nil, err
	}
	defer lr.Close()
	cfg.Shard.apply(lr)
	metric, nonAdditive, err := evaluateMetric(cfg, lr.Header(), metricName, ls.Slots, ds)
	if err != nil {
		return nil, err
	}
	if metric == nil && opt.Estimators.OnPolicy && cfg.EstimatorsDefault {
		opt.Estimators.OnPolicy = false
		note(cfg.Progress, "piopt: onpolicy left out: the log names no reward metric (no metric=), so the target's true value cannot be scored")
	}
	popt, err := PolicyOptions(ctx, cfg.PolicyData, cfg.Read, cfg.Threads, cfg.Seed, cfg.Progress)
	if err != nil {
		return nil, err
	}
	plans, err := BuildPlans(ctx, ds, PlanConfig{Setup: ls, Targets: []string{cfg.Target}, Slate: cfg.Slate, Policy: popt,
		Seed: cfg.Seed, Metric: metric, Threads: cfg.Threads, Label: func(int) string { return "--target" }})
	if err != nil {
		return nil, err
	}
	plan := plans.Plans[0]
	if len(opt.Estimators.DM) > 0 && cfg.EstimatorsDefault && plan.HasUnseen() {
		opt.Estimators.DM = nil
		note(cfg.Progress, "piopt: dm left out: the target shows documents the logging policy never shows, which DM cannot score")
	}
	opt.Regressors = policy.DMRegressors(policy.DMOptions{Depth: cfg.DM.Depth, L1: cfg.DM.L1, Threads: cfg.Threads, Seed: cfg.Seed})
	if opt.Baseline, err = baseline(ctx, cfg.Baseline, cfg.BaselineFolds, opt.Estimators, plan, cfg.Threads, cfg.Seed); err != nil {
		return nil, err
	}
	// The passes after the first open the log again, as the first did.
	reopen := func() (*data.LogReader, error) {
		lr, err := data.OpenLogAssuming(cfg.Logs, ds, assumed)
		if err == nil && ls.Policy != nil {
			lr.SetContexts()
		}
		if err == nil {
			cfg.Shard.apply(lr)
		}
		return lr, err
	}
	e := &evaluation{cfg: cfg, ds: ds, ls: ls, plan: plan, opt: opt, metric: metric, nonAdditive: nonAdditive}
	return e.read(ctx, lr, reopen)
}

// evaluation is an evaluate run once its plan is built (slate log or row
// log): what its passes over the log and its report need.
type evaluation struct {
	cfg         EvaluateConfig
	ds          *data.Dataset
	ls          policy.Setup
	plan        *ope.Plan
	opt         ope.EvalOptions
	metric      *eval.Metric
	nonAdditive bool
}

// read runs the estimators over lr (open reopens the log for the passes
// after the first): into cfg.Partial when a shard's sums are asked for,
// else into evaluate's result, written as JSON when asked.
func (e *evaluation) read(ctx context.Context, lr *data.LogReader, open func() (*data.LogReader, error)) (*EvaluateResult, error) {
	if e.cfg.Partial != "" {
		return nil, e.partial(ctx, lr)
	}
	res, err := e.plan.EvaluateLog(ctx, lr, ope.LogEvaluation{Options: e.opt, DMShare: e.cfg.DMShare,
		NonAdditive: e.nonAdditive, Open: open, Pass: passBar(e.cfg.Progress, "evaluate")})
	if err != nil {
		return nil, err
	}
	out := &EvaluateResult{Setup: e.setup(res), Result: res}
	if e.cfg.JSON != "" {
		if err := atomicfile.WriteJSON(e.cfg.JSON, evalreport.EstimatesJSON(&out.Setup, res)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// setup is evaluateSetup as evaluate records it, whole or by shard: a row
// log's logging policy is per row (rowSetup), and a metric read from the
// documents' labels names itself and its conventions.
func (e *evaluation) setup(res *ope.Result) evalreport.EvaluateSetup {
	setup := evaluateSetup(e.ds, e.cfg.Logs, e.ls, e.plan, res, e.opt.Intervals, e.cfg.Command)
	if data.IsRowLog(e.cfg.Logs) {
		rowSetup(&setup, e.cfg)
	}
	if e.metric != nil && !e.ds.NamesOnly() {
		setup.Metric = e.metric.Name()
		cj := ranker.NewConventionsJSON(e.metric.Conventions)
		setup.Conventions = &cj
	}
	return setup
}

// evaluateSetup describes the evaluation of plan's target from the log
// logs under the logging setup ls, as evaluate and select record it.
func evaluateSetup(ds *data.Dataset, logs string, ls policy.Setup, plan *ope.Plan, res *ope.Result, iv ope.Intervals, command string) evalreport.EvaluateSetup {
	info := evalreport.EvaluateSetup{Data: ds.Source, Logs: logs, Samples: res.N, LoggedQueries: res.Queries, Queries: ds.NumQueries(),
		Slots: ls.Slots, Logging: ls.Logging.String(), RankBy: ls.RankBy, Candidates: ls.Limit, Target: plan.Target.Name(),
		Delta: iv.Delta, Bootstrap: iv.Bootstrap, Seed: iv.Seed, RewardRange: [2]float64{iv.RewardLo, iv.RewardHi},
		TrueValue: ope.Float(res.TrueValue), Command: command}
	if ls.Policy != nil {
		info.Policy, info.Logging, info.Queries = ls.Policy.Name, "", plan.Candidates.NumQueries()
	}
	if ds.NamesOnly() {
		info.Data = ""
	}
	return info
}

// evaluateMetric is the log's reward metric, which scores the target's
// true value with the dataset's labels (nil when the log names none, or
// there are no labels), and whether it is not additive over slots (ERR).
func evaluateMetric(cfg EvaluateConfig, h data.Header, name string, slots int, ds *data.Dataset) (*eval.Metric, bool, error) {
	if ds.NamesOnly() {
		_, nonAdditive, err := selectMetric(name, slots)
		return nil, nonAdditive, err
	}
	metric, err := logMetric(cfg.Conventions, cfg.Stated, h, name, slots, ds)
	return metric, metric != nil && metric.Kind == eval.KindERR, err
}

// evalOptions are cfg's estimator options on ds: on a dataset of names
// only, a target or an estimator that reads features or labels is refused
// (needsData), and the default list leaves those out, saying so.
func evalOptions(ds *data.Dataset, cfg EvaluateConfig) (ope.EvalOptions, error) {
	opt := cfg.Options
	if err := needsData(ds, "--target", []string{cfg.Target}, ope.Estimators{}); err != nil {
		return opt, err
	}
	if ds.NamesOnly() && cfg.EstimatorsDefault {
		opt.Estimators = skipFeatureEstimators(opt.Estimators, cfg.Progress)
	}
	return opt, needsData(ds, "--target", nil, opt.Estimators)
}

// skipFeatureEstimators leaves out of a default estimator list those that
// read the documents' features or labels, saying so in one line on w.
func skipFeatureEstimators(est ope.Estimators, w io.Writer) ope.Estimators {
	var left []string
	for _, v := range est.DM {
		left = append(left, v.Name)
	}
	for _, x := range []struct {
		on   *bool
		name string
	}{{&est.DR, ope.DR}, {&est.WDR, ope.WDR}, {&est.OnPolicy, ope.OnPolicy}} {
		if *x.on {
			left = append(left, x.name)
			*x.on = false
		}
	}
	est.DM = nil
	if len(left) > 0 {
		note(w, "piopt: "+strings.Join(left, ", ")+" left out: without --data there are no features or labels to read")
	}
	return est
}

// note writes one line to w (stderr), when there is one.
func note(w io.Writer, line string) {
	if w != nil {
		fmt.Fprintln(w, line)
	}
}

// passBar returns the progress display of one pass over a log, for
// ope.LogEvaluation.Pass.
func passBar(w io.Writer, label string) func() (func(int64), func()) {
	return func() (func(int64), func()) {
		bar := progress.New(w, label, 0, "impressions")
		return bar.Add, bar.Done
	}
}

// baseline is dr's and wdr's reward model (the zero Baseline when neither
// is estimated): the cross-fitted regression's XGBoost gets threads
// threads (0: the idle cores).
func baseline(ctx context.Context, spec string, folds int, est ope.Estimators, plan *ope.Plan, threads int, seed uint64) (ope.Baseline, error) {
	if !est.DR && !est.WDR {
		return ope.Baseline{}, nil
	}
	opt := policy.DefaultBaselineOptions()
	opt.Threads, opt.Seed = threads, seed
	return policy.ResolveBaseline(ctx, spec, folds, plan.Candidates, plan.Slots, opt)
}

// logMetric returns the log's reward metric with its conventions: conv's
// where stated, else the header's, else conv's (MaxRel 0: the data's
// highest grade); nil when the log names no metric.
func logMetric(conv eval.Conventions, stated []StatedFlag, h data.Header, name string, slots int, ds *data.Dataset) (*eval.Metric, error) {
	if name == "" {
		return nil, nil
	}
	kindName, _, _ := strings.Cut(name, "@")
	kind, err := eval.ParseKind(kindName)
	if err != nil {
		return nil, fmt.Errorf("log metric: %w", err)
	}
	if conv, err = settleMaxRel(conv, ds); err != nil {
		return nil, err
	}
	set := func(flag string) bool {
		return slices.ContainsFunc(stated, func(s StatedFlag) bool { return s.Flag == flag })
	}
	if v := h["discount"]; v != "" && !set("discount") {
		if conv.Discount, err = eval.ParseDiscount(v); err != nil {
			return nil, fmt.Errorf("log header: %w", err)
		}
	}
	if v, ok, err := h.Int("empty-query-ndcg"); err == nil && ok && !set("empty-ndcg") {
		conv.EmptyOne = v == 1
	}
	if v, ok, err := h.Int("err-maxrel"); err == nil && ok && !set("maxrel") {
		if err := eval.CheckMaxRel(v, ds.MaxLabel()); err != nil {
			return nil, fmt.Errorf("log header err-maxrel: %w", err)
		}
		conv.MaxRel = v
	}
	return &eval.Metric{Kind: kind, K: slots, Conventions: conv}, nil
}
