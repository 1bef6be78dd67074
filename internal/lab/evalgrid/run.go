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

// runner holds what conditions share: the rank sources' scores, fitted
// once on the whole data, and the current space's query subset.
type runner struct {
	cfg    Config
	grid   []int64
	scores map[string][]float64 // by spec, over cfg.Data
	names  map[string]string    // spec → canonical spelling
	space  *subset
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
	r := &runner{cfg: cfg, grid: grid, scores: map[string][]float64{}, names: map[string]string{}}
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
	if cf, ok := loadCondition(path, key); ok {
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
	cf := &conditionFile{Report: rep, Settings: key, SkippedQueries: skipped}
	if err := cf.write(path); err != nil {
		return nil, false, err
	}
	r.logf("%s: swept in %.1fs (%s)", c.Name(), time.Since(t).Seconds(), path)
	return cf, false, nil
}

// sweep runs condition c: the plan of its logging policy and target on
// its space's queries, swept as evaluate-sweep sweeps.
func (r *runner) sweep(ctx context.Context, c Condition) (*sweep.Report, int, error) {
	cfg := r.cfg
	sub, err := r.subset(c.Space.M)
	if err != nil {
		return nil, 0, err
	}
	cands, gammas, target, err := r.policies(ctx, sub, c)
	if err != nil {
		return nil, 0, err
	}
	kind, err := eval.ParseKind(c.Metric)
	if err != nil {
		return nil, 0, err
	}
	metric := eval.Metric{Kind: kind, K: c.Space.L, Conventions: cfg.Conventions}
	plan, err := ope.Prepare(ctx, ope.Setup{Candidates: cands, Gammas: gammas, Slots: c.Space.L, Target: target,
		Scorer: eval.NewScorer(metric, cands.Labels(), cands.Offsets()), Threads: cfg.Threads})
	if err != nil {
		return nil, 0, err
	}
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
	rankBy := ""
	if c.RankBy != "" {
		rankBy = r.names[c.RankBy]
	}
	rep := sweep.NewReport(sweep.Setup{Data: cfg.Data.Source, Queries: sub.ds.NumQueries(), Metric: metric,
		Slots: c.Space.L, Candidates: c.Space.M, Logging: gammas.Logging().String(), RankBy: rankBy, CandidatesBy: r.names[cfg.Grid.CandidatesBy],
		Target: target.Name(), Samples: cfg.Samples, Runs: cfg.Runs, DMMaxTrain: cfg.DMMaxTrain, Command: cfg.Command,
		PioptVersion: cfg.PioptVersion, XGBoostVersion: cfg.XGBoostVersion, Inputs: cfg.Inputs}, plan, res)
	return rep, sub.skipped, nil
}

// policies builds condition c's candidates (the top M by CandidatesBy,
// in its logging model's order), Γ cache and target on the subset, as
// policy.Setup.Policies and policy.ResolveTarget would from the same
// specs, but from scores fitted once for the whole grid.
func (r *runner) policies(ctx context.Context, sub *subset, c Condition) (*impute.Candidates, *impute.GammaCache, *ope.Target, error) {
	lg, err := impute.ParseLogging(c.Logging)
	if err != nil {
		return nil, nil, nil, err
	}
	by, err := r.subsetScores(ctx, sub, r.cfg.Grid.CandidatesBy)
	if err != nil {
		return nil, nil, nil, err
	}
	var rank []float64
	if c.RankBy != "" {
		if rank, err = r.subsetScores(ctx, sub, c.RankBy); err != nil {
			return nil, nil, nil, err
		}
	}
	cands, err := impute.NewCandidates(sub.ds, policy.CandidateOrder(sub.ds, by, rank, c.Space.M), c.Space.M)
	if err != nil {
		return nil, nil, nil, err
	}
	gammas := impute.NewGammaCache(lg, impute.GammaOptions{Seed: r.cfg.Seed})
	if isModel(c.Target) {
		// A PI-OPT model's slate is no top-ℓ by score: ResolveTarget
		// builds it (loading a model is cheap; nothing is fitted).
		t, err := policy.ResolveTarget(ctx, c.Target, cands, c.Space.L, ranker.SlateGreedy, r.cfg.Policy)
		return cands, gammas, t, err
	}
	ts, err := r.subsetScores(ctx, sub, c.Target)
	if err != nil {
		return nil, nil, nil, err
	}
	t, err := ope.TopTarget(r.names[c.Target], cands, c.Space.L, ts)
	return cands, gammas, t, err
}

func isModel(spec string) bool { return len(spec) > 6 && spec[:6] == "model:" }

// scoresOf returns the scores of rank source spec over the whole data,
// fitting it on first use.
func (r *runner) scoresOf(ctx context.Context, spec string) ([]float64, error) {
	if s, ok := r.scores[spec]; ok {
		return s, nil
	}
	src, err := policy.Resolve(spec, r.cfg.Policy)
	if err != nil {
		return nil, err
	}
	s, err := src.Scores(ctx, r.cfg.Data)
	if err != nil {
		return nil, err
	}
	r.scores[spec], r.names[spec] = s, src.String()
	return s, nil
}

// subsetScores returns spec's scores restricted to the subset's queries.
func (r *runner) subsetScores(ctx context.Context, sub *subset, spec string) ([]float64, error) {
	s, err := r.scoresOf(ctx, spec)
	if err != nil || sub.keep == nil {
		return s, err
	}
	out := make([]float64, 0, sub.ds.NumDocs())
	for _, q := range sub.keep {
		lo, hi := r.cfg.Data.Query(q)
		out = append(out, s[lo:hi]...)
	}
	return out, nil
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
