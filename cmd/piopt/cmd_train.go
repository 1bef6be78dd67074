package main

import (
	"fmt"
	"os"

	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/internal/atomicfile"
	"github.com/piopt/piopt/internal/pipeline"
	"github.com/piopt/piopt/trainer"
	"github.com/urfave/cli/v2"
)

func trainCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "data", Required: true, Usage: "training LETOR `FILE`"},
		&cli.StringFlag{Name: "targets", Usage: "PI-OPT targets `FILE` for --data (as written by impute)"},
		&cli.StringFlag{Name: "valid-data", Usage: "validation LETOR `FILE`, for the validation loss and --early-stopping"},
		&cli.StringFlag{Name: "valid-targets", Usage: "PI-OPT targets `FILE` for --valid-data, imputed from logs simulated on it (no labels used)"},
		&cli.BoolFlag{Name: "sup", Usage: "train SUP: regress each doc's gain on its features (no targets)"},
		&cli.StringFlag{Name: "sup-target", Value: "gain", Usage: "SUP regression `TARGET`: gain (2^rel − 1, the paper's SUP) or relevance (the grade, SUP-rel)"},
		&cli.StringFlag{Name: "objective", Value: trainer.ObjectiveRegression, Usage: "`OBJECTIVE`: reg:squarederror, or rank:ndcg on the labels (the LambdaMART anchor)"},
		&cli.StringFlag{Name: "eval-metric", Usage: "validation `METRIC` (default: rmse; ndcg@3 for rank:ndcg)"},
		&cli.StringFlag{Name: "json", Usage: "also write every round's training and validation values (and the value estimate's interval) to `FILE`"},
		&cli.StringFlag{Name: "out", Required: true, Usage: "model `FILE` to write: XGBoost JSON for a .json name, else XGBoost's legacy binary (what leaves reads)"},
	}
	return &cli.Command{
		Name:  "train",
		Usage: "train gradient-boosted trees: PI-OPT on imputed targets, SUP on gains, or LambdaMART",
		Description: `train fits XGBoost regression trees (tree_method=hist, loss-guided growth up to
--leaves leaves) and writes the model atomically, with piopt's metadata (kind,
slots, feature count, metric, targets) stored as booster attributes.

PI-OPT regresses the imputed targets on rows [f(x,a); onehot(j)], one per
(query, doc, slot) of the targets file, weighted as the file says:

   piopt train --data Fold1/train.txt --targets train.targets \
               --valid-data Fold1/vali.txt --valid-targets vali.targets \
               --early-stopping 50 --out pi.model

SUP regresses each doc's gain 2^rel − 1 (--sup-target relevance: its grade) on
f(x,a), rows weighted 1/m_x so every query weighs 1; the validation loss uses
the validation fold's gains:

   piopt train --sup --data Fold1/train.txt --valid-data Fold1/vali.txt --out sup.model

The LambdaMART anchor ranks with rank:ndcg on the labels, query by query:

   piopt train --objective rank:ndcg --data Fold1/train.txt --valid-data Fold1/vali.txt \
               --eval-metric ndcg@3 --out lambdamart.model

The same seed gives the same model bytes, whatever --threads. Progress (round,
training and validation loss, ETA) shows on a terminal.

A distributed training runs on XGBoost's own collective: each of N workers
trains on its share of the queries (qid hashed), rank 0 validates and writes the
model. On one machine (the tracker needs python3-xgboost):

   piopt train --workers 4 --data Fold1/train.txt --targets train.targets --out pi.model

or on N machines, with a tracker started as docs/distributed.md says:

   piopt train … --tracker HOST:PORT --world N --rank I`,
		Flags:  append(append(append(append(flags, trainFlags()...), selectFlags(trainer.SelectMetric, "mean")...), dataFlags()...), jobFlags()...),
		Action: runTrain,
	}
}

func runTrain(c *cli.Context) error {
	cfg, err := trainConfig(c)
	if err != nil {
		return err
	}
	if cfg.Job, err = jobConfig(c); err != nil {
		return err
	}
	if c.IsSet("workers") {
		return launchWorkers(c)
	}
	res, err := pipeline.Train(c.Context, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, res)
	if path := c.String("json"); path != "" && res.Out != "" {
		return atomicfile.WriteJSON(path, res.JSON())
	}
	return nil
}

// trainConfig reads train's flags and checks that they fit together.
func trainConfig(c *cli.Context) (pipeline.TrainConfig, error) {
	p, err := trainParams(c)
	if err != nil {
		return pipeline.TrainConfig{}, err
	}
	p.Objective = c.String("objective")
	p.EvalMetric = c.String("eval-metric")
	p.SelectBy, p.BaseScore = c.String("select-by"), c.String("base-score")
	if p.SelectBy == trainer.SelectMetric {
		p.SelectBy = ""
	}
	if p.BaseScore == "mean" {
		p.BaseScore = ""
	}
	if err := p.Validate(); err != nil {
		return pipeline.TrainConfig{}, err
	}
	sup, rank := c.Bool("sup"), p.Objective == trainer.ObjectiveRankNDCG
	pi := !sup && !rank
	supTarget, err := features.ParseSupTarget(c.String("sup-target"))
	if err != nil {
		return pipeline.TrainConfig{}, fmt.Errorf("--sup-target: %w", err)
	}
	validData := c.String("valid-data")
	switch {
	case sup && rank:
		return pipeline.TrainConfig{}, fmt.Errorf("--sup trains a regression: drop --objective %s", p.Objective)
	case !pi && (c.IsSet("targets") || c.IsSet("valid-targets")):
		return pipeline.TrainConfig{}, fmt.Errorf("--targets and --valid-targets are for PI-OPT, not %s", map[bool]string{true: "SUP", false: "LambdaMART"}[sup])
	case pi && c.String("targets") == "":
		return pipeline.TrainConfig{}, fmt.Errorf("PI-OPT needs --targets (or give --sup, or --objective rank:ndcg)")
	case pi && (validData == "") != (c.String("valid-targets") == ""):
		return pipeline.TrainConfig{}, fmt.Errorf("PI-OPT validation needs both --valid-data and --valid-targets")
	case c.IsSet("sup-target") && !sup:
		return pipeline.TrainConfig{}, fmt.Errorf("--sup-target needs --sup")
	case p.EarlyStopping > 0 && validData == "":
		return pipeline.TrainConfig{}, fmt.Errorf("--early-stopping needs --valid-data")
	case p.SelectBy == trainer.SelectValue && (!pi || validData == ""):
		return pipeline.TrainConfig{}, fmt.Errorf("--select-by value estimates PI-OPT's slates on a validation log: needs PI-OPT's --valid-data and --valid-targets")
	}
	read, err := readOptions(c)
	if err != nil {
		return pipeline.TrainConfig{}, err
	}
	kind := features.KindPIOPT
	if sup {
		kind = features.KindSUP
	} else if rank {
		kind = features.KindLambdaMART
	}
	return pipeline.TrainConfig{
		Kind:         kind,
		SupTarget:    supTarget,
		Data:         c.String("data"),
		Targets:      c.String("targets"),
		ValidData:    validData,
		ValidTargets: c.String("valid-targets"),
		Params:       p,
		Out:          c.String("out"),
		Read:         read,
		Progress:     os.Stderr,
	}, nil
}

// launchWorkers runs train --workers N: the tracker and N workers, each
// this binary with the same flags as a worker of the job.
func launchWorkers(c *cli.Context) error {
	py, err := pipeline.FindPython(c.String("python"))
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("--workers: finding piopt's binary: %w", err)
	}
	return pipeline.Launch(c.Context, pipeline.LaunchConfig{Workers: c.Int("workers"), Python: py, Exe: exe,
		Args: workerArgs(c), Stderr: os.Stderr})
}
