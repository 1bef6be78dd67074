package main

import (
	"fmt"
	"os"

	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/internal/pipeline"
	"github.com/piopt/piopt/internal/policy"
	"github.com/urfave/cli/v2"
)

func simulateCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "data", Required: true, Usage: "LETOR `FILE` whose labels give the rewards"},
		&cli.IntFlag{Name: "slots", Value: 3, Usage: "slate length `L` (the metric's cut-off; 3, the paper's ℓ for learning, as every command that sets it)"},
		&cli.StringFlag{Name: "metric", Value: "ndcg", Usage: "reward `METRIC` of a slate: ndcg or err, at k = L"},
		&cli.StringFlag{Name: "logging", Required: true, Usage: "logging policy `SPEC`: uniform, pa:ALPHA or pl:TAU (both need --rank-by: its rank order, or for pl its scores) or eps:E,POLICY"},
		&cli.StringFlag{Name: "policy-out", Usage: "also write the policy `FILE` of what was logged (one context per query), which impute and evaluate read with --policy"},
		&cli.Int64Flag{Name: "samples", Required: true, Usage: "number `N` of logged impressions"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random `SEED`; the same seed gives the same bytes"},
		&cli.StringFlag{Name: "out", Required: true, Usage: "slate log `FILE` to write; .jsonl or .jsonl.gz: JSON lines, each row with its context's logging policy"},
		&cli.StringFlag{Name: "rank-by", Usage: "rank source `SPEC` (feature:K, model:PATH, tree:SUBSET[@DEPTH] or lasso:SUBSET[@L1]) ordering each query's docs for pa and --candidates"},
		&cli.IntFlag{Name: "candidates", Usage: "keep each query's top `M` docs (by --candidates-by, else --rank-by, else by position) as candidates; 0 keeps all"},
		&cli.StringFlag{Name: "candidates-by", Usage: candidatesByUsage},
	}
	return &cli.Command{
		Name:  "simulate",
		Usage: "simulate a bandit log: slates from a logging policy, page-level rewards from the labels",
		Description: `simulate writes a semi-synthetic slate log, as in the paper's experiments:
every impression picks a query uniformly at random, draws a slate of L distinct
candidates from the logging policy, and records the slate's NDCG@L or ERR@L
under the hidden labels as its only reward. Lines are

   qid<TAB>d1,d2,...,dL<TAB>reward

after a header line "# piopt-log v1 key=value ..." naming the slots, metric,
logging policy, rank source, candidates, seed and dataset, so that impute and
evaluate can refuse a log that does not match. A query with m < L candidates
gets slates of m docs. Any prefix of the log is itself an i.i.d. log.

A query's candidates are its top --candidates M docs by --rank-by, which also
gives pa its rank order (pl its scores). With --candidates-by SPEC they are
the top M by SPEC instead, and --rank-by only orders them (without --rank-by
they keep SPEC's order): the paper takes every logging policy's candidates by
one fixed ranker, tree_title (in the authors' scripts a tree on the url-side
features: --candidates-by tree:url-side).

   piopt simulate --data Fold1/train.txt --slots 3 --metric ndcg \
                  --logging uniform --samples 1000000 --seed 1 --out train.log`,
		Flags:  append(append(flags, dataFlags()...), conventionFlags()...),
		Action: runSimulate,
	}
}

// candidatesByUsage is the usage of --candidates-by, beside every --rank-by.
const candidatesByUsage = "rank source `SPEC` choosing each query's top --candidates documents (default: --rank-by); " +
	"the paper takes them by tree_title for every logging policy"

// checkMetricFlag checks --metric before any work (simulationMetric reads
// it with the data's conventions).
func checkMetricFlag(c *cli.Context) error {
	if _, err := eval.ParseKind(c.String("metric")); err != nil {
		return fmt.Errorf("--metric: %w", err)
	}
	return nil
}

func runSimulate(c *cli.Context) error {
	setup, err := policy.ParseSetup(setupFlags(c))
	if err != nil {
		return err
	}
	if n := c.Int64("samples"); n < 1 {
		return fmt.Errorf("--samples %d: must be ≥ 1", n)
	}
	kind, err := eval.ParseKind(c.String("metric"))
	if err != nil {
		return fmt.Errorf("--metric: %w", err)
	}
	cfg := pipeline.SimulateConfig{Data: c.String("data"), Setup: setup, Metric: kind, Samples: c.Int64("samples"), Seed: c.Uint64("seed"),
		Out: c.String("out"), PolicyOut: c.String("policy-out"), Progress: os.Stderr}
	if cfg.Read, err = readOptions(c); err != nil {
		return err
	}
	if cfg.Conventions, err = conventions(c); err != nil {
		return err
	}
	res, err := pipeline.Simulate(c.Context, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, res)
	return nil
}
