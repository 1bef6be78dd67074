package pipeline

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/internal/atomicfile"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/internal/selection"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/ranker"
)

// SelectConfig is one run of piopt select: rankers ranked by their
// estimated value on one slate log, reading no label.
type SelectConfig struct {
	Data string           // LETOR file the log refers to (its labels are not read); "": none, as for Evaluate
	Read data.ReadOptions // how Data (and PolicyData) is read
	Logs string           // the slate log
	// Setup is the logging setup as given on the command line: checked
	// against the log's header, and the header of a log without one.
	Setup policy.Flags
	// Models is the comma-separated list of rankers (selection.ParseModels),
	// Slate how a PI-OPT model builds its slates.
	Models string
	Slate  ranker.SlateMethod
	// PolicyData, when not "", is the labelled file tree: and lasso: rank
	// sources are fitted on; without it they are refused.
	PolicyData string
	// Estimator ranks the models; Interval is the kind of interval
	// compared with the best model's.
	Estimator, Interval string
	Intervals           ope.Intervals
	Seed                uint64 // Γ's and the rank sources' (the bootstrap's is Intervals.Seed)
	Threads             int    // 0: all cores; results do not depend on it
	JSON                string // when not "", receives the ranking as JSON
	Command             string // the command line, recorded in each model's setup
	Progress            io.Writer
}

// resolver reads rank sources' spellings as package policy does.
type resolver struct{}

func (resolver) Resolve(spec string) (string, bool, error) {
	src, err := policy.Resolve(spec, policy.Options{})
	if err != nil {
		return "", false, err
	}
	_, fitted := src.(*policy.SubsetSource)
	return src.String(), fitted, nil
}

// Select evaluates every model on the log in one pass (PI, wPI, IPS and
// wIPS, each exactly as Evaluate gives it for the model alone) and ranks
// them by the configuration's estimator. Only the log's rewards are read,
// never the dataset's labels: there is no true value.
func Select(ctx context.Context, cfg SelectConfig) (*selection.Selection, error) {
	labelled := cfg.PolicyData != ""
	models, err := selection.ParseModels(cfg.Models, resolver{}, labelled)
	if err != nil {
		return nil, err
	}
	sc := selection.Config{Models: models, Log: cfg.Logs, LogHeader: cfg.Setup.Header(), Resolver: resolver{}, Labelled: labelled,
		PolicyFile: cfg.Setup.Policy != "", Estimator: cfg.Estimator, Interval: cfg.Interval, Intervals: cfg.Intervals}
	if err := sc.Check(); err != nil {
		return nil, err
	}
	ds, rl, err := selectData(ctx, cfg)
	if err != nil {
		return nil, err
	}
	specs := make([]string, len(models))
	for i, m := range models {
		specs[i] = m.Spec
	}
	if err := needsData(ds, "--models", specs, ope.Estimators{}); err != nil {
		return nil, err
	}
	for _, m := range models {
		if m.Model != nil {
			if err := m.Model.Fits(ds); err != nil {
				return nil, fmt.Errorf("--models %s: %w", m.Given, err)
			}
		}
	}
	lr, ls, metricName, err := openSelectLog(cfg, ds, rl)
	if err != nil {
		return nil, err
	}
	defer lr.Close()
	popt, err := PolicyOptions(ctx, cfg.PolicyData, cfg.Read, cfg.Threads, cfg.Seed, cfg.Progress)
	if err != nil {
		return nil, err
	}
	if rl != nil {
		popt.RowTarget = rl.Target
	}
	metric, nonAdditive, err := selectMetric(metricName, ls.Slots)
	if err != nil {
		return nil, err
	}
	// No scorer: labels would give only the true value.
	pc := PlanConfig{Setup: ls, Slate: cfg.Slate, Policy: popt, Seed: cfg.Seed, Threads: cfg.Threads,
		Label: func(i int) string { return "--models " + models[i].Given }, LabelPrepare: true}
	for _, m := range models {
		pc.Targets = append(pc.Targets, m.Spec)
	}
	plans, err := BuildPlans(ctx, ds, pc)
	if err != nil {
		return nil, err
	}
	opt := ope.EvalOptions{Estimators: ope.Estimators{PI: true, WPI: true, IPS: true, WIPS: true}, Intervals: sc.Intervals}
	results, err := ope.EvaluateLogs(ctx, plans.Plans, lr, ope.LogEvaluation{Options: opt, NonAdditive: nonAdditive, Pass: passBar(cfg.Progress, "select")})
	if err != nil {
		return nil, err
	}
	ranked := make([]selection.Model, len(models))
	for i, m := range models {
		// The setup evaluate records, less the conventions of the true
		// value select does not compute.
		info := evaluateSetup(ds, cfg.Logs, ls, plans.Plans[i], results[i], sc.Intervals, cfg.Command)
		info.Metric = metric
		ranked[i] = selection.Model{Name: m.Name, Setup: &info, Result: results[i]}
	}
	sel, err := selection.Rank(ranked, sc.Estimator, sc.Interval, sc.Intervals.Delta, cfg.Logs)
	if err != nil {
		return nil, err
	}
	if err := writeSelection(cfg.JSON, sel); err != nil {
		return nil, err
	}
	return sel, nil
}

// writeSelection writes the selection's JSON to path, when not "".
func writeSelection(path string, sel *selection.Selection) error {
	if path == "" {
		return nil
	}
	v, err := sel.JSON()
	if err != nil {
		return err
	}
	return atomicfile.WriteJSON(path, v)
}

// selectMetric returns the name of the log's reward metric at the log's
// slots ("" when nothing names it) and whether it is not additive over
// slots (ERR).
func selectMetric(name string, slots int) (string, bool, error) {
	if name == "" {
		return "", false, nil
	}
	kindName, _, _ := strings.Cut(name, "@")
	kind, err := eval.ParseKind(kindName)
	if err != nil {
		return "", false, fmt.Errorf("log metric: %w", err)
	}
	return eval.Metric{Kind: kind, K: slots}.Name(), kind == eval.KindERR, nil
}
