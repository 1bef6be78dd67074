package pipeline

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/internal/lab/sweep"
	"github.com/piopt/piopt/internal/parallel"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/internal/progress"
	"github.com/piopt/piopt/internal/provenance"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/ranker"
)

// SweepConfig is one run of piopt evaluate-sweep, the paper's
// semi-synthetic protocol (Sec. 4.1; internal/lab/sweep): Runs logs of
// Samples impressions simulated under Setup, every estimator of Target's
// value computed on their prefixes on a log-spaced grid and compared with
// the true value from the labels.
type SweepConfig struct {
	Data string           // LETOR file whose labels give the rewards and the true value
	Read data.ReadOptions // how Data (and PolicyData) is read
	// Setup is the logging policy μ (policy.ParseSetup), Metric the reward
	// at k = Setup.Slots with Conventions (MaxRel 0: the data's highest
	// grade).
	Setup       policy.Setup
	Metric      eval.Kind
	Conventions eval.Conventions
	// Target is the target policy's spelling, Slate how a PI-OPT model
	// target builds its slates, PolicyData the labelled file tree: and
	// lasso: rank sources are fitted on ("": Data).
	Target     string
	Slate      ranker.SlateMethod
	PolicyData string
	Estimators ope.Estimators
	CVFolds    int              // pi-cv's folds
	DM         policy.DMOptions // DM's depth and L1 (threads and seed set here)
	// Baseline is dr's reward model (policy.Crossfit or model:PATH) and
	// BaselineFolds its cross-fitting folds.
	Baseline      string
	BaselineFolds int
	// Samples is the largest log size, Runs the logs, Seed run 1's (run k
	// uses Seed+k−1); the grid runs from MinSamples with PointsPerDecade
	// points per factor 10; DMMaxTrain caps DM's training rows (0: n/2).
	Samples         int64
	Runs            int
	Seed            uint64
	MinSamples      int64
	PointsPerDecade int
	DMMaxTrain      int
	Threads         int // 0: all cores; results do not depend on it
	// JSON and HTML, when not "", receive the report, and the run record
	// beside the first of them.
	JSON, HTML string
	// Command, PioptVersion and XGBoostVersion are recorded in the report.
	Command, PioptVersion, XGBoostVersion string
	Progress                              io.Writer // progress bars (shown only on a terminal)
}

// SweepResult is a sweep's report and the times of its stages.
type SweepResult struct {
	Report *sweep.Report
	// Load, Policies and Prepare are the times of reading the data,
	// building the candidates and the target, and solving Γ.
	Load, Policies, Prepare time.Duration
	Simulate, DM            time.Duration
	Samples                 int64
	Runs                    int
	dr                      bool // dr or wdr was estimated
}

// WriteTimes writes the line piopt evaluate-sweep prints on standard
// error: the time of every stage.
func (r *SweepResult) WriteTimes(w io.Writer) {
	fits := "DM"
	if r.dr {
		fits = "DM and dr"
	}
	fmt.Fprintf(w, "evaluate-sweep: load %.1fs, policies %.1fs, Γ and plan %.1fs, simulate %.1fs (%d runs × %d samples), %s %.1fs\n",
		r.Load.Seconds(), r.Policies.Seconds(), r.Prepare.Seconds(), r.Simulate.Seconds(), r.Runs, r.Samples, fits, r.DM.Seconds())
}

// Sweep runs the paper's semi-synthetic protocol: it builds the plan of
// the target against the logging setup on the data, sweeps it
// (sweep.Sweep) and writes the report and its run record.
func Sweep(ctx context.Context, cfg SweepConfig) (*SweepResult, error) {
	start := time.Now()
	ds, err := load(ctx, cfg.Data, cfg.Read, cfg.Progress)
	if err != nil {
		return nil, err
	}
	conv, err := settleMaxRel(cfg.Conventions, ds)
	if err != nil {
		return nil, err
	}
	metric := eval.Metric{Kind: cfg.Metric, K: cfg.Setup.Slots, Conventions: conv}
	popt, err := PolicyOptions(ctx, cfg.PolicyData, cfg.Read, cfg.Threads, cfg.Seed, cfg.Progress)
	if err != nil {
		return nil, err
	}
	out := &SweepResult{Load: time.Since(start), Samples: cfg.Samples, Runs: cfg.Runs, dr: cfg.Estimators.Baseline()}
	t0 := time.Now()
	inputs, err := provenance.HashInputs(ds.Source)
	if err != nil {
		return nil, err
	}
	tHash := time.Since(t0)
	plans, err := BuildPlans(ctx, ds, PlanConfig{Setup: cfg.Setup, Targets: []string{cfg.Target}, Slate: cfg.Slate, Policy: popt,
		Seed: cfg.Seed, Metric: &metric, Threads: cfg.Threads, Label: func(int) string { return "--target" }})
	if err != nil {
		return nil, err
	}
	out.Policies, out.Prepare = plans.PolicyTime, plans.PrepareTime
	plan := plans.Plans[0]
	res, err := runSweep(ctx, cfg, plan)
	if err != nil {
		return nil, err
	}
	out.Simulate, out.DM = res.SimulateTime, res.DMTime
	ls := cfg.Setup
	out.Report = sweep.NewReport(sweep.Setup{Data: ds.Source, Queries: ds.NumQueries(), Metric: metric,
		Slots: ls.Slots, Candidates: ls.Limit, Logging: ls.Logging.String(), RankBy: ls.RankBy, CandidatesBy: ls.CandidatesBy,
		Target: plan.Target.Name(), Samples: cfg.Samples, Runs: cfg.Runs, DMMaxTrain: cfg.DMMaxTrain, Command: cfg.Command,
		PioptVersion: cfg.PioptVersion, XGBoostVersion: cfg.XGBoostVersion, Inputs: inputs}, plan, res)
	out.Report.Run = sweep.NewRunRecord(start, parallel.Workers(cfg.Threads), map[string]time.Duration{"load": out.Load, "hash": tHash,
		"policies": out.Policies, "prepare": out.Prepare, "simulate": res.SimulateTime, "dm": res.DMTime})
	if err := out.Report.WriteFiles(cfg.JSON, cfg.HTML); err != nil {
		return nil, err
	}
	return out, nil
}

// runSweep sweeps the plan as cfg says, showing progress: runs are
// simulated and DM-fitted min(threads, runs) at a time, each DM fit with
// the threads left over.
func runSweep(ctx context.Context, cfg SweepConfig, plan *ope.Plan) (*sweep.Result, error) {
	grid := sweep.LogGrid(cfg.MinSamples, cfg.Samples, cfg.PointsPerDecade)
	threads := parallel.Workers(cfg.Threads)
	fitThreads := max(1, threads/min(threads, cfg.Runs))
	bar := progress.New(cfg.Progress, "evaluate-sweep", cfg.Samples*int64(cfg.Runs), "samples")
	sc := sweep.Config{Samples: cfg.Samples, Runs: cfg.Runs, Seed: cfg.Seed, Grid: grid, Estimators: cfg.Estimators,
		Regressors: policy.DMRegressors(policy.DMOptions{Depth: cfg.DM.Depth, L1: cfg.DM.L1, Threads: fitThreads, Seed: cfg.Seed}),
		DMMaxTrain: cfg.DMMaxTrain, Threads: threads, Progress: bar.Add, CVFolds: cfg.CVFolds}
	var err error
	if sc.Baseline, err = baseline(ctx, cfg.Baseline, cfg.BaselineFolds, cfg.Estimators, plan, fitThreads, cfg.Seed); err != nil {
		bar.Done()
		return nil, err
	}
	// DM's and dr's fits follow the simulation, on a bar of their own.
	label := "evaluate-sweep: DM fits"
	if cfg.Estimators.Baseline() {
		label = "evaluate-sweep: DM and dr fits"
	}
	var dmDone func()
	sc.DMProgress, dmDone = progress.Later(cfg.Progress, label, sc.DMPoints(), "points")
	res, err := sweep.Sweep(ctx, plan, sc)
	bar.Done()
	dmDone()
	return res, err
}
