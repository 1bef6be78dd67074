package main

import (
	"fmt"
	"os"

	"github.com/piopt/piopt/internal/pipeline"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/ranker"
	"github.com/urfave/cli/v2"
)

func evaluateCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "data", Usage: "LETOR `FILE` the log's queries and documents refer to (needed only by targets and estimators that read features or labels)"},
		&cli.StringFlag{Name: "logs", Required: true, Usage: "slate log `FILE` (piopt-log v1; gzip allowed)"},
		&cli.StringFlag{Name: "policy", Usage: "policy `FILE` giving the logging policy of every context (default: the log header's policy=, relative to the log's folder)"},
		&cli.IntFlag{Name: "slots", Usage: "slate length `L`", DefaultText: "the log's header"},
		&cli.StringFlag{Name: "logging", Usage: "logging policy `SPEC` that drew the log (default: the log's header)"},
		&cli.StringFlag{Name: "rank-by", Usage: "rank source `SPEC` of the logging policy (default: the log's header)"},
		&cli.IntFlag{Name: "candidates", Usage: "candidates `M` per query of the logging policy", DefaultText: "the log's header"},
		&cli.StringFlag{Name: "candidates-by", Usage: candidatesByUsage + " (default: the log's header)"},
		&cli.StringFlag{Name: "metric", Usage: "reward `METRIC` of the log, ndcg or err, for onpolicy (default: the log's header)"},
		&cli.Float64Flag{Name: "delta", Value: 0.05, Usage: "every interval holds with probability ≥ 1 − `DELTA`"},
		&cli.IntFlag{Name: "bootstrap", Value: 200, Usage: "Poisson-bootstrap `REPLICATES` (0: no bootstrap interval)"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "`SEED` of the bootstrap and of training"},
		&cli.StringFlag{Name: "reward-range", Value: "0,1", Usage: "`LO,HI` bounding every reward (the intervals assume it; NDCG and ERR: 0,1)"},
		&cli.BoolFlag{Name: "strict-coverage", Usage: "fail when the log cannot see all of the target (documents the logging policy never shows, or target marginals outside Γ's range; see coverage in the JSON) instead of warning"},
		&cli.Float64Flag{Name: "dm-train", Value: 0.5, Usage: "`FRACTION` of the log (its first part) DM trains on; it is evaluated on the rest"},
		&cli.StringFlag{Name: "shard", Usage: "read only shard `I/N` of the log's contexts (FNV-1a of the qid mod N; docs/distributed.md)"},
		&cli.StringFlag{Name: "partial", Usage: "with --shard: write the shard's sums as a partial `FILE` for piopt merge --json (estimators pi, wpi, pi-cv, ips, wips, onpolicy)"},
		&cli.StringFlag{Name: "json", Usage: "write the estimates as JSON to `FILE`: one object per estimator keyed by its name (pi, wpi, pi-cv, dr, wdr, ips, wips, dm, onpolicy), each with value, n, intervals, weight diagnostics and the setup; dr and wdr also their baseline (kind, folds, fold_samples, fold_trees, model_lo, model_hi)"},
	}
	return &cli.Command{
		Name:  "evaluate",
		Usage: "estimate a ranking policy's value from a slate log (PI, wPI, IPS, wIPS, DM) with error bars",
		Description: `evaluate answers "what would this ranker score if I deployed it?" from a log
of slates drawn by another policy, each with one page-level reward. The target
policy shows its top L candidates (--target: feature:K, model:PATH — a PI-OPT
model builds its slot-action slates —, tree:SUBSET or lasso:SUBSET fitted to the
labels), or is given as data: a TREC run (--target run:FILE), a policy per
context (--target-policy FILE) or scores (--target-scores FILE); see
docs/formats.md. A log with a policy file needs no --data for these targets
and for pi, wpi, ips and wips. The logging policy, its rank source, the candidates and the slots come
from the log's header (flags must agree with it), or, for a log from your own
logger, from the policy file its header names (policy=, or --policy FILE): a
logging policy per context QID or QID@TAG, whose candidates the target ranks.
A log without a header line is read with what those flags say (--slots and
--logging or --policy at least; see impute --help for the keys).

   piopt evaluate --data Fold1/test.txt --logs test.log --target model:pi.model \
                  --estimators pi,wpi,ips,wips,dm --delta 0.05 --json est.json

Every estimate comes with the Bernstein interval of the paper's Theorem 1 (σ²
averaged over the log's contexts, ρ exact over the dataset's queries; for wPI
and wIPS its self-normalised form), Maurer and Pontil's empirical-Bernstein
interval and a seeded Poisson-bootstrap percentile interval, each at level
1 − DELTA, and with weight diagnostics: the share of negative PI weights,
the effective sample size (Σw)²/Σw², max |w| and the conditioning of every Γ.
onpolicy is the true value on the log's contexts from the dataset's labels
(semi-synthetic logs).

pi-cv is PI with the control variate G − 1 (G the PI weight, whose mean is
exactly 1), its coefficient cross-fitted over --cv-folds folds. dr is
doubly-robust PI: a slot-additive reward model φ̄ predicts every slate's
reward and PI corrects what it gets wrong, unbiased whatever φ̄ is and with
less variance the closer φ̄ is to the truth; wdr self-normalises the
correction. With --baseline crossfit (the default) φ̄ is PI-OPT's regression
fitted on the log itself, each of --baseline-folds folds evaluated with the
model of the others (its size chosen by early stopping on a held-out fifth);
--baseline model:PATH uses a PI-OPT model trained on other data.

The log is streamed: memory does not grow with it, except for the part DM
trains on and, for dr and wdr, 12 + 4·L bytes per impression.`,
		Flags:  append(append(append(flags, targetFlags(opeFlags())...), dataFlags()...), conventionFlags()...),
		Action: runEvaluate,
	}
}

func runEvaluate(c *cli.Context) error {
	cfg, err := evaluateConfig(c)
	if err != nil {
		return err
	}
	res, err := pipeline.Evaluate(c.Context, cfg)
	if err != nil {
		return err
	}
	if cfg.Partial != "" { // a shard: its sums are in the partial file
		fmt.Fprintf(os.Stderr, "evaluate: shard %s of the log → %s (piopt merge --json gives the estimates)\n", cfg.Shard, cfg.Partial)
		return nil
	}
	res.WriteTable(os.Stdout)
	return nil
}

// evaluateConfig reads evaluate's flags: the estimators and their
// intervals first, then the logging setup's, each checked before any work.
func evaluateConfig(c *cli.Context) (pipeline.EvaluateConfig, error) {
	var cfg pipeline.EvaluateConfig
	if err := checkOPEFlags(c); err != nil {
		return cfg, err
	}
	est, err := opeEstimators(c)
	if err != nil {
		return cfg, err
	}
	iv, err := intervals(c, "dm-train")
	if err != nil {
		return cfg, err
	}
	opt := ope.EvalOptions{Estimators: est, CVFolds: c.Int("cv-folds"), Intervals: iv, StrictCoverage: c.Bool("strict-coverage")}
	method, err := ranker.ParseSlateMethod(c.String("slate"))
	if err != nil {
		return cfg, fmt.Errorf("--slate: %w", err)
	}
	if err := setupFlags(c).Check(); err != nil {
		return cfg, err
	}
	target, err := targetSpec(c)
	if err != nil {
		return cfg, err
	}
	cfg = pipeline.EvaluateConfig{Data: c.String("data"), Logs: c.String("logs"), Setup: setupFlags(c), Target: target, EstimatorsDefault: !c.IsSet("estimators"),
		Slate: method, PolicyData: c.String("policy-data"), Options: opt, DMShare: c.Float64("dm-train"), DM: dmOptions(c),
		Baseline: c.String("baseline"), BaselineFolds: c.Int("baseline-folds"), Stated: statedConventions(c),
		Seed: c.Uint64("seed"), Threads: c.Int("threads"), JSON: c.String("json"), Command: commandLine(), Progress: os.Stderr}
	if cfg.Read, err = readOptions(c); err != nil {
		return cfg, err
	}
	if cfg.Shard, cfg.Partial, err = shardFlags(c, "--json"); err != nil {
		return cfg, err
	}
	if cfg.Partial != "" && cfg.EstimatorsDefault {
		cfg.Options.Estimators = shardable(cfg.Options.Estimators)
	}
	cfg.Conventions, err = conventions(c)
	return cfg, err
}
