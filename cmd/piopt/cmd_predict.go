package main

import (
	"os"

	"github.com/piopt/piopt/internal/pipeline"
	"github.com/urfave/cli/v2"
)

func predictCommand() *cli.Command {
	return &cli.Command{
		Name:      "predict",
		Usage:     "score a dataset with a piopt model (pure Go, no XGBoost needed)",
		ArgsUsage: " ",
		Description: `Writes one line per scored row: qid<TAB>doc<TAB>slot<TAB>score, with doc the
0-based position inside the query (its comment id with --doc-ids comment). A
PI-OPT model scores every (doc, slot) pair, slots 1..min(ℓ, m) of a query of m docs; a SUP or LambdaMART model scores each
doc once, with slot 0. Scores equal XGBoost's own predictions up to float32
rounding (XGBoost sums trees in float32, piopt in float64).

   piopt train --sup --data folds/Fold1/train.txt --trees 50 --out sup.model
   piopt predict --data folds/Fold1/test.txt --model sup.model --out test.scores`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "data", Usage: "LETOR `FILE` to score", Required: true},
			&cli.StringFlag{Name: "model", Usage: "model `FILE` from piopt train (binary or .json)", Required: true},
			&cli.StringFlag{Name: "out", Usage: "scores `FILE`", Required: true},
			&cli.IntFlag{Name: "threads", Usage: "inference threads `N`", DefaultText: "all cores; results do not depend on it"},
		}, dataFlags()...),
		Action: runPredict,
	}
}

func runPredict(c *cli.Context) error {
	read, err := readOptions(c)
	if err != nil {
		return err
	}
	_, err = pipeline.Predict(c.Context, pipeline.PredictConfig{Data: c.String("data"), Read: read, Model: c.String("model"),
		Out: c.String("out"), Threads: c.Int("threads"), Progress: os.Stderr})
	return err
}
