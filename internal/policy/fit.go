package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strconv"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/trainer/xgboost"
)

// The feature-subset rankers and DM's models are single regressions that
// trainer's gradient-boosting parameters cannot express (trainer grows
// loss-guided trees by leaf count and has no linear booster), so they are
// fitted here directly on XGBoost (internal/xgboost, the only cgo package):
//
//	tree   one gbtree round, depth-wise growth to max_depth = depth, eta 1,
//	       lambda 0, base score = mean label: exactly a least-squares
//	       regression tree on XGBoost's histogram bins;
//	lasso  gblinear with coordinate descent (cyclic, eta 1, one thread),
//	       lambda 0 and alpha = l1, which XGBoost multiplies by the number
//	       of rows: the objective is scikit-learn's Lasso,
//	       (1/2n)‖y − Xw − b‖² + l1‖w‖₁ with an unpenalised intercept,
//	       minimised until no weight moves by more than 1e-4 of the
//	       largest in a sweep (at most 200 sweeps: with the ℓ·136 strongly
//	       correlated columns of MSLR slates, DM's lasso stops there).

// regression is a fitted XGBoost model with its input width.
type regression struct {
	b    *xgboost.Booster
	cols int
	// linear holds a lasso's weights (cols, then the bias) and its base
	// score: it predicts in Go (gblinear has no in-place prediction).
	linear    []float64
	baseScore float64
}

// The lasso runs coordinate-descent sweeps until no weight moves by more
// than lassoTol × the largest weight (at most lassoMaxRounds sweeps).
const (
	lassoTol       = 1e-4
	lassoMaxRounds = 200
)

// smallFit is the matrix size (values) below which a fit runs on one
// thread: XGBoost's OpenMP barriers then cost more than they save, and on a
// busy machine they cost seconds per fit.
const smallFit = 4 << 20

// fitRegression fits kind ("tree" or "lasso") to the rows of x.
func fitRegression(ctx context.Context, kind string, x []float32, rows, cols int, y []float32, depth int, l1 float64, threads int, seed uint64) (*regression, error) {
	if rows == 0 {
		return nil, fmt.Errorf("no rows to fit")
	}
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if rows*cols < smallFit || kind == "lasso" {
		// Coordinate descent meets a barrier per feature per sweep: with
		// more than one thread on a busy machine each costs a time slice.
		threads = 1
	}
	mean := 0.0
	for _, v := range y {
		mean += float64(v)
	}
	mean /= float64(rows)
	ftoa := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	common := []xgboost.Param{
		{Name: "objective", Value: "reg:squarederror"},
		{Name: "base_score", Value: ftoa(mean)},
		{Name: "nthread", Value: strconv.Itoa(threads)},
		{Name: "seed", Value: strconv.FormatUint(seed%math.MaxInt32, 10)},
		{Name: "verbosity", Value: "1"},
	}
	var params []xgboost.Param
	build := xgboost.BuildQuantile
	switch kind {
	case "tree":
		params = append(common,
			xgboost.Param{Name: "booster", Value: "gbtree"},
			xgboost.Param{Name: "tree_method", Value: "hist"},
			xgboost.Param{Name: "grow_policy", Value: "depthwise"},
			xgboost.Param{Name: "max_depth", Value: strconv.Itoa(depth)},
			xgboost.Param{Name: "max_bin", Value: "256"},
			xgboost.Param{Name: "eta", Value: "1"},
			xgboost.Param{Name: "lambda", Value: "0"},
			xgboost.Param{Name: "min_child_weight", Value: "1"},
		)
	case "lasso":
		build = xgboost.BuildDense
		params = append(common,
			xgboost.Param{Name: "booster", Value: "gblinear"},
			xgboost.Param{Name: "updater", Value: "coord_descent"},
			xgboost.Param{Name: "feature_selector", Value: "cyclic"},
			xgboost.Param{Name: "eta", Value: "1"},
			xgboost.Param{Name: "lambda", Value: "0"},
			// gblinear scales its penalties by the sum of row weights
			// (DenormalizePenalties), so alpha is already per row.
			xgboost.Param{Name: "alpha", Value: ftoa(l1)},
		)
	default:
		return nil, fmt.Errorf("unknown regression %q", kind)
	}
	dm, err := xgboost.NewDMatrix(xgboost.Dense{Data: x, Rows: rows, Cols: cols, Labels: y},
		xgboost.MatrixOptions{Build: build, Threads: threads, MaxBin: 256})
	if err != nil {
		return nil, err
	}
	defer dm.Close()
	b, err := xgboost.NewBooster(params, dm)
	if err != nil {
		return nil, err
	}
	r := &regression{b: b, cols: cols, baseScore: mean}
	if kind == "tree" {
		if err := b.Update(0, dm); err != nil {
			b.Close()
			return nil, err
		}
		return r, nil
	}
	var prev []float64
	for it := range lassoMaxRounds {
		if err := ctx.Err(); err != nil {
			b.Close()
			return nil, err
		}
		if err := b.Update(it, dm); err != nil {
			b.Close()
			return nil, err
		}
		w, err := linearWeights(b)
		if err != nil {
			b.Close()
			return nil, err
		}
		r.linear = w
		if prev != nil && converged(prev, w) {
			break
		}
		prev = w
	}
	return r, nil
}

// converged reports whether no weight moved by more than lassoTol × the
// largest weight in the last sweep.
func converged(prev, w []float64) bool {
	var move, size float64
	for i, v := range w {
		move = max(move, math.Abs(v-prev[i]))
		size = max(size, math.Abs(v))
	}
	return move <= lassoTol*max(size, 1e-12)
}

// linearWeights reads a gblinear model's weights (one per feature, then
// the bias) from its JSON form.
func linearWeights(b *xgboost.Booster) ([]float64, error) {
	raw, err := b.Save(xgboost.FormatJSON)
	if err != nil {
		return nil, err
	}
	var m struct {
		Learner struct {
			GradientBooster struct {
				Model struct {
					Weights []float64 `json:"weights"`
				} `json:"model"`
			} `json:"gradient_booster"`
		} `json:"learner"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("reading gblinear weights: %w", err)
	}
	return m.Learner.GradientBooster.Model.Weights, nil
}

// predict returns one prediction per row of x.
func (r *regression) predict(ctx context.Context, x []float32, cols int) ([]float64, error) {
	if cols != r.cols {
		return nil, fmt.Errorf("model fitted on %d columns, asked to predict %d", r.cols, cols)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows := len(x) / cols
	if r.linear != nil {
		if len(r.linear) != cols+1 {
			return nil, fmt.Errorf("linear model has %d weights for %d columns", len(r.linear), cols)
		}
		out := make([]float64, rows)
		for i := range out {
			v := r.baseScore + r.linear[cols]
			for k, xv := range x[i*cols : (i+1)*cols] {
				v += r.linear[k] * float64(xv)
			}
			out[i] = v
		}
		return out, nil
	}
	p, err := r.b.PredictDense(x, rows, cols, xgboost.PredictOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(p))
	for i, v := range p {
		out[i] = float64(v)
	}
	return out, nil
}

// fitLearned fits a feature-subset ranker to the labels of train, on a copy
// of its features with every column outside the subset zeroed (Masked): a
// zero column offers no split and gets no L1 weight, so the model scores
// full feature rows unchanged.
func fitLearned(ctx context.Context, l *Learned, train *data.Dataset) (scorer, error) {
	x := Masked(train, l.features)
	y := make([]float32, train.NumDocs())
	for i, g := range train.Labels {
		y[i] = float32(g)
	}
	kind := l.kind
	return fitRegression(ctx, kind, x, train.NumDocs(), train.NumFeatures, y, l.depth, l.l1, l.opt.Threads, l.opt.Seed)
}
