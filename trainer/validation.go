package trainer

import (
	"context"
	"fmt"

	"github.com/piopt/piopt/data/parallel"
	"github.com/piopt/piopt/data/xgbmodel"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/trainer/xgboost"
)

// validation predicts the rows of a validation matrix after every round, as
// XGBoost predicts a matrix in its prediction cache: the base score, then
// each new tree's leaf added in float32. It walks only the newest round's
// trees (a slice of the booster, decoded by xgbmodel) on rows read in place
// from the matrix, so the validation rows never become an XGBoost matrix
// (which stores 8 bytes a value) and a round costs a few node visits a row
// instead of a pass over every value.
type validation struct {
	m       *features.Matrix
	ev      *evaluator // the metric on m's labels
	pred    []float32
	threads int
}

func newValidation(met metric, m *features.Matrix, threads int) (*validation, error) {
	ev, err := newEvaluator(met, m)
	if err != nil {
		return nil, err
	}
	return &validation{m: m, ev: ev, pred: make([]float32, m.Rows), threads: threads}, nil
}

// round adds round it of bst to the predictions and returns the metric.
func (v *validation) round(ctx context.Context, bst *xgboost.Booster, it int) (float64, error) {
	pred, err := v.add(ctx, bst, it)
	if err != nil {
		return 0, err
	}
	return v.ev.eval(pred), nil
}

// validationChunk is the rows one worker walks at a time.
const validationChunk = 1 << 13

// add adds round it of bst (0-based, the newest) to the predictions and
// returns them (owned by v, overwritten by the next call).
func (v *validation) add(ctx context.Context, bst *xgboost.Booster, it int) ([]float32, error) {
	b, err := bst.SaveSlice(it, it+1, xgboost.FormatBinary)
	if err != nil {
		return nil, err
	}
	round, err := xgbmodel.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("round %d as saved by XGBoost: %w", it+1, err)
	}
	if it == 0 {
		for i := range v.pred {
			v.pred[i] = round.BaseScore
		}
	}
	m := v.m
	return v.pred, parallel.Chunks(ctx, m.Rows, validationChunk, v.threads, nil, func(_ struct{}, lo, hi int) error {
		for k := range round.Trees {
			t := &round.Trees[k]
			for r := lo; r < hi; r++ {
				v.pred[r] += t.Leaf(func(c int) float32 { return m.Value(r, c) })
			}
		}
		return nil
	})
}
