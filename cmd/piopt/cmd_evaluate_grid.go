package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/piopt/piopt/internal/lab/evalgrid"
	"github.com/piopt/piopt/internal/lab/experiment"
	"github.com/piopt/piopt/internal/policy"
	"github.com/urfave/cli/v2"
)

func evaluateGridCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "data", Required: true, Usage: "LETOR `FILE` whose labels give the rewards and the true values"},
		&cli.StringFlag{Name: "out", Required: true, Usage: "output `DIR`: conditions/, grid.json, grid.html, aggregate-N.svg, run.json"},
		&cli.StringSliceFlag{Name: "metrics", Value: cli.NewStringSlice(evalgrid.DefaultMetrics...), DefaultText: listDefault(evalgrid.DefaultMetrics), Usage: "rewards, comma-separated `LIST` of ndcg, err (the name rank and experiment use for a list; one-metric commands take --metric)"},
		&cli.StringSliceFlag{Name: "spaces", Value: cli.NewStringSlice("10x5", "100x10"), DefaultText: `"10x5,100x10"`, Usage: "slate spaces, comma-separated `LIST` of MxL: M candidates (--candidates) by L slots (--slots), each with its pa α: 10x5 (α 1, 2), 100x10 (α 0.5, 1)"},
		&cli.StringSliceFlag{Name: "logging-models", Value: cli.NewStringSlice(evalgrid.DefaultLoggingModels...), DefaultText: listDefault(evalgrid.DefaultLoggingModels), Usage: "rank source SPECs of the pa logging policies (what one --rank-by gives evaluate-sweep), comma-separated `LIST`"},
		&cli.StringSliceFlag{Name: "targets", Value: cli.NewStringSlice(evalgrid.DefaultTargets...), DefaultText: listDefault(evalgrid.DefaultTargets), Usage: "target policy SPECs (what one --target gives evaluate-sweep), comma-separated `LIST`: each one's top L candidates"},
		&cli.StringFlag{Name: "candidates-by", Value: evalgrid.DefaultCandidatesBy, Usage: "rank source `SPEC` choosing each query's top M candidates for every logging policy (the paper's; evaluate-sweep's default is its --rank-by)"},
		&cli.StringFlag{Name: "estimators", Value: "all", Usage: "comma-separated `LIST` as evaluate-sweep's (all: the paper's comparison plus pi-cv, dr, wdr and the DM variants)"},
		&cli.Int64Flag{Name: "samples", Value: 600000, Usage: "largest log size `N` (the paper's grid: 6·10^5; evaluate-sweep's default is 10^6)"},
		&cli.IntFlag{Name: "runs", Value: 10, Usage: "independent logs `R` per condition"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "`SEED` of run 1 of every condition; run k uses SEED+k−1"},
		&cli.Int64Flag{Name: "min-samples", Value: 100, Usage: "smallest log size `N` of the grid"},
		&cli.IntFlag{Name: "points-per-decade", Value: 4, Usage: "grid points `K` per factor 10 of log size"},
		&cli.Int64SliceFlag{Name: "aggregate-at", Value: cli.NewInt64Slice(60000, 600000), DefaultText: "60000,600000", Usage: "log sizes of the aggregate (added to the grid), comma-separated `LIST`"},
		&cli.IntFlag{Name: "dm-max-train", Usage: "cap DM's training set: at log size n DM trains on the first min(n/2, `ROWS`) samples (0, the default: no cap, n/2 as the paper)"},
	}
	for _, f := range opeFlags() {
		switch f.Names()[0] {
		case "target", "slate", "estimators":
		case "baseline-folds":
			flags = append(flags, &cli.IntFlag{Name: "baseline-folds", Value: evalgrid.DefaultBaselineFolds,
				Usage: "dr's cross-fitting folds `K` (evaluate's default is 10; the grid fits K models per run at each of its fit sizes, one per decade and the --aggregate-at sizes)"})
		default:
			flags = append(flags, f)
		}
	}
	return &cli.Command{
		Name:  "evaluate-grid",
		Usage: "the paper's whole semi-synthetic evaluation: 40 sweeps and their aggregate",
		Description: `evaluate-grid runs evaluate-sweep's protocol on every condition of the
paper's grid (Sec. 4.1, App. E): metric ndcg and err × slate space (m, ℓ) =
(10, 5) and (100, 10) × 10 logging/target combinations: logging uniform and
pa:α with α ∈ {1, 2} for (10, 5) and {0.5, 1} for (100, 10), ranked by
lasso and by tree on the url-side features; targets the top ℓ by tree and
by lasso on the body-side features. Every query's candidates are its top m
by --candidates-by; a query with fewer than m documents is skipped for that
space, and the report says how many. Each rank source is fitted once.

Each finished condition is written to OUT/conditions/NAME.json (the sweep
report evaluate-sweep writes, with a hash of its settings); a rerun with the
same settings loads it instead, so an interrupted grid loses at most the
running condition. OUT/grid.json holds every RMSE curve and the aggregate:
per metric and space, at each --aggregate-at size, every estimator's RMSE
normalised per combination so that the best (onpolicy left out) is 0.001
and the worst 1; OUT/grid.html draws every condition and the CDF of the
normalised RMSE over the combinations (the paper's Fig. 2, middle and bottom
rows), and OUT/aggregate-N.svg is that chart at size N alone. The
estimators that fit models, DM's variants, dr and wdr, are computed at one
size per decade and the --aggregate-at sizes (each costs a fit per DM
model and --baseline-folds fits per run). The same data, flags and seed
give the same bytes; times go to OUT/run.json.

   piopt synth --out folds --queries 500
   piopt evaluate-grid --data folds/S1.txt --samples 60000 --runs 10 \
       --aggregate-at 6000,60000 --out grid`,
		Flags:  append(append(flags, dataFlags()...), conventionFlags()...),
		Action: runEvaluateGrid,
	}
}

func runEvaluateGrid(c *cli.Context) error {
	cfg, err := gridConfig(c)
	if err != nil {
		return err
	}
	rep, err := evalgrid.Evaluate(c.Context, cfg)
	if err != nil {
		return err
	}
	rep.WriteSummary(c.App.Writer)
	return nil
}

// gridConfig reads the flags into a grid configuration, before any data
// is loaded.
func gridConfig(c *cli.Context) (evalgrid.GridConfig, error) {
	var cfg evalgrid.GridConfig
	if err := checkOPEFlags(c); err != nil {
		return cfg, err
	}
	est, err := opeEstimators(c)
	if err != nil {
		return cfg, err
	}
	if b := c.String("baseline"); b != policy.Crossfit {
		return cfg, fmt.Errorf("--baseline %s: evaluate-grid cross-fits dr's reward model on each condition's logs (a model's slots and candidates would not fit every condition)", b)
	}
	def := evalgrid.Definition{LoggingModels: c.StringSlice("logging-models"), Targets: c.StringSlice("targets"),
		CandidatesBy: c.String("candidates-by")}
	if def.Metrics, err = evalgrid.ParseMetrics(joinFlag(c, "metrics")); err != nil {
		return cfg, fmt.Errorf("--metrics: %w", err)
	}
	if def.Spaces, err = evalgrid.ParseSpaces(joinFlag(c, "spaces")); err != nil {
		return cfg, fmt.Errorf("--spaces: %w", err)
	}
	if c.Int("points-per-decade") < 1 || c.Int("dm-max-train") < 0 {
		return cfg, fmt.Errorf("--points-per-decade %d must be ≥ 1 and --dm-max-train %d ≥ 0", c.Int("points-per-decade"), c.Int("dm-max-train"))
	}
	agg := slices.Clone(c.Int64Slice("aggregate-at"))
	slices.Sort(agg)
	pv, xv := experiment.Versions()
	cfg = evalgrid.GridConfig{Data: c.String("data"), PolicyData: c.String("policy-data"), Progress: os.Stderr, Log: c.App.ErrWriter,
		Grid: evalgrid.Config{Grid: def, Samples: c.Int64("samples"), Runs: c.Int("runs"), Seed: c.Uint64("seed"),
			MinSamples: c.Int64("min-samples"), PointsPerDecade: c.Int("points-per-decade"), AggregateAt: slices.Compact(agg),
			Estimators: est, DM: dmOptions(c), DMMaxTrain: c.Int("dm-max-train"), CVFolds: c.Int("cv-folds"), BaselineFolds: c.Int("baseline-folds"),
			Threads: c.Int("threads"), Out: c.String("out"), Command: commandLine(), PioptVersion: pv, XGBoostVersion: xv}}
	if cfg.Read, err = readOptions(c); err != nil {
		return cfg, err
	}
	cfg.Conventions, err = conventions(c)
	return cfg, err
}

// joinFlag is a list flag's values joined by commas.
func joinFlag(c *cli.Context, name string) string {
	return strings.Join(c.StringSlice(name), ",")
}
