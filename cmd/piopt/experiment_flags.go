package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/piopt/piopt/internal/lab/experiment"
	"github.com/piopt/piopt/internal/pipeline"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/trainer"
	"github.com/urfave/cli/v2"
)

// experimentFlags are experiment's flags: its own, then train's, the value
// selection's, the data's and the conventions', then --grid.
func experimentFlags() []cli.Flag {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "folds", Required: true, Usage: "`DIR` holding Fold1..Fold5 (or fold1..fold5), each with train.txt, vali.txt and test.txt (MSLR-WEB10K, LETOR 4.0, piopt synth), trainingset.txt, validationset.txt and testset.txt (LETOR 3.0), or valid.txt for vali.txt; any may be .txt.gz"},
		&cli.StringFlag{Name: "only-folds", Usage: "run only these fold numbers, e.g. `1,3` (default: every fold found)"},
		&cli.IntFlag{Name: "slots", Value: 3, Usage: "slate length `L` (the metrics' cut-off)"},
		&cli.StringFlag{Name: "samples", Value: "10000000", DefaultText: "10000000", Usage: "logged impressions `N` simulated on each training fold, per metric (the paper: 10^7); " +
			"a list such as 1e4,1e5,1e6,1e7 runs the sample-efficiency curve: every fold at each size, each as a run of that size alone"},
		&cli.Int64Flag{Name: "valid-samples", Usage: "impressions `N` simulated on the validation fold for PI-OPT's early stopping", DefaultText: "--samples scaled by the folds' query counts"},
		&cli.StringFlag{Name: "metrics", Value: "ndcg,err", Usage: "page-level rewards to optimise and report, `LIST` of ndcg, err"},
		&cli.StringFlag{Name: "logging", Value: "uniform", Usage: "logging `SPEC` of the simulated logs (the paper: uniform)"},
		&cli.StringFlag{Name: "rank-by", Usage: "rank source `SPEC` of a production-like logger (e.g. --logging pl:1 over it): feature:K, model:PATH, or tree:SUBSET[@DEPTH] or lasso:SUBSET[@L1] " +
			"fitted on each fold's training file; adds the logger's deterministic ranking (logger) and PI-OPT's gain over it by the test labels and by PI estimates from a fresh log"},
		&cli.BoolFlag{Name: "per-sample", Usage: "weigh PI-OPT rows by impressions instead of 1 per query"},
		&cli.StringFlag{Name: "targets-kind", Value: "pi", Usage: "`KIND` of PI-OPT's targets: pi, or dr (doubly robust: φ̄ + Γ†1_s(r − 1_sᵀφ̄) with φ̄ cross-fitted over 10 blocks of each log's queries, as impute --targets-kind dr); the list pi,dr runs the sample-efficiency curve once per kind"},
		&cli.BoolFlag{Name: "lambdamart", Usage: "also train XGBoost rank:ndcg on the labels (the listwise supervised anchor)"},
		&cli.StringFlag{Name: "sup-target", Value: "gain", Usage: "SUP regresses on `TARGET`: gain (2^rel−1, the paper) or relevance"},
		&cli.StringFlag{Name: "slate", Value: "greedy", Usage: "`METHOD` of PI-OPT slates: greedy (the paper) or exact"},
		&cli.StringFlag{Name: "out", Required: true, Usage: "output `DIR`: summary.json, report.html, and every stage's cached targets, models and results"},
		&cli.BoolFlag{Name: "assemble-train", Usage: "fold K without a training file trains on the other folds' test files concatenated from fold K+1 on, wrapping round, leaving out one identical to its own validation or test file: LETOR's rotation, where fold K trains on parts K..K+2 of 5, validates on K+3 and tests on K+4, so this rebuilds its train.txt byte for byte (all 4 other parts would train on the validation set); written once to OUT/foldK/train-assembled-KEY.txt"},
	}
	for _, f := range trainFlags() {
		if f, ok := f.(*cli.IntFlag); ok && f.Name == "early-stopping" {
			f.DefaultText = fmt.Sprint(DefaultExperimentEarlyStopping, "; 0 with --preset paper")
		}
		flags = append(flags, f)
	}
	flags = append(flags, selectFlags(trainer.SelectValue, "0.5")...)
	flags = append(flags, &cli.Float64Flag{Name: "pi-learning-rate", Usage: "PI-OPT's shrinkage `ETA` (SUP and LambdaMART keep --learning-rate)",
		DefaultText: fmt.Sprint(DefaultPILearningRate, "; --learning-rate's when that or --preset paper is given")})
	flags = append(flags, dataFlags()...)
	flags = append(flags, conventionFlags()...)
	flags = append(flags, &cli.StringFlag{Name: "grid", Usage: "train PI-OPT (per fold and metric) at every combination of `GRID`, settings KEY=V1,V2,... " +
		"separated by ';' (or ',') with keys trees (the round cap), leaves and lr (learning rate), e.g. leaves=31,70,lr=0.05,0.1, and keep as PI-OPT the one " +
		"whose selected round has the best estimated value on the validation log (no label read; needs --select-by value and --early-stopping > 0); " +
		"the table adds, per fold, the grid's best by test labels, for reference only"})
	return flags
}

// checkExperimentCounts reads --samples into cfg (one size, or the sizes
// of a curve) and checks the sample counts before any work.
func checkExperimentCounts(c *cli.Context, cfg *experiment.Config) error {
	sizes, err := experiment.ParseSamples(c.String("samples"))
	if err != nil {
		return err
	}
	cfg.Samples = sizes[len(sizes)-1]
	if len(sizes) > 1 {
		cfg.Curve = sizes
	}
	switch {
	case c.Int64("valid-samples") < 0:
		return fmt.Errorf("--valid-samples %d: must be ≥ 1 (or 0, the default: --samples scaled by the folds' query counts)", c.Int64("valid-samples"))
	}
	return nil
}

// experimentGrid reads --grid into cfg and checks it against the other
// flags: given, it must name a grid (experiment.ParseGrid).
func experimentGrid(c *cli.Context, cfg *experiment.Config) error {
	if !c.IsSet("grid") {
		return nil
	}
	g, err := experiment.ParseGrid(c.String("grid"))
	if err != nil {
		return fmt.Errorf("--grid %q: %w", c.String("grid"), err)
	}
	cfg.Grid = g
	return cfg.CheckGrid()
}

// DefaultPILearningRate is PI-OPT's shrinkage in experiment unless
// --pi-learning-rate, --learning-rate or --preset paper is given. Selecting
// rounds by the value estimate, a smaller step leaves the validation curve
// less room to peak early on a few trees (docs/results.md, "Choosing models
// without labels"); SUP keeps --learning-rate.
const DefaultPILearningRate = 0.05

// piLearningRate reads PI-OPT's learning rate: 0 follows --learning-rate.
func piLearningRate(c *cli.Context) (float64, error) {
	if !c.IsSet("pi-learning-rate") {
		if c.IsSet("learning-rate") || c.String("preset") == "paper" {
			return 0, nil
		}
		return DefaultPILearningRate, nil
	}
	v := c.Float64("pi-learning-rate")
	if !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("--pi-learning-rate %v: must be positive", v)
	}
	return v, nil
}

// loggerSource reads experiment's --rank-by in its canonical spelling ("" when
// not given): the rank source of the logger (policy.Resolve).
func loggerSource(spec string) (string, error) {
	if spec == "" {
		return "", nil
	}
	src, err := policy.Resolve(spec, policy.Options{})
	if err != nil {
		return "", fmt.Errorf("--rank-by: %w", err)
	}
	return src.String(), nil
}

// experimentKinds reads --targets-kind: one kind, or a list such as pi,dr
// that runs the curve once per kind (each checked as impute's flag is).
func experimentKinds(c *cli.Context) (string, []string, error) {
	list := strings.Split(c.String("targets-kind"), ",")
	if len(list) == 1 {
		kind, err := targetsKind(c)
		return kind, nil, err
	}
	for i, k := range list {
		if k != pipeline.TargetsPI && k != pipeline.TargetsDR || slices.Contains(list[:i], k) {
			return "", nil, fmt.Errorf("--targets-kind %q: want a list of distinct kinds, each %s or %s", c.String("targets-kind"), pipeline.TargetsPI, pipeline.TargetsDR)
		}
	}
	return "", list, nil
}
