package trainer

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/piopt/piopt/trainer/xgboost"
)

// Available reports whether this build can train (cgo and libxgboost).
const Available = xgboost.Available

// ErrNoCgo is the error of every fit and training in a build without cgo.
var ErrNoCgo = xgboost.ErrNoCgo

// The feature-subset rankers and the direct method's models are single
// regressions that Params cannot express (Train grows loss-guided trees by
// leaf count and has no linear booster), so FitTree and FitLasso set up
// XGBoost themselves:
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

// FitOptions are the settings every regression fit shares.
type FitOptions struct {
	Threads int    // 0: the idle cores (xgboost.IdleCores; a lasso and a small fit use one)
	Seed    uint64 // XGBoost's seed (taken modulo 2^31−1)
}

// Regression is a fitted tree or lasso: Predict scores rows of the width
// it was fitted on; Close frees the XGBoost model.
type Regression struct {
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

// FitTree fits one least-squares regression tree of the given depth to
// the labels y, one per row of the row-major matrix x of cols columns.
func FitTree(ctx context.Context, x []float32, cols int, y []float32, depth int, opt FitOptions) (*Regression, error) {
	params := []xgboost.Param{
		{Name: "booster", Value: "gbtree"},
		{Name: "tree_method", Value: "hist"},
		{Name: "grow_policy", Value: "depthwise"},
		{Name: "max_depth", Value: strconv.Itoa(depth)},
		{Name: "max_bin", Value: "256"},
		{Name: "eta", Value: "1"},
		{Name: "lambda", Value: "0"},
		{Name: "min_child_weight", Value: "1"},
	}
	threads := fitThreads(len(y)*cols, opt.Threads, false)
	r, dm, err := newRegression(x, cols, y, params, xgboost.BuildQuantile, threads, opt.Seed)
	if err != nil {
		return nil, err
	}
	defer dm.Close()
	if err := r.b.Update(0, dm); err != nil {
		r.b.Close()
		return nil, err
	}
	return r, nil
}

// FitLasso fits an L1-penalised linear model (scikit-learn's Lasso
// objective with alpha = l1) to the labels y, one per row of x.
func FitLasso(ctx context.Context, x []float32, cols int, y []float32, l1 float64, opt FitOptions) (*Regression, error) {
	params := []xgboost.Param{
		{Name: "booster", Value: "gblinear"},
		{Name: "updater", Value: "coord_descent"},
		{Name: "feature_selector", Value: "cyclic"},
		{Name: "eta", Value: "1"},
		{Name: "lambda", Value: "0"},
		// gblinear scales its penalties by the sum of row weights
		// (DenormalizePenalties), so alpha is already per row.
		{Name: "alpha", Value: ftoa(l1)},
	}
	threads := fitThreads(len(y)*cols, opt.Threads, true)
	r, dm, err := newRegression(x, cols, y, params, xgboost.BuildDense, threads, opt.Seed)
	if err != nil {
		return nil, err
	}
	defer dm.Close()
	var prev []float64
	for it := range lassoMaxRounds {
		if err := ctx.Err(); err != nil {
			r.b.Close()
			return nil, err
		}
		if err := r.b.Update(it, dm); err != nil {
			r.b.Close()
			return nil, err
		}
		w, err := linearWeights(r.b)
		if err != nil {
			r.b.Close()
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

// fitThreads returns the threads of a fit of size values.
func fitThreads(size, threads int, lasso bool) int {
	if size < smallFit || lasso {
		// Coordinate descent meets a barrier per feature per sweep: with
		// more than one thread on a busy machine each costs a time slice.
		return 1
	}
	if threads <= 0 {
		threads = xgboost.IdleCores()
	}
	return threads
}

// newRegression builds the training matrix and a booster with the
// booster-specific params after the shared ones (squared error, base score
// = mean label). The caller closes the matrix.
func newRegression(x []float32, cols int, y []float32, params []xgboost.Param, build xgboost.Build, threads int, seed uint64) (*Regression, *xgboost.DMatrix, error) {
	rows := len(y)
	if rows == 0 {
		return nil, nil, fmt.Errorf("no rows to fit")
	}
	mean := 0.0
	for _, v := range y {
		mean += float64(v)
	}
	mean /= float64(rows)
	common := []xgboost.Param{
		{Name: "objective", Value: "reg:squarederror"},
		{Name: "base_score", Value: ftoa(mean)},
		{Name: "nthread", Value: strconv.Itoa(threads)},
		{Name: "seed", Value: strconv.FormatUint(seed%math.MaxInt32, 10)},
		{Name: "verbosity", Value: "1"},
	}
	dm, err := newDMatrix(xgboost.Dense{Data: x, Rows: rows, Cols: cols, Labels: y},
		xgboost.MatrixOptions{Build: build, Threads: threads, MaxBin: 256})
	if err != nil {
		return nil, nil, err
	}
	b, err := xgboost.NewBooster(append(common, params...), dm)
	if err != nil {
		dm.Close()
		return nil, nil, err
	}
	return &Regression{b: b, cols: cols, baseScore: mean}, dm, nil
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

// Predict returns one prediction per row of x (cols columns, as fitted).
func (r *Regression) Predict(ctx context.Context, x []float32, cols int) ([]float64, error) {
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

// Close frees the XGBoost model.
func (r *Regression) Close() error { return r.b.Close() }
