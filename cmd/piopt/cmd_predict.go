package main

import (
	"io"
	"math"
	"os"
	"strconv"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/internal/progress"
	"github.com/piopt/piopt/ranker"
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

// loadForModel loads the --data file and refuses it, as evaluate does
// (ranker.Model.Fits), unless it has the model's feature count: --features N
// is the explicit way to pad a file whose highest feature indices are
// absent.
func loadForModel(c *cli.Context, m *ranker.Model) (*data.Dataset, error) {
	opt, err := readOptions(c)
	if err != nil {
		return nil, err
	}
	ds, err := data.LoadContext(c.Context, c.String("data"), opt)
	if err != nil {
		return nil, err
	}
	if err := m.Fits(ds); err != nil {
		return nil, err
	}
	return ds, nil
}

func runPredict(c *cli.Context) error {
	m, err := ranker.LoadModel(c.String("model"))
	if err != nil {
		return err
	}
	ds, err := loadForModel(c, m)
	if err != nil {
		return err
	}
	bar := progress.New(os.Stderr, "predict", int64(ds.NumDocs()), "docs")
	sc, err := m.Score(c.Context, ds, ranker.ScoreOptions{Threads: c.Int("threads"), Progress: bar.Add})
	bar.Done()
	if err != nil {
		return err
	}
	return writeAtomic(c.String("out"), func(w io.Writer) error { return writeScores(w, ds, sc) })
}

// writeScores writes one line "qid<TAB>doc<TAB>slot<TAB>score" per score
// (slot 0 for a model without slots).
func writeScores(w io.Writer, ds *data.Dataset, sc *ranker.Scores) error {
	st := sc.Stride()
	var line []byte
	for q := range ds.NumQueries() {
		lo, hi := ds.Query(q)
		for d := lo; d < hi; d++ {
			for j, v := range sc.Values[d*st : (d+1)*st] {
				if math.IsNaN(v) {
					continue // slot beyond ℓ_x of a short query
				}
				slot := 0
				if sc.Slots > 0 {
					slot = j + 1
				}
				line = append(line[:0], ds.QIDs[q]...)
				line = append(line, '\t')
				line = ds.AppendDoc(line, q, int32(d-lo))
				line = append(line, '\t')
				line = strconv.AppendInt(line, int64(slot), 10)
				line = append(line, '\t')
				line = strconv.AppendFloat(line, v, 'g', -1, 64)
				line = append(line, '\n')
				if _, err := w.Write(line); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
