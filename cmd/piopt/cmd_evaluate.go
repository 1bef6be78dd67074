package main

import (
	"fmt"
	"github.com/piopt/piopt/internal/evalreport"
	"os"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/internal/progress"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/ranker"
	"github.com/urfave/cli/v2"
)

func evaluateCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "data", Required: true, Usage: "LETOR `FILE` the log's queries and documents refer to"},
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
		&cli.Float64Flag{Name: "dm-train", Value: 0.5, Usage: "`FRACTION` of the log (its first part) DM trains on; it is evaluated on the rest"},
		&cli.StringFlag{Name: "json", Usage: "write the estimates as JSON to `FILE`: one object per estimator keyed by its name (pi, wpi, pi-cv, dr, wdr, ips, wips, dm, onpolicy), each with value, n, intervals, weight diagnostics and the setup; dr and wdr also their baseline (kind, folds, fold_samples, fold_trees, model_lo, model_hi)"},
	}
	return &cli.Command{
		Name:  "evaluate",
		Usage: "estimate a ranking policy's value from a slate log (PI, wPI, IPS, wIPS, DM) with error bars",
		Description: `evaluate answers "what would this ranker score if I deployed it?" from a log
of slates drawn by another policy, each with one page-level reward. The target
policy shows its top L candidates (--target: feature:K, model:PATH — a PI-OPT
model builds its slot-action slates —, tree:SUBSET or lasso:SUBSET fitted to the
labels). The logging policy, its rank source, the candidates and the slots come
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
		Flags:  append(append(append(flags, opeFlags()...), dataFlags()...), conventionFlags()...),
		Action: runEvaluate,
	}
}

func runEvaluate(c *cli.Context) error {
	opt, method, err := evaluateOptions(c)
	if err != nil {
		return err
	}
	if err := setupFlags(c).Check(); err != nil {
		return err
	}
	ds, err := loadData(c, "data")
	if err != nil {
		return err
	}
	logPath := c.String("logs")
	assumed := setupFlags(c).Header()
	lr, err := data.OpenLogAssuming(logPath, ds, assumed)
	if err != nil {
		return err
	}
	defer lr.Close()
	ls, metricName, err := policy.ReadSetup(lr, setupFlags(c))
	if err != nil {
		return err
	}
	metric, haveMetric, err := logMetric(c, lr.Header(), metricName, ls.Slots, ds)
	if err != nil {
		return err
	}
	plan, target, err := evaluatePlan(c, ds, ls, method, metric, haveMetric)
	if err != nil {
		return err
	}
	opt.Regressors = opeRegressors(c, c.Int("threads"))
	if opt.Baseline, err = opeBaseline(c, opt.Estimators, plan, c.Int("threads")); err != nil {
		return err
	}
	res, err := plan.EvaluateLog(c.Context, lr, ope.LogEvaluation{
		Options: opt, DMShare: c.Float64("dm-train"), NonAdditive: haveMetric && metric.Kind == eval.KindERR,
		Open: func() (*data.LogReader, error) {
			lr, err := data.OpenLogAssuming(logPath, ds, assumed)
			if err == nil && ls.Policy != nil {
				lr.SetContexts()
			}
			return lr, err
		},
		Pass: func() (func(int64), func()) {
			bar := progress.New(os.Stderr, "evaluate", 0, "impressions")
			return bar.Add, bar.Done
		},
	})
	if err != nil {
		return err
	}
	iv := opt.Intervals
	info := evalreport.EvaluateSetup{Data: ds.Source, Logs: logPath, Samples: res.N, LoggedQueries: res.Queries, Queries: ds.NumQueries(),
		Slots: ls.Slots, Logging: ls.Logging.String(), RankBy: ls.RankBy, Candidates: ls.Limit, Target: target.Name(),
		Delta: iv.Delta, Bootstrap: iv.Bootstrap, Seed: iv.Seed, RewardRange: [2]float64{iv.RewardLo, iv.RewardHi},
		TrueValue: ope.Float(res.TrueValue), Command: commandLine()}
	if ls.Policy != nil {
		info.Policy, info.Logging, info.Queries = ls.Policy.Name, "", plan.Candidates.NumQueries()
	}
	if haveMetric {
		info.Metric = metric.Name()
		cj := ranker.NewConventionsJSON(metric.Conventions)
		info.Conventions = &cj
	}
	info.WriteTable(os.Stdout, res)
	if p := c.String("json"); p != "" {
		return writeJSON(p, evalreport.EstimatesJSON(&info, res))
	}
	return nil
}

// evaluateOptions reads the flags of the estimators and their intervals,
// and --slate.
func evaluateOptions(c *cli.Context) (ope.EvalOptions, ranker.SlateMethod, error) {
	var method ranker.SlateMethod
	if err := checkOPEFlags(c); err != nil {
		return ope.EvalOptions{}, method, err
	}
	est, err := opeEstimators(c)
	if err != nil {
		return ope.EvalOptions{}, method, err
	}
	delta := c.Float64("delta")
	if !(delta > 0 && delta < 1) {
		return ope.EvalOptions{}, method, fmt.Errorf("--delta %g: must lie in (0, 1)", delta)
	}
	lo, hi, err := parseRange(c.String("reward-range"))
	if err != nil {
		return ope.EvalOptions{}, method, err
	}
	if frac := c.Float64("dm-train"); !(frac > 0 && frac < 1) {
		return ope.EvalOptions{}, method, fmt.Errorf("--dm-train %g: must lie in (0, 1)", frac)
	}
	if c.Int("bootstrap") < 0 {
		return ope.EvalOptions{}, method, fmt.Errorf("--bootstrap %d: must be ≥ 0", c.Int("bootstrap"))
	}
	if method, err = ranker.ParseSlateMethod(c.String("slate")); err != nil {
		return ope.EvalOptions{}, method, fmt.Errorf("--slate: %w", err)
	}
	return ope.EvalOptions{Estimators: est, CVFolds: c.Int("cv-folds"),
		Intervals: ope.Intervals{Delta: delta, Bootstrap: c.Int("bootstrap"), Seed: c.Uint64("seed"), RewardLo: lo, RewardHi: hi}}, method, nil
}

// evaluatePlan builds the logging setup's candidates, the target and the
// plan of the estimators (with the reward's scorer when the log names a
// metric).
func evaluatePlan(c *cli.Context, ds *data.Dataset, ls policy.Setup, method ranker.SlateMethod, metric eval.Metric, haveMetric bool) (*ope.Plan, *ope.Target, error) {
	popt, err := opePolicyOptions(c)
	if err != nil {
		return nil, nil, err
	}
	cands, gammas, target, err := opePolicies(c, ds, ls, method, popt)
	if err != nil {
		return nil, nil, err
	}
	var scored *eval.Metric
	if haveMetric {
		scored = &metric
	}
	plan, err := opePrepare(c, ls, cands, gammas, target, scored)
	return plan, target, err
}
