package evalgrid

import (
	"context"
	"fmt"
	"github.com/piopt/piopt/internal/lab/sweep"
	"github.com/piopt/piopt/internal/provenance"
	"slices"
	"time"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/parallel"
	"github.com/piopt/piopt/internal/pipeline"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/ranker"
)

// Config is one grid run.
type Config struct {
	Data *data.Dataset
	// Inputs are the data files with their hashes (provenance.HashInputs):
	// the provenance, and part of every condition's settings hash, so that
	// changed data reruns.
	Inputs      []provenance.Input
	Conventions eval.Conventions // of both metrics (ERR's maxrel from the full data)
	Grid        Definition

	// The sweep of every condition, as evaluate-sweep's flags.
	Samples         int64
	Runs            int
	Seed            uint64
	MinSamples      int64
	PointsPerDecade int
	// AggregateAt are the log sizes of the aggregate (the paper: 60 000
	// and 600 000); they are added to the sweep's grid.
	AggregateAt []int64
	Estimators  ope.Estimators
	DM          policy.DMOptions // depth and L1 of DM (threads and seed set per sweep)
	DMMaxTrain  int
	CVFolds     int // pi-cv's folds (0: ope.DefaultCVFolds)
	// BaselineFolds are dr's cross-fitting folds (0:
	// DefaultBaselineFolds); its reward model is
	// policy.DefaultBaselineOptions' regression.
	BaselineFolds int
	// Policy trains the rank sources (its Train: --policy-data; nil: Data).
	Policy  policy.Options
	Threads int

	Out                                   string // folder of conditions/, grid.json, grid.html, run.json
	Command, PioptVersion, XGBoostVersion string

	// Log receives one line per finished or loaded condition; nil is silent.
	Log func(line string)
	// Progress, when not nil, is called with the samples simulated (the
	// whole grid is Conditions × Runs × Samples; a loaded condition counts
	// at once); Status with the running condition's name.
	Progress func(n int64)
	Status   func(s string)
}

// SweepGrid returns the log sizes every condition is evaluated at:
// LogGrid(MinSamples, Samples, PointsPerDecade) with AggregateAt added.
func (c Config) SweepGrid() ([]int64, error) {
	for _, n := range c.AggregateAt {
		if n < c.MinSamples || n > c.Samples {
			return nil, fmt.Errorf("--aggregate-at %d: must lie in the sweep's %d..%d (--min-samples..--samples)", n, c.MinSamples, c.Samples)
		}
	}
	return c.withAggregate(sweep.LogGrid(c.MinSamples, c.Samples, c.PointsPerDecade)), nil
}

// withAggregate returns the sizes g with the AggregateAt sizes added,
// sorted.
func (c Config) withAggregate(g []int64) []int64 {
	for _, n := range c.AggregateAt {
		if !slices.Contains(g, n) {
			g = append(g, n)
		}
	}
	slices.Sort(g)
	return g
}

// DefaultBaselineFolds is evaluate-grid's number of dr's cross-fitting
// folds: 2, not evaluate's 10, since the grid fits K models per run, per
// dr size and per condition (about 2 s a fit on a (100, 10) condition of a
// WEB30K-shaped partition).
const DefaultBaselineFolds = 2

func (c Config) baselineFolds() int {
	if c.BaselineFolds > 0 {
		return c.BaselineFolds
	}
	return DefaultBaselineFolds
}

// FitPoints returns the log sizes of the grid where the estimators that
// fit models are computed (DM's variants, dr and wdr): one per decade of
// LogGrid(MinSamples, Samples, 1) and the AggregateAt sizes. Each point
// costs, per run, a fit per DM model (the lasso's 200 coordinate-descent
// sweeps dominate the grid's time when fitted at every size) and
// BaselineFolds fits for dr; the chart joins the points and the aggregate
// needs only its own sizes.
func (c Config) FitPoints() []int64 {
	return c.withAggregate(sweep.LogGrid(c.MinSamples, c.Samples, 1))
}

// Check reports settings that would fail only after data is loaded.
func (c Config) Check() error {
	switch {
	case c.Samples < 1 || c.Runs < 1:
		return fmt.Errorf("evalgrid: %d runs × %d samples: both must be ≥ 1", c.Runs, c.Samples)
	case c.MinSamples < 1 || c.MinSamples > c.Samples:
		return fmt.Errorf("evalgrid: smallest log size %d must lie in 1..%d", c.MinSamples, c.Samples)
	case len(c.AggregateAt) == 0:
		return fmt.Errorf("evalgrid: no aggregate size")
	}
	if _, err := c.SweepGrid(); err != nil {
		return err
	}
	for _, spec := range append(append([]string{c.Grid.CandidatesBy}, c.Grid.LoggingModels...), c.Grid.Targets...) {
		if _, err := policy.Resolve(spec, policy.Options{}); err != nil {
			return err
		}
	}
	for _, c := range c.Grid.Conditions() {
		if _, err := impute.ParseLogging(c.Logging); err != nil {
			return err
		}
	}
	return c.Grid.Check()
}

// runner holds what conditions share: the rank sources, fitted once on
// the whole data (or Policy.Train), and the current space's query subset.
type runner struct {
	cfg     Config
	grid    []int64
	sources *policy.Sources
	space   *subset
}

// subset is the data of one slate space: the queries with at least M
// documents.
type subset struct {
	m       int
	ds      *data.Dataset
	keep    []int // query indices into cfg.Data
	skipped int
}

// Run runs (or loads) every condition of the grid and aggregates them.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	start := time.Now()
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	grid, _ := cfg.SweepGrid()
	r := &runner{cfg: cfg, grid: grid, sources: policy.NewSources()}
	rep := newReport(cfg, grid)
	for _, c := range cfg.Grid.Conditions() {
		t := time.Now()
		cr, loaded, err := r.condition(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("condition %s: %w", c.Name(), err)
		}
		rep.add(c, cr)
		rep.Run.Conditions = append(rep.Run.Conditions, RunCondition{Name: c.Name(), Loaded: loaded, Seconds: time.Since(t).Seconds()})
	}
	rep.aggregate()
	rep.Run.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// logf passes a line to cfg.Log.
func (r *runner) logf(format string, args ...any) {
	if r.cfg.Log != nil {
		r.cfg.Log(fmt.Sprintf(format, args...))
	}
}

// condition loads condition c's finished sweep, or runs and writes it.
func (r *runner) condition(ctx context.Context, c Condition) (*conditionFile, bool, error) {
	key, err := r.settings(c)
	if err != nil {
		return nil, false, err
	}
	path := r.cfg.conditionPath(c)
	cf, ok, sealErr := loadCondition(path, key)
	if sealErr != nil {
		r.logf("%s: recomputed: %s: %v", c.Name(), path, sealErr)
	}
	if ok {
		r.logf("%s: loaded, finished earlier with the same settings (%s)", c.Name(), path)
		if r.cfg.Progress != nil {
			r.cfg.Progress(r.cfg.Samples * int64(r.cfg.Runs))
		}
		return cf, true, nil
	}
	if r.cfg.Status != nil {
		r.cfg.Status(c.Name())
	}
	t := time.Now()
	rep, skipped, err := r.sweep(ctx, c)
	if err != nil {
		return nil, false, err
	}
	cf = &conditionFile{Report: rep, Settings: key, SkippedQueries: skipped}
	if err := cf.write(path); err != nil {
		return nil, false, err
	}
	r.logf("%s: swept in %.1fs (%s)", c.Name(), time.Since(t).Seconds(), path)
	return cf, false, nil
}

// sweep runs condition c: the plan of its logging policy and target on
// its space's queries (pipeline.BuildPlans, as evaluate-sweep builds it),
// swept as evaluate-sweep sweeps.
func (r *runner) sweep(ctx context.Context, c Condition) (*sweep.Report, int, error) {
	cfg := r.cfg
	sub, err := r.subset(c.Space.M)
	if err != nil {
		return nil, 0, err
	}
	setup, err := r.setup(c)
	if err != nil {
		return nil, 0, err
	}
	kind, err := eval.ParseKind(c.Metric)
	if err != nil {
		return nil, 0, err
	}
	metric := eval.Metric{Kind: kind, K: c.Space.L, Conventions: cfg.Conventions}
	// The rank sources are fitted on the whole data (not the space's
	// subset) once for the grid, and score each space's subset once.
	popt := cfg.Policy
	if popt.Train == nil {
		popt.Train = cfg.Data
	}
	popt.Sources = r.sources
	plans, err := pipeline.BuildPlans(ctx, sub.ds, pipeline.PlanConfig{Setup: setup, Targets: []string{c.Target}, Slate: ranker.SlateGreedy,
		Policy: popt, Seed: cfg.Seed, Metric: &metric, Threads: cfg.Threads})
	if err != nil {
		return nil, 0, err
	}
	plan := plans.Plans[0]
	// As evaluate-sweep: runs simulated min(threads, runs) at a time, each
	// DM fit with the threads left over.
	threads := parallel.Workers(cfg.Threads)
	dm := cfg.DM
	dm.Threads, dm.Seed = max(1, threads/min(threads, cfg.Runs)), cfg.Seed
	phi := policy.DefaultBaselineOptions()
	phi.Threads, phi.Seed = dm.Threads, cfg.Seed
	res, err := sweep.Sweep(ctx, plan, sweep.Config{Samples: cfg.Samples, Runs: cfg.Runs, Seed: cfg.Seed, Grid: r.grid,
		Estimators: cfg.Estimators, Regressors: policy.DMRegressors(dm), DMMaxTrain: cfg.DMMaxTrain, Threads: threads, Progress: cfg.Progress,
		CVFolds: cfg.CVFolds, Baseline: ope.Baseline{Name: policy.Crossfit, Fitter: policy.NewPhiFitter(phi), Folds: cfg.baselineFolds()},
		FitPoints: cfg.FitPoints()})
	if err != nil {
		return nil, 0, err
	}
	rep := sweep.NewReport(sweep.Setup{Data: cfg.Data.Source, Queries: sub.ds.NumQueries(), Metric: metric,
		Slots: c.Space.L, Candidates: c.Space.M, Logging: setup.Logging.String(), RankBy: setup.RankBy, CandidatesBy: setup.CandidatesBy,
		Target: plan.Target.Name(), Samples: cfg.Samples, Runs: cfg.Runs, DMMaxTrain: cfg.DMMaxTrain, Command: cfg.Command,
		PioptVersion: cfg.PioptVersion, XGBoostVersion: cfg.XGBoostVersion, Inputs: cfg.Inputs}, plan, res)
	return rep, sub.skipped, nil
}

// setup is condition c's logging setup: its top M candidates by
// CandidatesBy, ordered by its logging model (for pa), with the rank
// sources in their canonical spellings.
func (r *runner) setup(c Condition) (policy.Setup, error) {
	lg, err := impute.ParseLogging(c.Logging)
	if err != nil {
		return policy.Setup{}, err
	}
	s := policy.Setup{Slots: c.Space.L, Logging: lg, Limit: c.Space.M}
	for _, f := range []struct {
		spec string
		to   *string
	}{{r.cfg.Grid.CandidatesBy, &s.CandidatesBy}, {c.RankBy, &s.RankBy}} {
		if f.spec == "" {
			continue
		}
		src, err := policy.Resolve(f.spec, policy.Options{})
		if err != nil {
			return policy.Setup{}, err
		}
		*f.to = src.String()
	}
	return s, nil
}

// subset returns the queries with at least m documents, keeping one
// space's subset at a time (the conditions come space by space).
func (r *runner) subset(m int) (*subset, error) {
	if r.space != nil && r.space.m == m {
		return r.space, nil
	}
	r.space = nil // free the previous one first
	ds, keep := Keep(r.cfg.Data, m)
	if ds.NumQueries() == 0 {
		return nil, fmt.Errorf("no query of %s has %d documents or more", r.cfg.Data.Source, m)
	}
	r.space = &subset{m: m, ds: ds, keep: keep, skipped: r.cfg.Data.NumQueries() - ds.NumQueries()}
	r.logf("slate space with m = %d: %d of %d queries skipped, fewer than %d documents", m, r.space.skipped, r.cfg.Data.NumQueries(), m)
	return r.space, nil
}

// Keep returns the dataset of the queries of ds with at least m documents
// and their indices in ds; ds itself and nil when every query has. The
// copy's documents are named by position.
func Keep(ds *data.Dataset, m int) (*data.Dataset, []int) {
	var keep []int
	docs := 0
	for q := range ds.NumQueries() {
		if ds.QuerySize(q) >= m {
			keep = append(keep, q)
			docs += ds.QuerySize(q)
		}
	}
	if len(keep) == ds.NumQueries() {
		return ds, nil
	}
	nf := ds.NumFeatures
	out := &data.Dataset{NumFeatures: nf, Source: ds.Source, QueryOffsets: []int{0},
		Features: make([]float32, 0, docs*nf), Labels: make([]uint8, 0, docs)}
	for _, q := range keep {
		lo, hi := ds.Query(q)
		out.Features = append(out.Features, ds.Features[lo*nf:hi*nf]...)
		out.Labels = append(out.Labels, ds.Labels[lo:hi]...)
		out.QIDs = append(out.QIDs, ds.QIDs[q])
		out.QueryOffsets = append(out.QueryOffsets, len(out.Labels))
	}
	return out, keep
}
