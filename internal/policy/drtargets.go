package policy

import (
	"context"
	"fmt"

	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/trainer"
)

// TargetBaselineInfo says where doubly-robust targets got their φ̄.
type TargetBaselineInfo struct {
	Folds int   // query folds cross-fitted (0: a fixed model)
	Trees []int // boosting rounds of each fold's model, folds without queries left out
}

// TargetBaseline returns the reward model φ̄ of doubly-robust targets
// (impute.Baseline) for every unit of st with impressions: b's fixed model
// (ResolveBaseline's model:PATH), or b's regression cross-fitted over the
// log's queries. The queries are split into b.Folds contiguous blocks of
// the dataset's query order, and φ̄ of a unit is fitted (NewPhiFitter's
// regression, b.Fitter's options) on the PI targets φ̂_x = Γ_x†θ̂_x of the
// other blocks' units, every fifth query of them held out for early
// stopping: no unit's φ̄ depends on its own impressions (every context of
// a query is in the query's block), which keeps φ̂_DR unbiased wherever φ̂
// is (impute.Baseline).
func TargetBaseline(ctx context.Context, b ope.Baseline, st *impute.Stats, gammas *impute.GammaCache) (impute.Baseline, TargetBaselineInfo, error) {
	c := st.Candidates()
	if b.Model != nil {
		out := make(impute.Baseline, c.NumQueries())
		for x := range out {
			if st.Count(x) > 0 {
				out[x] = b.Model.Phi(x)
			}
		}
		return out, TargetBaselineInfo{}, nil
	}
	f, ok := b.Fitter.(phiFitter)
	if !ok {
		return nil, TargetBaselineInfo{}, fmt.Errorf("policy: doubly-robust targets cross-fit PI-OPT's regression (NewPhiFitter), not %T", b.Fitter)
	}
	k := b.Folds
	if k == 0 {
		k = ope.DefaultBaselineFolds
	}
	phi, err := impute.UnitTargets(ctx, st, gammas, f.opt.Threads)
	if err != nil {
		return nil, TargetBaselineInfo{}, err
	}
	info := TargetBaselineInfo{Folds: k}
	nq := c.Dataset().NumQueries()
	fold := func(x int) int { return c.Query(x) * k / nq }
	out := make(impute.Baseline, c.NumQueries())
	for fi := range k {
		in := func(x int) bool { return phi[x] != nil && fold(x) == fi }
		train, valid, n := foldTargets(c, phi, st, in, f.opt.EarlyStopping > 0)
		if n == 0 {
			continue
		}
		if train == nil {
			return nil, info, fmt.Errorf("policy: doubly-robust targets: fold %d of %d holds every logged query: no other to fit φ̄ on", fi+1, k)
		}
		m, err := f.fitTargets(ctx, c, st.Slots(), train, valid)
		if err != nil {
			return nil, info, fmt.Errorf("policy: doubly-robust targets, φ̄ of fold %d of %d: %w", fi+1, k, err)
		}
		info.Trees = append(info.Trees, m.Rounds)
		err = predictSome(c, st.Slots(), m, ope.PhiTable(out), in)
		m.Close()
		if err != nil {
			return nil, info, fmt.Errorf("policy: doubly-robust targets, φ̄ of fold %d of %d: %w", fi+1, k, err)
		}
	}
	return out, info, nil
}

// foldTargets splits the PI targets of the logged units outside a fold
// (in false) into those to fit on and, when validate and there are at
// least 10 of them, every fifth query's for early stopping; n counts the
// logged units in the fold. train is nil when no unit is outside.
func foldTargets(c *impute.Candidates, phi [][]float64, st *impute.Stats, in func(x int) bool, validate bool) (train, valid *ope.PhiTargets, n int) {
	var others []int
	for x, p := range phi {
		switch {
		case p == nil:
		case in(x):
			n++
		default:
			others = append(others, x)
		}
	}
	if len(others) == 0 {
		return nil, nil, n
	}
	newSet := func() *ope.PhiTargets {
		return &ope.PhiTargets{Phi: make([][]float64, len(phi)), Count: make([]int64, len(phi))}
	}
	train = newSet()
	if validate && len(others) >= 10 {
		valid = newSet()
	}
	for _, x := range others {
		set := train
		if valid != nil && c.Query(x)%5 == 4 {
			set = valid
		}
		set.Phi[x], set.Count[x] = phi[x], st.Count(x)
	}
	return train, valid, n
}

// fitTargets is FitPhi's regression on targets already computed: the rows
// [f(x, a); onehot(j)] of train's units weighted as FitPhi weighs them,
// early-stopped on valid's when valid is not nil.
func (f phiFitter) fitTargets(ctx context.Context, c *impute.Candidates, slots int, train, valid *ope.PhiTargets) (*trainer.Model, error) {
	params := f.params()
	var vm *features.Matrix
	if valid != nil {
		var err error
		if vm, err = features.PIOPT(c.Dataset(), phiTrainRows(c, slots, valid)); err != nil {
			return nil, fmt.Errorf("φ̄ regression rows: %w", err)
		}
		params.EarlyStopping = f.opt.EarlyStopping
	}
	tm, err := features.PIOPT(c.Dataset(), phiTrainRows(c, slots, train))
	if err != nil {
		return nil, fmt.Errorf("φ̄ regression rows: %w", err)
	}
	m, err := trainer.Train(ctx, tm, vm, params, nil)
	if err != nil {
		return nil, fmt.Errorf("φ̄ regression on %d rows: %w", tm.Rows, err)
	}
	return m, nil
}
