package policy

import (
	"context"
	"fmt"
	"strings"

	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/ranker"
)

// Crossfit is the baseline spec of dr's reward model fitted on the log
// itself, cross-fitted (the default).
const Crossfit = "crossfit"

// ResolveBaseline builds dr's and wdr's reward model from spec: "crossfit",
// PI-OPT's regression (NewPhiFitter with opt) fitted on folds−1 of the
// log's folds for each fold, or "model:PATH", a PI-OPT model (kind pi-opt,
// trained on other data) whose slot-action scores are φ̄.
func ResolveBaseline(ctx context.Context, spec string, folds int, c *impute.Candidates, slots int, opt PhiFitOptions) (ope.Baseline, error) {
	if spec == Crossfit {
		if folds < 2 {
			return ope.Baseline{}, fmt.Errorf("--baseline-folds %d: cross-fitting needs at least 2 folds", folds)
		}
		return ope.Baseline{Name: Crossfit, Fitter: NewPhiFitter(opt), Folds: folds}, nil
	}
	path, ok := strings.CutPrefix(spec, "model:")
	if !ok || path == "" {
		return ope.Baseline{}, fmt.Errorf("--baseline %q: want %s or model:PATH", spec, Crossfit)
	}
	m, err := ranker.LoadModel(path)
	if err != nil {
		return ope.Baseline{}, fmt.Errorf("--baseline: %w", err)
	}
	if err := m.Fits(c.Dataset()); err != nil {
		return ope.Baseline{}, fmt.Errorf("--baseline: %w", err)
	}
	if m.Meta().Slots == 0 {
		return ope.Baseline{}, fmt.Errorf("--baseline %s: a document ranker, not a PI-OPT model: dr's baseline must predict a value per (slot, document)", spec)
	}
	t, err := slotActionModel(ctx, "--baseline "+spec, c, slots, m)
	if err != nil {
		return ope.Baseline{}, err
	}
	return ope.Baseline{Name: spec, Model: t}, nil
}
