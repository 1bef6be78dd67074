package pipeline

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/atomicfile"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/internal/progress"
)

// SimulateConfig is one run of piopt simulate.
type SimulateConfig struct {
	Data string           // LETOR file whose labels give the rewards
	Read data.ReadOptions // how Data is read
	// Setup is the logging policy μ: slots ℓ, logging, rank source and
	// candidates.
	Setup policy.Setup
	// Metric is the reward of a slate, at cut-off ℓ; Conventions with
	// MaxRel 0 take the data's highest grade.
	Metric      eval.Kind
	Conventions eval.Conventions
	Samples     int64  // impressions n, ≥ 1
	Seed        uint64 // the same seed gives the same bytes
	Out         string // slate log to write
	// PolicyOut, when not "", also receives the policy file of what was
	// logged (one context per query), which the log's header then names.
	PolicyOut string
	Progress  io.Writer // progress bars (shown only on a terminal)
}

// SimulateResult summarises a simulated log.
type SimulateResult struct {
	Impressions int64
	Queries     int
	Logging     impute.Logging
	Metric      eval.Metric
	Mean        float64 // mean reward
	Out         string
}

// String is the line piopt simulate prints on standard error.
func (r *SimulateResult) String() string {
	return fmt.Sprintf("simulate: %d impressions over %d queries, logging %s, mean %s %.4f (%s) → %s",
		r.Impressions, r.Queries, r.Logging, r.Metric.Name(), r.Mean, r.Metric.Conventions, r.Out)
}

// Simulate writes a semi-synthetic slate log: every impression picks a
// query x uniformly at random, draws a slate s ~ μ(·|x) of ℓ distinct
// candidates and records the slate's metric under the hidden labels as its
// only reward. Any prefix of the log is itself an i.i.d. log.
func Simulate(ctx context.Context, cfg SimulateConfig) (*SimulateResult, error) {
	if cfg.Samples < 1 {
		return nil, fmt.Errorf("--samples %d: must be ≥ 1", cfg.Samples)
	}
	if cfg.Data == "" {
		return nil, fmt.Errorf("--data is required")
	}
	ds, err := load(ctx, cfg.Data, cfg.Read, cfg.Progress)
	if err != nil {
		return nil, err
	}
	conv, err := settleMaxRel(cfg.Conventions, ds)
	if err != nil {
		return nil, err
	}
	spec := SimulationSpec{DataPath: cfg.Data, Setup: cfg.Setup, Metric: eval.Metric{Kind: cfg.Metric, K: cfg.Setup.Slots, Conventions: conv},
		Samples: cfg.Samples, Seed: cfg.Seed}
	sim, gammas, err := spec.simulation(ctx, ds)
	if err != nil {
		return nil, err
	}
	header := spec.header(ds)
	if po := cfg.PolicyOut; po != "" {
		// The log's header names the policy file and its content hash, so
		// that a log and a policy file that do not belong together (a re-run
		// stopped half-way) are refused when read.
		sum := data.NewContentHash()
		err := atomicfile.WriteWith(po, func(w io.Writer) error {
			return data.WritePolicy(io.MultiWriter(w, sum), data.Header{}, spec.Setup.Slots, spec.Setup.PolicyEntries(sim.Candidates, gammas), ds)
		})
		if err != nil {
			return nil, err
		}
		header["policy"] = filepath.Base(po)
		header[data.PolicyHashKey] = sum.Sum()
	}
	write := writeLog
	if data.IsRowLog(cfg.Out) {
		write = writeRowLog(spec.Setup.PolicyEntries(sim.Candidates, gammas))
	}
	sum, err := write(ctx, cfg, ds, sim, header)
	if err != nil {
		return nil, err
	}
	return &SimulateResult{Impressions: cfg.Samples, Queries: ds.NumQueries(), Logging: spec.Setup.Logging, Metric: spec.Metric,
		Mean: sum / float64(cfg.Samples), Out: cfg.Out}, nil
}

// writeLog runs sim for cfg.Samples impressions into the log cfg.Out and
// returns the sum of the rewards.
func writeLog(ctx context.Context, cfg SimulateConfig, ds *data.Dataset, sim *impute.Simulation, header data.Header) (float64, error) {
	f, err := atomicfile.Create(cfg.Out)
	if err != nil {
		return 0, err
	}
	defer f.Abort()
	lw, err := data.NewLogWriter(f, header, ds)
	if err != nil {
		return 0, err
	}
	sum, err := simulateRows(ctx, cfg, sim, func(q int, docs []int32, r float64) error {
		return lw.Write(ds.QIDs[q], q, docs, r)
	})
	if err != nil {
		return 0, err
	}
	return sum, f.Commit()
}

// simulateRows runs sim for cfg.Samples impressions, handing each to write
// (context q, the slate's document positions, the reward), and returns
// the sum of the rewards.
func simulateRows(ctx context.Context, cfg SimulateConfig, sim *impute.Simulation, write func(q int, docs []int32, r float64) error) (float64, error) {
	cands := sim.Candidates
	bar := progress.New(cfg.Progress, "simulate", cfg.Samples, "samples")
	docs := make([]int32, sim.Slots)
	sum, done := 0.0, int64(0)
	err := sim.Run(ctx, cfg.Samples, func(q int, slate []int32, r float64) error {
		cd := cands.Docs(q)
		d := docs[:len(slate)]
		for j, a := range slate {
			d[j] = cd[a]
		}
		sum += r
		if done++; done&1023 == 0 {
			bar.Add(1024)
		}
		return write(q, d, r)
	})
	bar.Done()
	if err != nil {
		return 0, fmt.Errorf("simulate: %w", err)
	}
	return sum, nil
}

// writeRowLog is writeLog for a log with a policy in every row (Out ends
// in .jsonl or .jsonl.gz): each impression carries its context's logging
// policy, entries[q] (what --policy-out writes); the header has no place
// there.
func writeRowLog(entries []data.PolicyEntry) func(context.Context, SimulateConfig, *data.Dataset, *impute.Simulation, data.Header) (float64, error) {
	return func(ctx context.Context, cfg SimulateConfig, ds *data.Dataset, sim *impute.Simulation, _ data.Header) (float64, error) {
		if strings.HasSuffix(cfg.Out, ".parquet") {
			return 0, fmt.Errorf("--out %s: simulate writes JSON lines (.jsonl, .jsonl.gz), not Parquet", cfg.Out)
		}
		f, err := atomicfile.Create(cfg.Out)
		if err != nil {
			return 0, err
		}
		defer f.Abort()
		var w io.Writer = f
		var zw *gzip.Writer
		if strings.HasSuffix(cfg.Out, ".gz") {
			zw = gzip.NewWriter(f)
			w = zw
		}
		jw := data.NewJSONLogWriter(w, ds, entries)
		sum, err := simulateRows(ctx, cfg, sim, func(q int, docs []int32, r float64) error { return jw.Write(q, docs, r) })
		if err != nil {
			return 0, err
		}
		if zw != nil {
			if err := zw.Close(); err != nil {
				return 0, err
			}
		}
		return sum, f.Commit()
	}
}

// SimulationSpec is a simulated log: the logging setup, the reward metric,
// the number of impressions and the seed, and the data file's path as the
// header names it.
type SimulationSpec struct {
	DataPath string
	Setup    policy.Setup
	Metric   eval.Metric
	Samples  int64
	Seed     uint64
	// ByShape builds the logging policy's Γ per query shape from the
	// candidates alone, never from a rank source's scores: the lab's
	// simulations, whose logging has no rank source (an eps:1 mixture of
	// pl is then uniform).
	ByShape bool
	// Rank are the options of the logging policy's rank source (without
	// ByShape): Train is the labelled data a tree: or lasso: source is
	// fitted on, so that the lab's logger is one ranker on every file of a
	// fold; the zero value fits it on the data simulated on.
	Rank policy.Options
}

// simulation sets up the simulation of the spec on ds: the candidates, the
// logging policy's Γ cache, and the reward scorer.
func (s SimulationSpec) simulation(ctx context.Context, ds *data.Dataset) (*impute.Simulation, *impute.GammaCache, error) {
	var (
		cands  *impute.Candidates
		gammas *impute.GammaCache
		err    error
	)
	if s.ByShape {
		cands, err = s.Setup.Candidates(ctx, ds, policy.Options{})
		gammas = impute.NewGammaCache(s.Setup.Logging, impute.GammaOptions{})
	} else {
		cands, gammas, err = s.Setup.Policies(ctx, ds, s.Rank, impute.GammaOptions{})
	}
	if err != nil {
		return nil, nil, err
	}
	return &impute.Simulation{Candidates: cands, Logging: s.Setup.Logging, Slots: s.Setup.Slots, Seed: s.Seed,
		Reward: eval.NewScorer(s.Metric, cands.Labels(), cands.Offsets()), Policies: gammas}, gammas, nil
}

// header is the header of the simulated log and of the targets imputed
// from it.
func (s SimulationSpec) header(ds *data.Dataset) data.Header {
	return s.Setup.Header(s.DataPath, ds, s.Metric, s.Samples, s.Seed)
}

// SimulateStats simulates the spec's impressions on ds straight into
// impute's statistics S_x and n_x (no log written: the same statistics as
// Simulate's log read back), calling add with the impressions done. It
// returns them with the logging policy's Γ cache and the header the log
// would have.
func SimulateStats(ctx context.Context, ds *data.Dataset, s SimulationSpec, add func(n int64)) (*impute.Stats, *impute.GammaCache, data.Header, error) {
	st, gammas, header, _, err := SimulateReplay(ctx, ds, s, add)
	return st, gammas, header, err
}
