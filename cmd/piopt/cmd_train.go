package main

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"time"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/internal/progress"
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
training and validation loss, ETA) shows on a terminal.`,
		Flags:  append(append(flags, trainFlags()...), dataFlags()...),
		Action: runTrain,
	}
}

func runTrain(c *cli.Context) error {
	p, err := trainParams(c)
	if err != nil {
		return err
	}
	p.Objective = c.String("objective")
	p.EvalMetric = c.String("eval-metric")
	if err := p.Validate(); err != nil {
		return err
	}
	sup, rank := c.Bool("sup"), p.Objective == trainer.ObjectiveRankNDCG
	pi := !sup && !rank
	supTarget, err := features.ParseSupTarget(c.String("sup-target"))
	if err != nil {
		return fmt.Errorf("--sup-target: %w", err)
	}
	validData := c.String("valid-data")
	switch {
	case sup && rank:
		return fmt.Errorf("--sup trains a regression: drop --objective %s", p.Objective)
	case !pi && (c.IsSet("targets") || c.IsSet("valid-targets")):
		return fmt.Errorf("--targets and --valid-targets are for PI-OPT, not %s", map[bool]string{true: "SUP", false: "LambdaMART"}[sup])
	case pi && c.String("targets") == "":
		return fmt.Errorf("PI-OPT needs --targets (or give --sup, or --objective rank:ndcg)")
	case pi && (validData == "") != (c.String("valid-targets") == ""):
		return fmt.Errorf("PI-OPT validation needs both --valid-data and --valid-targets")
	case c.IsSet("sup-target") && !sup:
		return fmt.Errorf("--sup-target needs --sup")
	case p.EarlyStopping > 0 && validData == "":
		return fmt.Errorf("--early-stopping needs --valid-data")
	}

	var reading, building time.Duration // piopt's own work before XGBoost
	matrix := func(flag, targetsFlag string) (*features.Matrix, error) {
		start := time.Now()
		ds, err := loadData(c, flag)
		if err != nil {
			return nil, err
		}
		var t *data.Targets
		if pi {
			if t, err = data.ReadTargets(c.String(targetsFlag), ds); err != nil {
				return nil, err
			}
		}
		reading += time.Since(start)
		start = time.Now()
		defer func() { building += time.Since(start) }()
		switch {
		case sup:
			return features.SUP(ds, supTarget)
		case rank:
			return features.LambdaMART(ds)
		}
		return features.PIOPT(ds, t)
	}
	train, err := matrix("data", "targets")
	if err != nil {
		return err
	}
	var valid *features.Matrix
	if validData != "" {
		if valid, err = matrix("valid-data", "valid-targets"); err != nil {
			return err
		}
		if pi && valid.Meta.Slots != train.Meta.Slots {
			return fmt.Errorf("--valid-targets are for %d slots, --targets for %d", valid.Meta.Slots, train.Meta.Slots)
		}
	}
	// The datasets and targets are garbage now (the matrices copied what
	// they need; a SUP matrix shares its dataset's features): hand their
	// memory back before XGBoost makes its own copy of the matrix, which
	// is when the process peaks.
	debug.FreeOSMemory()

	// Only these survive: trainer.Train lets the rows go once XGBoost has
	// its copy, as long as nothing here refers to the matrices afterwards.
	rows, cols, hasValid := train.Rows, train.Cols, valid != nil
	bar := progress.New(os.Stderr, "train", int64(p.Trees), "rounds")
	model, err := trainer.Train(c.Context, train, valid, p, func(r trainer.Round) {
		s := fmt.Sprintf("train %s %.5g", r.Metric, r.Train)
		if !math.IsNaN(r.Valid) {
			s += fmt.Sprintf(", valid %.5g (best %.5g @%d)", r.Valid, r.BestValid, r.Best+1)
		}
		bar.Status(s)
		bar.Add(1)
	})
	bar.Done()
	if err != nil {
		return err
	}
	defer model.Close()
	out := c.String("out")
	if err := model.Save(out); err != nil {
		return err
	}
	summary := fmt.Sprintf("train: %s model on %d×%d rows, %d rounds", model.Meta.Kind, rows, cols, model.Trained)
	if hasValid {
		summary += fmt.Sprintf(", best %d (valid %s %.6g)", model.BestIteration+1, model.Metric, model.BestScore)
		if model.Rounds < model.Trained {
			summary += fmt.Sprintf(", kept %d", model.Rounds)
		}
	}
	last := model.History[len(model.History)-1]
	ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	summary += fmt.Sprintf(", train %s %.6g; reading %s, features %s, XGBoost matrices %s, boosting %s → %s",
		model.Metric, last.Train, ms(reading), ms(building), ms(model.Timing.Matrix), ms(model.Timing.Boost), out)
	fmt.Fprintln(os.Stderr, summary)
	return nil
}
