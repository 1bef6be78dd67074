package main

import (
	"fmt"
	"os"

	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/internal/lab/experiment"
	"github.com/piopt/piopt/internal/pipeline"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/ranker"
	"github.com/urfave/cli/v2"
)

func evaluateSweepCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "data", Required: true, Usage: "LETOR `FILE` whose labels give the rewards and the true value"},
		&cli.IntFlag{Name: "slots", Value: 3, Usage: "slate length `L` (3 as every command that sets it; the paper's evaluation used 5 and 10)"},
		&cli.IntFlag{Name: "candidates", Usage: "each query's top `M` docs (by --candidates-by, else --rank-by, else by position) are its candidates (0, the default as every command that sets it: all; the paper's evaluation used 10 and 100)"},
		&cli.StringFlag{Name: "logging", Value: "uniform", Usage: "logging policy `SPEC`: uniform, pa:ALPHA or eps:E,POLICY"},
		&cli.StringFlag{Name: "rank-by", Usage: "logging-side ranker `SPEC` (same spellings as --target): candidates and pa ranks"},
		&cli.StringFlag{Name: "candidates-by", Usage: candidatesByUsage},
		&cli.StringFlag{Name: "metric", Value: "ndcg", Usage: "reward `METRIC`: ndcg or err, at k = L"},
		&cli.Int64Flag{Name: "samples", Value: 1000000, Usage: "largest log size `N`"},
		&cli.IntFlag{Name: "runs", Value: 10, Usage: "independent logs `R`"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "`SEED` of run 1; run k uses SEED+k−1, the log `piopt simulate --seed SEED+k−1` writes"},
		&cli.Int64Flag{Name: "min-samples", Value: 100, Usage: "smallest log size `N` of the grid"},
		&cli.IntFlag{Name: "points-per-decade", Value: 4, Usage: "grid points `K` per factor 10 of log size"},
		&cli.IntFlag{Name: "dm-max-train", Usage: "cap DM's training set: at log size n DM trains on the first min(n/2, `ROWS`) samples (0, the default: no cap, n/2 as the paper; a fit costs seconds per 10^5 rows, so a cap such as 50000 shortens large sweeps)"},
		&cli.StringFlag{Name: "json", Usage: "write the results as JSON to `FILE`, and beside it (NAME.run.json) the run record: start, wall times, machine"},
		&cli.StringFlag{Name: "html", Usage: "write a self-contained HTML report with the RMSE chart to `FILE`"},
	}
	return &cli.Command{
		Name:  "evaluate-sweep",
		Usage: "the paper's semi-synthetic evaluation: RMSE of every estimator against the true value as the log grows",
		Description: `evaluate-sweep runs the protocol of the paper's Sec. 4.1. Every query's top-M
docs by the logging-side ranker (--rank-by; without it, the first M by
position) are its candidates, or with --candidates-by SPEC the top M by SPEC
(the paper: tree_title for every logging policy), which --rank-by then only
orders for pa; R independent logs of N samples are simulated
with contexts uniform over the queries, slates from the logging policy over
the candidates and the slate's metric as reward;
every estimator of the target policy's value (its top L candidates) is computed
on the prefixes of each log on a log-spaced grid, and compared with the true
value V(π) = mean over queries of the metric of the target slate, exact from
the labels. The table gives the RMSE over the R runs at every log size.

   piopt evaluate-sweep --data MQ2008/all.txt --candidates 10 --slots 5 \
       --logging pa:1 --rank-by feature:1 --target feature:40 \
       --samples 1000000 --runs 10 --json sweep.json --html sweep.html

PI and wPI need only Σ r·w and Σ w over a prefix and IPS only its matches,
so all grid points come from one pass per run; DM is trained at every grid
point on the first half of the prefix (as the paper; --dm-max-train caps
it) and evaluated on the second half.`,
		Flags:  append(append(append(flags, opeFlags()...), dataFlags()...), conventionFlags()...),
		Action: runEvaluateSweep,
	}
}

func runEvaluateSweep(c *cli.Context) error {
	cfg, err := sweepConfig(c)
	if err != nil {
		return err
	}
	res, err := pipeline.Sweep(c.Context, cfg)
	if err != nil {
		return err
	}
	res.Report.WriteTable(os.Stdout)
	res.WriteTimes(os.Stderr)
	return nil
}

// sweepConfig reads evaluate-sweep's flags, each checked before any work.
func sweepConfig(c *cli.Context) (pipeline.SweepConfig, error) {
	var cfg pipeline.SweepConfig
	ls, err := policy.ParseSetup(setupFlags(c))
	if err != nil {
		return cfg, err
	}
	est, err := opeEstimators(c)
	if err != nil {
		return cfg, err
	}
	if err := checkSweepFlags(c); err != nil {
		return cfg, err
	}
	method, err := ranker.ParseSlateMethod(c.String("slate"))
	if err != nil {
		return cfg, fmt.Errorf("--slate: %w", err)
	}
	pv, xv := experiment.Versions()
	cfg = pipeline.SweepConfig{Data: c.String("data"), Setup: ls, Target: c.String("target"), Slate: method,
		PolicyData: c.String("policy-data"), Estimators: est, CVFolds: c.Int("cv-folds"), DM: dmOptions(c),
		Baseline: c.String("baseline"), BaselineFolds: c.Int("baseline-folds"),
		Samples: c.Int64("samples"), Runs: c.Int("runs"), Seed: c.Uint64("seed"), MinSamples: c.Int64("min-samples"),
		PointsPerDecade: c.Int("points-per-decade"), DMMaxTrain: c.Int("dm-max-train"), Threads: c.Int("threads"),
		JSON: c.String("json"), HTML: c.String("html"), Command: commandLine(), PioptVersion: pv, XGBoostVersion: xv, Progress: os.Stderr}
	if cfg.Metric, err = eval.ParseKind(c.String("metric")); err != nil {
		return cfg, fmt.Errorf("--metric: %w", err)
	}
	if cfg.Read, err = readOptions(c); err != nil {
		return cfg, err
	}
	cfg.Conventions, err = conventions(c)
	return cfg, err
}

// checkSweepFlags checks evaluate-sweep's numeric flags before any work.
func checkSweepFlags(c *cli.Context) error {
	n, runs, lo := c.Int64("samples"), c.Int("runs"), c.Int64("min-samples")
	switch {
	case n < 1 || runs < 1:
		return fmt.Errorf("--samples %d and --runs %d must be ≥ 1", n, runs)
	case lo < 1 || lo > n:
		return fmt.Errorf("--min-samples %d: must lie in 1..--samples %d", lo, n)
	case c.Int("points-per-decade") < 1:
		return fmt.Errorf("--points-per-decade %d: must be ≥ 1", c.Int("points-per-decade"))
	case c.Int("dm-max-train") < 0:
		return fmt.Errorf("--dm-max-train %d: must be ≥ 0 (0: n/2)", c.Int("dm-max-train"))
	}
	if err := checkMetricFlag(c); err != nil {
		return err
	}
	return checkOPEFlags(c)
}
