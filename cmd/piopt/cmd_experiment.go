package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/lab/experiment"
	"github.com/piopt/piopt/internal/progress"
	"github.com/piopt/piopt/ranker"
	"github.com/piopt/piopt/trainer"
	"github.com/urfave/cli/v2"
)

func experimentCommand() *cli.Command {
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
but through the simulated rewards. PI-OPT keeps the round whose slates the
validation log's PI estimate values most, starting at 0.5 and learning at rate
0.05 (--select-by, --base-score, --pi-learning-rate); SUP and LambdaMART keep
--learning-rate (0.1) and their validation loss.

It prints the table of fold means ± standard deviations and writes
OUT/summary.json and a self-contained OUT/report.html, which record the
command, the versions and the inputs' SHA-256, and OUT/run.json, the start,
wall times and machine, which vary between runs. Every stage's result is
cached in OUT under a hash of its inputs: re-running with the same flags reuses
finished stages, and an interrupted run resumes where it stopped.

--grid trains PI-OPT at every point of a small grid and keeps, per fold and
metric, the point whose slates the validation log's PI estimate values most
(no label read); the point best by the test labels is printed beside it, for
reference only.

   piopt experiment --folds MSLR-WEB10K --slots 3 --samples 10000000 --out results
   piopt experiment --folds folds --only-folds 1 --preset paper --lambdamart --out r1
   piopt experiment --folds MQ2008 --samples 1000000 --grid leaves=31,70,lr=0.05,0.1 --out g`,
		Flags:  experimentFlags(),
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
	paths, err := sum.WriteFiles(cfg.Out)
	if err != nil {
		return err
	}
	if err := sum.WriteTable(os.Stdout); err != nil {
		return err
	}
	fmt.Fprintf(os.Stdout, "wrote %s and %s (run record %s)\n", paths[0], paths[1], paths[2])
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
		Out:          c.String("out"),
		Slots:        c.Int("slots"),
		ValidSamples: c.Int64("valid-samples"),
		Seed:         c.Uint64("seed"),
		PerSample:    c.Bool("per-sample"),
		LambdaMART:   c.Bool("lambdamart"),
		Read:         read,
		Progress:     os.Stderr,
		Notices:      c.App.ErrWriter,
		Command:      commandLine(),
	}
	cfg.PioptVersion, cfg.XGBoostVersion = experiment.Versions()
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
	if cfg.RankBy, err = loggerSource(c.String("rank-by")); err != nil {
		return err
	}
	if cfg.Logging.NeedsRanks() && cfg.RankBy == "" {
		return fmt.Errorf("--logging %s needs a rank source; experiment logs without one (use uniform, as the paper)", cfg.Logging)
	}
	if cfg.TargetsKind, cfg.CurveKinds, err = experimentKinds(c); err != nil {
		return err
	}
	if cfg.Params, err = experimentParams(c); err != nil {
		return err
	}
	if cfg.SelectBy, cfg.BaseScore, err = selectChoices(c, cfg.Params); err != nil {
		return err
	}
	if cfg.LearningRate, err = piLearningRate(c); err != nil {
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
	if err = experimentGrid(c, cfg); err != nil {
		return err
	}
	return checkExperimentCounts(c, cfg)
}
