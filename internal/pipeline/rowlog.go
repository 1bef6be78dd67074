package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/internal/evalreport"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/ope"
)

// openRowLog reads the first pass of a log with a policy in every row
// (data.ScanRowLog): on the LETOR file dataPath when given (its documents
// must hold every id the rows name), else on the names the rows use. Its
// units become a policy file's contexts (the setup's Policy), so that the
// candidates, Γ per distinct policy and the targets are built as for a
// slate log with a policy file. The slots are --slots, else the policy
// file's (--policy, for rows without a policy), else the longest slate.
// The flags of a named logging policy are refused: the rows give it.
func openRowLog(ctx context.Context, dataPath string, ro data.ReadOptions, logs string, f policy.Flags, w io.Writer) (*data.RowLog, policy.Setup, error) {
	if err := rowLogFlags(f); err != nil {
		return nil, policy.Setup{}, err
	}
	var ds *data.Dataset
	if dataPath != "" {
		var err error
		if ds, err = load(ctx, dataPath, ro, w); err != nil {
			return nil, policy.Setup{}, err
		}
	}
	return scanRowLog(ds, logs, f)
}

// rowLogFlags refuses the flags of a named logging policy with a log
// whose rows give it.
func rowLogFlags(f policy.Flags) error {
	for _, kv := range []struct {
		set  bool
		name string
	}{{f.LoggingSet, "logging"}, {f.RankBySet, "rank-by"}, {f.CandidatesSet, "candidates"}, {f.CandidatesBySet, "candidates-by"}} {
		if kv.set {
			return fmt.Errorf("--%s: a log with a policy per row gives the logging policy in its rows (or --policy FILE for rows without one); leave --%s out", kv.name, kv.name)
		}
	}
	return nil
}

// scanRowLog is openRowLog's first pass on the dataset ds (nil: the names
// the rows use).
func scanRowLog(ds *data.Dataset, logs string, f policy.Flags) (*data.RowLog, policy.Setup, error) {
	slots := 0
	if f.SlotsSet {
		slots = f.Slots
	}
	rl, err := data.ScanRowLog(logs, data.RowLogOptions{Data: ds, Slots: slots, PolicyFile: f.Policy})
	if err != nil {
		return nil, policy.Setup{}, err
	}
	return rl, policy.Setup{Slots: rl.Slots, Policy: rl.Policy}, nil
}

// rowTarget is the target of a row log: spec, or, when none was given,
// the rows' own targets (row).
func rowTarget(spec string, rl *data.RowLog) (string, error) {
	if spec != "" {
		return spec, nil
	}
	if rl.Target == nil {
		return "", errors.New("give one target: --target SPEC, --target-policy FILE or --target-scores FILE (no row of the log carries a target; a target is " + policy.TargetKinds + ")")
	}
	return policy.RowTargetKind, nil
}

// evaluateRowLog is Evaluate on a log with a policy in every row: the
// same plan and estimators, the log read in two passes (its units, then
// its impressions).
func evaluateRowLog(ctx context.Context, cfg EvaluateConfig) (*EvaluateResult, error) {
	rl, ls, err := openRowLog(ctx, cfg.Data, cfg.Read, cfg.Logs, cfg.Setup, cfg.Progress)
	if err != nil {
		return nil, err
	}
	ds := rl.Dataset
	if cfg.Target, err = rowTarget(cfg.Target, rl); err != nil {
		return nil, err
	}
	opt, err := evalOptions(ds, cfg)
	if err != nil {
		return nil, err
	}
	name := ""
	if cfg.Setup.MetricSet {
		name = cfg.Setup.Metric
	}
	metric, nonAdditive, err := evaluateMetric(cfg, data.Header{}, name, ls.Slots, ds)
	if err != nil {
		return nil, err
	}
	if metric == nil && opt.Estimators.OnPolicy && cfg.EstimatorsDefault {
		opt.Estimators.OnPolicy = false
		note(cfg.Progress, "piopt: onpolicy left out: no reward metric (--metric) scores the target's true value")
	}
	plan, err := rowPlan(ctx, cfg, rl, ls, metric)
	if err != nil {
		return nil, err
	}
	return evaluateRowPlan(ctx, cfg, opt, rl, ls, plan, metric, nonAdditive)
}

// rowPlan builds the target's plan over a row log's units.
func rowPlan(ctx context.Context, cfg EvaluateConfig, rl *data.RowLog, ls policy.Setup, metric *eval.Metric) (*ope.Plan, error) {
	popt, err := PolicyOptions(ctx, cfg.PolicyData, cfg.Read, cfg.Threads, cfg.Seed, cfg.Progress)
	if err != nil {
		return nil, err
	}
	popt.RowTarget = rl.Target
	plans, err := BuildPlans(ctx, rl.Dataset, PlanConfig{Setup: ls, Targets: []string{cfg.Target}, Slate: cfg.Slate, Policy: popt,
		Seed: cfg.Seed, Metric: metric, Threads: cfg.Threads, Label: func(int) string { return "--target" }})
	if err != nil {
		return nil, err
	}
	return plans.Plans[0], nil
}

// evaluateRowPlan runs the estimators of a row log's plan, as Evaluate
// does on a slate log's.
func evaluateRowPlan(ctx context.Context, cfg EvaluateConfig, opt ope.EvalOptions, rl *data.RowLog, ls policy.Setup, plan *ope.Plan, metric *eval.Metric, nonAdditive bool) (*EvaluateResult, error) {
	ds := rl.Dataset
	if len(opt.Estimators.DM) > 0 && cfg.EstimatorsDefault && plan.HasUnseen() {
		opt.Estimators.DM = nil
		note(cfg.Progress, "piopt: dm left out: the target shows documents the logging policy never shows, which DM cannot score")
	}
	opt.Regressors = policy.DMRegressors(policy.DMOptions{Depth: cfg.DM.Depth, L1: cfg.DM.L1, Threads: cfg.Threads, Seed: cfg.Seed})
	var err error
	if opt.Baseline, err = baseline(ctx, cfg.Baseline, cfg.BaselineFolds, opt.Estimators, plan, cfg.Threads, cfg.Seed); err != nil {
		return nil, err
	}
	open := func() (*data.LogReader, error) {
		lr, err := rl.Open()
		if err == nil {
			cfg.Shard.apply(lr)
		}
		return lr, err
	}
	lr, err := open()
	if err != nil {
		return nil, err
	}
	defer lr.Close()
	e := &evaluation{cfg: cfg, ds: ds, ls: ls, plan: plan, opt: opt, metric: metric, nonAdditive: nonAdditive}
	return e.read(ctx, lr, open)
}

// rowSetup corrects the setup evaluateSetup describes for a row log: its
// logging policy is in its rows, and the policy file, if any, is --policy's
// (for rows without a policy).
func rowSetup(setup *evalreport.EvaluateSetup, cfg EvaluateConfig) {
	setup.Policy = cfg.Setup.Policy
	if setup.Policy == "" {
		setup.Logging = "per row"
	}
}
