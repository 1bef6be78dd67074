package policy

import (
	"context"

	"github.com/piopt/piopt/internal/offpolicy"
)

// DMOptions are the hyper-parameters of the direct method's regressions.
type DMOptions struct {
	Depth   int     // depth of the regression tree
	L1      float64 // L1 weight (per row) of the lasso
	Threads int     // 0: all cores
	Seed    uint64
}

// DMRegressors returns the direct method's models by name, as
// offpolicy.ParseEstimators names them: "tree" (one regression tree of
// opt.Depth) and "linear" (lasso with opt.L1), both fitted by XGBoost.
func DMRegressors(opt DMOptions) map[string]offpolicy.Regressor {
	return map[string]offpolicy.Regressor{
		"tree":   dmRegressor{kind: "tree", opt: opt},
		"linear": dmRegressor{kind: "lasso", opt: opt},
	}
}

type dmRegressor struct {
	kind string
	opt  DMOptions
}

// Fit implements offpolicy.Regressor.
func (r dmRegressor) Fit(ctx context.Context, x []float32, cols int, y []float32) (offpolicy.Predictor, error) {
	m, err := fitRegression(ctx, r.kind, x, len(y), cols, y, r.opt.Depth, r.opt.L1, r.opt.Threads, r.opt.Seed)
	if err != nil {
		return nil, err
	}
	return dmPredictor{m}, nil
}

type dmPredictor struct{ m *regression }

// Predict implements offpolicy.Predictor.
func (p dmPredictor) Predict(ctx context.Context, x []float32, cols int, out []float64) error {
	pr, err := p.m.predict(ctx, x, cols)
	if err != nil {
		return err
	}
	copy(out, pr)
	return nil
}

// Close frees the model.
func (p dmPredictor) Close() error { return p.m.b.Close() }
