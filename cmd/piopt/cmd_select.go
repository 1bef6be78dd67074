package main

import (
	"fmt"
	"os"

	"github.com/piopt/piopt/internal/pipeline"
	"github.com/piopt/piopt/internal/selection"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/ranker"
	"github.com/urfave/cli/v2"
)

func selectCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "data", Usage: "LETOR `FILE` the log's queries and documents refer to (its labels are not used; needed only by rankers that read features)"},
		&cli.StringFlag{Name: "logs", Required: true, Usage: "slate log `FILE` (piopt-log v1; gzip allowed)"},
		&cli.StringFlag{Name: "policy", Usage: "policy `FILE` giving the logging policy of every context (default: the log header's policy=, relative to the log's folder)"},
		&cli.StringFlag{Name: "models", Required: true, Usage: "comma-separated `LIST` of the rankers to rank: a model file PATH (= model:PATH), or any --target spelling of evaluate (model:PATH, feature:K, tree:SUBSET[@DEPTH], lasso:SUBSET[@L1], run:FILE), policy:FILE (a target policy file) or scores:FILE (a target scores file), each optionally NAME=SPEC to name it"},
		&cli.StringFlag{Name: "estimator", Value: ope.WPI, Usage: "`ESTIMATOR` the models are ranked by: pi, wpi, ips or wips"},
		&cli.StringFlag{Name: "interval", Value: selection.IntervalBernstein, Usage: "`KIND` of interval shown and compared with the best model's: bernstein (the paper's Theorem 1), empirical-bernstein or bootstrap"},
		&cli.Float64Flag{Name: "delta", Value: 0.05, Usage: "every interval holds with probability ≥ 1 − `DELTA`"},
		&cli.IntFlag{Name: "bootstrap", Value: 200, Usage: "Poisson-bootstrap `REPLICATES` (0: no bootstrap interval)"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "`SEED` of the bootstrap (and of Monte Carlo Γ, and of fitting tree:/lasso: rankers)"},
		&cli.StringFlag{Name: "reward-range", Value: "0,1", Usage: "`LO,HI` bounding every reward (the intervals assume it; NDCG and ERR: 0,1)"},
		&cli.StringFlag{Name: "slate", Value: "greedy", Usage: "`METHOD` of a PI-OPT model's slates: greedy or exact"},
		&cli.StringFlag{Name: "policy-data", Usage: "labelled `FILE` the tree:/lasso: rankers (in --models or the log's header) are fitted on; they need one, as select reads no label of --data"},
		&cli.IntFlag{Name: "threads", Usage: "`N` threads; results do not depend on it", DefaultText: "all cores"},
		&cli.StringFlag{Name: "json", Usage: "write the ranking as JSON to `FILE`: estimator, interval, delta, log, the models best first (name, target, rank, not_separable, and pi, wpi, ips, wips each as evaluate writes it) and best"},
		&cli.IntFlag{Name: "slots", Usage: "slate length `L`", DefaultText: "the log's header"},
		&cli.StringFlag{Name: "logging", Usage: "logging policy `SPEC` that drew the log (default: the log's header)"},
		&cli.StringFlag{Name: "rank-by", Usage: "rank source `SPEC` of the logging policy (default: the log's header)"},
		&cli.IntFlag{Name: "candidates", Usage: "candidates `M` per query of the logging policy", DefaultText: "the log's header"},
		&cli.StringFlag{Name: "candidates-by", Usage: candidatesByUsage + " (default: the log's header)"},
		&cli.StringFlag{Name: "metric", Usage: "reward `METRIC` of the log, ndcg or err (default: the log's header)"},
	}
	return &cli.Command{
		Name:      "select",
		Usage:     "rank models by their off-policy value on a slate log (PI, wPI, IPS, wIPS) with intervals, reading no label",
		UsageText: "piopt select --data FILE --logs LOG [--policy FILE] --models A,B,C [--estimator wpi] [--delta 0.05] [--json OUT]",
		Description: `select answers "which of these rankers should I deploy?" from one log of
slates drawn by another policy, each with one page-level reward. Each model of
--models gets the PI, wPI, IPS and wIPS estimates and intervals that

   piopt evaluate --target SPEC --estimators pi,wpi,ips,wips

gives it on the same log, to the last bit, and the models are listed best first
by --estimator's estimate, each with its --interval interval at level
1 − DELTA; a * marks a model whose interval overlaps the best model's (the log
does not separate the two). Each interval holds with probability ≥ 1 − DELTA on
its own; for a statement about all K models at once, give DELTA/K.

An entry of --models is a model file PATH (model:PATH: a PI-OPT model builds its
slot-action slates and must score at least the log's slots; a SUP or LambdaMART
model shows its top L candidates) or a rank source feature:K,
tree:SUBSET[@DEPTH] or lasso:SUBSET[@L1]; NAME=SPEC names it in the table. The
logging policy, candidates and slots come from the log's header or its policy
file (policy=, --policy), as for evaluate.

No label is read: the estimates use only the log's rewards, so there is no true
value, and tree:/lasso: rankers, fitted to labels, need --policy-data. The log
is read once for all models.

   piopt synth --out folds --queries 200
   piopt simulate --data folds/Fold1/test.txt --slots 3 --metric ndcg \
                  --logging pa:1 --rank-by feature:130 --candidates 10 \
                  --samples 100000 --seed 1 --out test.log
   piopt train --sup --data folds/Fold1/train.txt --trees 50 --out sup.model
   piopt select --data folds/Fold1/test.txt --logs test.log \
                --models sup.model,feature:3,bm25=feature:110 --json select.json`,
		Flags:  append(flags, dataFlags()...),
		Action: runSelect,
	}
}

func runSelect(c *cli.Context) error {
	cfg, err := selectConfig(c)
	if err != nil {
		return err
	}
	sel, err := pipeline.Select(c.Context, cfg)
	if err != nil {
		return err
	}
	sel.WriteTable(c.App.Writer)
	return nil
}

// selectConfig reads select's flags; pipeline.Select reads --models and
// checks --estimator and --interval.
func selectConfig(c *cli.Context) (pipeline.SelectConfig, error) {
	var cfg pipeline.SelectConfig
	iv, err := intervals(c, "")
	if err != nil {
		return cfg, err
	}
	method, err := ranker.ParseSlateMethod(c.String("slate"))
	if err != nil {
		return cfg, fmt.Errorf("--slate: %w", err)
	}
	if err := setupFlags(c).Check(); err != nil {
		return cfg, err
	}
	cfg = pipeline.SelectConfig{Data: c.String("data"), Logs: c.String("logs"), Setup: setupFlags(c), Models: c.String("models"),
		Slate: method, PolicyData: c.String("policy-data"), Estimator: c.String("estimator"), Interval: c.String("interval"),
		Intervals: iv, Seed: c.Uint64("seed"), Threads: c.Int("threads"), JSON: c.String("json"), Command: commandLine(), Progress: os.Stderr}
	cfg.Read, err = readOptions(c)
	return cfg, err
}
