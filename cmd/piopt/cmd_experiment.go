package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/piopt/piopt/data/atomicfile"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/experiment"
	"github.com/piopt/piopt/internal/progress"
	"github.com/piopt/piopt/ranker"
	"github.com/piopt/piopt/trainer"
	"github.com/urfave/cli/v2"
)

func experimentCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "folds", Required: true, Usage: "`DIR` holding Fold1..Fold5 (or fold1..fold5), each with train.txt, vali.txt and test.txt (MSLR-WEB10K, LETOR 4.0, piopt synth), trainingset.txt, validationset.txt and testset.txt (LETOR 3.0), or valid.txt for vali.txt; any may be .txt.gz"},
		&cli.StringFlag{Name: "only-folds", Usage: "run only these fold numbers, e.g. `1,3` (default: every fold found)"},
		&cli.IntFlag{Name: "slots", Value: 3, Usage: "slate length `L` (the metrics' cut-off)"},
		&cli.Int64Flag{Name: "samples", Value: 10_000_000, Usage: "logged impressions `N` simulated on each training fold, per metric (the paper: 10^7)"},
		&cli.Int64Flag{Name: "valid-samples", Usage: "impressions `N` simulated on the validation fold for PI-OPT's early stopping", DefaultText: "--samples scaled by the folds' query counts"},
		&cli.StringFlag{Name: "metrics", Value: "ndcg,err", Usage: "page-level rewards to optimise and report, `LIST` of ndcg, err"},
		&cli.StringFlag{Name: "logging", Value: "uniform", Usage: "logging `SPEC` of the simulated logs (the paper: uniform)"},
		&cli.BoolFlag{Name: "per-sample", Usage: "weigh PI-OPT rows by impressions instead of 1 per query"},
		&cli.BoolFlag{Name: "lambdamart", Usage: "also train XGBoost rank:ndcg on the labels (the listwise supervised anchor)"},
		&cli.StringFlag{Name: "sup-target", Value: "gain", Usage: "SUP regresses on `TARGET`: gain (2^rel−1, the paper) or relevance"},
		&cli.StringFlag{Name: "slate", Value: "greedy", Usage: "`METHOD` of PI-OPT slates: greedy (the paper) or exact"},
		&cli.IntFlag{Name: "random-samples", Value: ranker.DefaultRandomSamples, Usage: "unused: random NDCG and ERR are exact expectations (`N` kept so that old scripts run)"},
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
	flags = append(flags, dataFlags()...)
	flags = append(flags, conventionFlags()...)
	return &cli.Command{
		Name:  "experiment",
		Usage: "run the paper's PI-OPT vs SUP vs random experiment over every fold and print the table",
		Description: `experiment reproduces Table 1 of Swaminathan et al. (2017): for every fold and
every metric (NDCG@L, ERR@L) it simulates --samples uniformly logged slates on
the training fold with the metric as page-level reward, imputes PI targets,
trains PI-OPT on them, trains SUP on the training labels (once per fold), and
scores the test fold's slates of every model and of uniformly random slates.

Training stops early (--early-stopping 50 unless given; off with --preset
paper): SUP on the validation fold's gains, PI-OPT on targets imputed from
slates simulated on the validation fold, so no validation label reaches PI-OPT
but through the simulated rewards.

It prints the table of fold means ± standard deviations and writes
OUT/summary.json and a self-contained OUT/report.html. Every stage's result is
cached in OUT under a hash of its inputs: re-running with the same flags reuses
finished stages, and an interrupted run resumes where it stopped.

   piopt experiment --folds MSLR-WEB10K --slots 3 --samples 10000000 --out results
   piopt experiment --folds folds --only-folds 1 --preset paper --lambdamart --out r1`,
		Flags:  flags,
		Action: runExperiment,
	}
}

// DefaultExperimentEarlyStopping is experiment's --early-stopping when the
// flag is not given and the preset is not the paper's.
const DefaultExperimentEarlyStopping = 50

// experimentParams reads trainFlags with experiment's own default for
// --early-stopping. Every fold has a validation set, and the validation
// curves (trainer's curves test) peak long before 300 rounds at learning
// rate 0.1: stopping early is both better and faster. The paper preset
// trains every round, as the paper did.
func experimentParams(c *cli.Context) (trainer.Params, error) {
	p, err := trainParams(c)
	if err == nil && !c.IsSet("early-stopping") && c.String("preset") != "paper" {
		p.EarlyStopping = DefaultExperimentEarlyStopping
	}
	return p, err
}

func runExperiment(c *cli.Context) error {
	cfg, err := experimentConfig(c)
	if err != nil {
		return err
	}
	sum, err := experiment.Run(c.Context, cfg)
	if err != nil {
		return err
	}
	b, err := sum.MarshalJSON()
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(cfg.Out, "summary.json"), append(b, '\n')); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(cfg.Out, "report.html"), sum.HTML()); err != nil {
		return err
	}
	if err := sum.WriteTable(os.Stdout); err != nil {
		return err
	}
	fmt.Fprintf(os.Stdout, "wrote %s and %s\n", filepath.Join(cfg.Out, "summary.json"), filepath.Join(cfg.Out, "report.html"))
	return nil
}

// experimentConfig reads experiment's flags.
func experimentConfig(c *cli.Context) (experiment.Config, error) {
	var only []int
	if s := c.String("only-folds"); s != "" {
		for _, f := range strings.Split(s, ",") {
			k, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || k < 1 {
				return experiment.Config{}, fmt.Errorf("--only-folds %q: want fold numbers like 1,3", s)
			}
			if slices.Contains(only, k) {
				return experiment.Config{}, fmt.Errorf("--only-folds %q: fold %d given twice", s, k)
			}
			only = append(only, k)
		}
	}
	read, err := readOptions(c)
	if err != nil {
		return experiment.Config{}, err
	}
	cfg := experiment.Config{
		Out:           c.String("out"),
		Slots:         c.Int("slots"),
		Samples:       c.Int64("samples"),
		ValidSamples:  c.Int64("valid-samples"),
		Seed:          c.Uint64("seed"),
		PerSample:     c.Bool("per-sample"),
		LambdaMART:    c.Bool("lambdamart"),
		Read:          read,
		RandomSamples: c.Int("random-samples"),
		Progress:      os.Stderr,
	}
	if progress.IsTerminal(os.Stderr) {
		cfg.Log = os.Stderr
	}
	// Not "return cfg, experimentChoices(…)": Go leaves unspecified
	// whether cfg is copied before or after the call fills it.
	if err = experimentChoices(c, &cfg); err != nil {
		return cfg, err
	}
	// The folds last: assembling a training file (--assemble-train) is
	// work, done only once every flag has been checked.
	cfg.Folds, err = experiment.FindFolds(c.String("folds"), only, experiment.FoldOptions{
		AssembleTrain: c.Bool("assemble-train"), Out: cfg.Out, Log: c.App.ErrWriter, Context: c.Context})
	return cfg, err
}

// experimentChoices reads the flags of experiment that need parsing into
// cfg, in the order their errors are reported.
func experimentChoices(c *cli.Context, cfg *experiment.Config) error {
	var err error
	if cfg.Metrics, err = parseMetrics("metrics", c.String("metrics")); err != nil {
		return err
	}
	if cfg.Logging, err = impute.ParseLogging(c.String("logging")); err != nil {
		return fmt.Errorf("--logging: %w", err)
	}
	if cfg.Logging.NeedsRanks() {
		return fmt.Errorf("--logging %s needs a rank source; experiment logs without one (use uniform, as the paper)", cfg.Logging)
	}
	if cfg.Params, err = experimentParams(c); err != nil {
		return err
	}
	if cfg.SelectBy, cfg.BaseScore, err = selectChoices(c, cfg.Params); err != nil {
		return err
	}
	if cfg.SupTarget, err = features.ParseSupTarget(c.String("sup-target")); err != nil {
		return fmt.Errorf("--sup-target: %w", err)
	}
	if cfg.Slate, err = ranker.ParseSlateMethod(c.String("slate")); err != nil {
		return fmt.Errorf("--slate: %w", err)
	}
	// maxrel 0: the experiment takes the data's highest grade.
	if cfg.Conventions, err = conventions(c); err != nil {
		return err
	}
	if c.Int("slots") < 1 {
		return fmt.Errorf("--slots %d: must be ≥ 1", c.Int("slots"))
	}
	return checkExperimentCounts(c)
}

// checkExperimentCounts checks experiment's sample counts before any work.
func checkExperimentCounts(c *cli.Context) error {
	switch {
	case c.Int64("samples") < 1:
		return fmt.Errorf("--samples %d: must be ≥ 1", c.Int64("samples"))
	case c.Int64("valid-samples") < 0:
		return fmt.Errorf("--valid-samples %d: must be ≥ 1 (or 0, the default: --samples scaled by the folds' query counts)", c.Int64("valid-samples"))
	case c.Int("random-samples") < 0:
		return fmt.Errorf("--random-samples %d: must be ≥ 1 (or 0: %d)", c.Int("random-samples"), ranker.DefaultRandomSamples)
	}
	return nil
}
