package pipeline

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/ranker"
)

// PlanConfig is an off-policy evaluation problem as the commands name it:
// the logging setup, the target policies by their spellings, and how to
// build them. Evaluate, Sweep, Select and the evaluation grid
// (internal/lab/evalgrid) all build their plans from one with BuildPlans.
type PlanConfig struct {
	// Setup is the logging policy μ: from a log's header (policy.ReadSetup)
	// or from flags (policy.ParseSetup).
	Setup policy.Setup
	// Targets are the target policies π (any spelling policy.ResolveTarget
	// reads): evaluate's --target, or select's models.
	Targets []string
	// Slate is how a PI-OPT model target builds its slates.
	Slate ranker.SlateMethod
	// Policy fits the rank sources (Train: --policy-data; nil: the data).
	Policy policy.Options
	// Seed seeds Γ's Monte Carlo estimate, where it is not exact.
	Seed uint64
	// Metric, when not nil, scores slates with the dataset's labels: the
	// true value, and the rewards of simulated logs.
	Metric *eval.Metric
	// Threads bounds Prepare's goroutines (0: all cores).
	Threads int
	// Label, when not nil, names target i in the errors of resolving it
	// (evaluate's "--target", select's "--models NAME"), and, with
	// LabelPrepare, in those of preparing its plan.
	Label        func(i int) string
	LabelPrepare bool
}

// Plans are the plans of a PlanConfig's targets, over one logging setup.
type Plans struct {
	Candidates *impute.Candidates // every unit's candidates A(x)
	Gammas     *impute.GammaCache // the logging policy's Γ
	Plans      []*ope.Plan        // one per target, in order
	// PolicyTime is the time spent building the candidates, Γ's cache and
	// the targets (fitting rank sources); PrepareTime solving every Γ.
	PolicyTime, PrepareTime time.Duration
}

// BuildPlans builds the logging setup's candidates and Γ cache on ds, then
// every target over those candidates, then every target's plan (Γ† q_π per
// context, each Γ computed once for every target and released after), so
// that a target that fails does so before any Γ is solved.
func BuildPlans(ctx context.Context, ds *data.Dataset, cfg PlanConfig) (*Plans, error) {
	t0 := time.Now()
	cands, gammas, err := cfg.Setup.Policies(ctx, ds, cfg.Policy, impute.GammaOptions{Seed: cfg.Seed})
	if err != nil {
		return nil, err
	}
	targets := make([]*ope.Target, len(cfg.Targets))
	for i, spec := range cfg.Targets {
		if targets[i], err = policy.ResolveTarget(ctx, spec, cands, cfg.Setup.Slots, cfg.Slate, cfg.Policy); err != nil {
			return nil, cfg.label(i, err)
		}
	}
	out := &Plans{Candidates: cands, Gammas: gammas, PolicyTime: time.Since(t0)}
	t0 = time.Now()
	setup := ope.Setup{Candidates: cands, Gammas: gammas, Slots: cfg.Setup.Slots, Threads: cfg.Threads}
	if cfg.Metric != nil {
		setup.Scorer = eval.NewScorer(*cfg.Metric, cands.Labels(), cands.Offsets())
	}
	plans, failed, err := ope.PrepareTargets(ctx, setup, targets)
	if err != nil {
		if cfg.LabelPrepare {
			err = cfg.label(failed, err)
		}
		return nil, err
	}
	out.Plans = plans
	out.PrepareTime = time.Since(t0)
	return out, nil
}

// label names target i in err.
func (cfg PlanConfig) label(i int, err error) error {
	if cfg.Label == nil {
		return err
	}
	return fmt.Errorf("%s: %w", cfg.Label(i), err)
}

// PolicyOptions are the options fitting rank sources with threads and
// seed: on the labelled file policyData when given (read with opt, its
// progress on w), else on the data they score.
func PolicyOptions(ctx context.Context, policyData string, opt data.ReadOptions, threads int, seed uint64, w io.Writer) (policy.Options, error) {
	popt := policy.Options{Threads: threads, Seed: seed}
	if policyData != "" {
		ds, err := load(ctx, policyData, opt, w)
		if err != nil {
			return popt, err
		}
		popt.Train = ds
	}
	return popt, nil
}

// Load reads the LETOR file at path with opt, showing a progress bar of
// the bytes read on w (a terminal), as every verb reads its data.
func Load(ctx context.Context, path string, opt data.ReadOptions, w io.Writer) (*data.Dataset, error) {
	return load(ctx, path, opt, w)
}

// SettleMaxRel returns conv with ERR's maxrel settled on the datasets, as
// every verb settles it: 0 takes their highest grade, and a given one
// below it is refused.
func SettleMaxRel(conv eval.Conventions, ds ...*data.Dataset) (eval.Conventions, error) {
	return settleMaxRel(conv, ds...)
}
