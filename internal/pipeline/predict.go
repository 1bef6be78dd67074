package pipeline

import (
	"context"
	"io"
	"math"
	"strconv"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/internal/atomicfile"
	"github.com/piopt/piopt/internal/progress"
	"github.com/piopt/piopt/ranker"
)

// PredictConfig is one run of piopt predict.
type PredictConfig struct {
	Data     string           // LETOR file to score
	Read     data.ReadOptions // how Data is read
	Model    string           // model file
	Out      string           // scores file to write
	Threads  int              // inference threads; 0: all cores
	Progress io.Writer        // progress bars (shown only on a terminal)
}

// PredictResult summarises the scores written.
type PredictResult struct {
	Docs int
	Out  string
}

// Predict scores the data with the model and writes one line per score,
// qid<TAB>doc<TAB>slot<TAB>score: every (doc, slot) pair, slots
// 1..min(ℓ, m), for a PI-OPT model, each doc once with slot 0 for a SUP or
// LambdaMART model.
func Predict(ctx context.Context, cfg PredictConfig) (*PredictResult, error) {
	m, err := ranker.LoadModel(cfg.Model)
	if err != nil {
		return nil, err
	}
	ds, err := loadFor(ctx, cfg.Data, cfg.Read, m)
	if err != nil {
		return nil, err
	}
	bar := progress.New(cfg.Progress, "predict", int64(ds.NumDocs()), "docs")
	sc, err := m.Score(ctx, ds, ranker.ScoreOptions{Threads: cfg.Threads, Progress: bar.Add})
	bar.Done()
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteWith(cfg.Out, func(w io.Writer) error { return writeScores(w, ds, sc) }); err != nil {
		return nil, err
	}
	return &PredictResult{Docs: ds.NumDocs(), Out: cfg.Out}, nil
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
