package trainer

import (
	"context"
	"fmt"
	"math"

	"github.com/piopt/piopt/data/xgbmodel"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/internal/parallel"
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
	ev      *evaluator  // the metric on m's labels
	sv      *SlateValue // or, selecting by value, the slates' estimated value
	pred    []float32
	threads int
}

// newValidation scores m after every round by sv when not nil, else by met
// on m's labels.
func newValidation(met metric, sv *SlateValue, m *features.Matrix, threads int) (*validation, error) {
	v := &validation{m: m, sv: sv, pred: make([]float32, m.Rows), threads: threads}
	if sv != nil {
		if len(sv.target) != m.Rows {
			return nil, fmt.Errorf("value selection: %d validation targets for %d validation rows", len(sv.target), m.Rows)
		}
		return v, nil
	}
	var err error
	v.ev, err = newEvaluator(met, m)
	return v, err
}

// round adds round it of bst to the predictions and returns the metric, or
// the estimated value with its interval (lo and hi are NaN for a metric).
func (v *validation) round(ctx context.Context, bst *xgboost.Booster, it int) (val, lo, hi float64, err error) {
	pred, err := v.add(ctx, bst, it)
	if err != nil {
		return 0, 0, 0, err
	}
	if v.sv != nil {
		e := v.sv.estimate(pred)
		return e.Value, e.Lo, e.Hi, nil
	}
	return v.ev.eval(pred), math.NaN(), math.NaN(), nil
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
