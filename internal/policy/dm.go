package policy

import (
	"context"

	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/trainer"
)

// DMOptions are the hyper-parameters of the direct method's regressions.
type DMOptions struct {
	Depth   int     // depth of the regression tree
	L1      float64 // L1 weight (per row) of the lasso
	Threads int     // 0: the idle cores
	Seed    uint64
}

// DMRegressors returns the direct method's models by name, as
// ope.ParseEstimators names them: "tree" (one regression tree of
// opt.Depth) and "linear" (lasso with opt.L1), both fitted by XGBoost.
func DMRegressors(opt DMOptions) map[string]ope.Regressor {
	return map[string]ope.Regressor{
		"tree":   dmRegressor{lasso: false, opt: opt},
		"linear": dmRegressor{lasso: true, opt: opt},
	}
}

type dmRegressor struct {
	lasso bool
	opt   DMOptions
}

// Fit implements ope.Regressor.
func (r dmRegressor) Fit(ctx context.Context, x []float32, cols int, y []float32) (ope.Predictor, error) {
	m, err := fitRegression(ctx, r.lasso, x, cols, y, r.opt.Depth, r.opt.L1,
		trainer.FitOptions{Threads: r.opt.Threads, Seed: r.opt.Seed})
	if err != nil {
		return nil, err
	}
	return dmPredictor{m}, nil
}

// fitRegression fits a lasso of L1 weight l1 or (not lasso) a regression
// tree of the given depth: the two regressions of DM and of the
// feature-subset rankers.
func fitRegression(ctx context.Context, lasso bool, x []float32, cols int, y []float32, depth int, l1 float64, opt trainer.FitOptions) (*trainer.Regression, error) {
	if lasso {
		return trainer.FitLasso(ctx, x, cols, y, l1, opt)
	}
	return trainer.FitTree(ctx, x, cols, y, depth, opt)
}

type dmPredictor struct{ m *trainer.Regression }

// Predict implements ope.Predictor.
func (p dmPredictor) Predict(ctx context.Context, x []float32, cols int, out []float64) error {
	pr, err := p.m.Predict(ctx, x, cols)
	if err != nil {
		return err
	}
	copy(out, pr)
	return nil
}

// Close frees the model.
func (p dmPredictor) Close() error { return p.m.Close() }
