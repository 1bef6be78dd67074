package policy

import (
	"context"
	"fmt"
	"strings"

	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/ranker"
)

// ResolveTarget builds the deterministic target policy π named by spec on
// the candidates: for a PI-OPT model (`model:PATH` of kind pi-opt) its
// slot-action slate over the candidates (greedy or exact); for every other
// rank source (any spelling Resolve reads) its top ℓ candidates by score.
//
// A target given as data (DataTarget: policy:FILE, scores:FILE, run:FILE)
// is read from its file instead. A spelling that is none of these is
// refused with the list of every kind.
func ResolveTarget(ctx context.Context, spec string, c *impute.Candidates, slots int, method ranker.SlateMethod, opt Options) (*ope.Target, error) {
	if spec == RowTargetKind {
		if opt.RowTarget == nil {
			return nil, fmt.Errorf("target row: no row of the log carries a target (row targets are read from a log with a policy per row: .jsonl, .jsonl.gz or .parquet)")
		}
		return policyTarget(spec, opt.RowTarget, c, slots, impute.GammaOptions{Seed: opt.Seed})
	}
	if kind, path, ok := DataTarget(spec); ok {
		return dataTarget(spec, kind, path, c, slots, impute.GammaOptions{Seed: opt.Seed})
	}
	if _, err := Resolve(spec, Options{}); err != nil {
		return nil, fmt.Errorf("%w; a target is %s", err, TargetKinds)
	}
	if path, ok := strings.CutPrefix(spec, "model:"); ok {
		m, err := ranker.LoadModel(path)
		if err != nil {
			return nil, err
		}
		if err := m.Fits(c.Dataset()); err != nil {
			return nil, err
		}
		if m.Meta().Slots > 0 {
			return slotActionTarget(ctx, spec, c, slots, m, method)
		}
		scores, err := m.DocScores(ctx, c.Dataset(), ranker.ScoreOptions{Threads: opt.Threads})
		if err != nil {
			return nil, err
		}
		return ope.TopTarget(spec, c, slots, scores)
	}
	name, scores, err := opt.scores(ctx, spec, c.Dataset())
	if err != nil {
		return nil, err
	}
	return ope.TopTarget(name, c, slots, scores)
}

// slotActionTarget returns the deterministic target of a PI-OPT model: for
// every query the slot-action slate (greedy or exact) over the candidates,
// from the model's (document, slot) pair scores.
func slotActionTarget(ctx context.Context, name string, c *impute.Candidates, slots int, model *ranker.Model, method ranker.SlateMethod) (*ope.Target, error) {
	pairs, err := slotScores(ctx, "target "+name, c, slots, model)
	if err != nil {
		return nil, err
	}
	var solver impute.SlateSolver
	var buf []float64
	slate := make([]int32, slots)
	return ope.NewDeterministicTarget(name, c, slots, func(q int) []int32 {
		buf = pairs(q, buf[:0])
		s := slate[:c.Slots(q, slots)]
		method.Solve(&solver, buf, len(c.Docs(q)), s)
		return s
	})
}

// slotActionModel returns a PI-OPT model's scores of every (slot, candidate)
// pair as a reward model: φ̄_x(j, a) is the model's prediction for
// [f(x, a); onehot(j)], what it was trained to predict (dr's
// `--baseline model:PATH`).
func slotActionModel(ctx context.Context, name string, c *impute.Candidates, slots int, model *ranker.Model) (ope.PhiTable, error) {
	pairs, err := slotScores(ctx, name, c, slots, model)
	if err != nil {
		return nil, err
	}
	t := make(ope.PhiTable, c.NumQueries())
	for q := range t {
		t[q] = pairs(q, nil)[:c.Slots(q, slots)*c.Size(q)]
	}
	return t, nil
}

// slotScores scores the dataset with a slot-action model and returns a
// function appending query q's candidates' pair scores to buf, ℓm (index
// j·m + a, over every slot the model scores). Errors start with what.
func slotScores(ctx context.Context, what string, c *impute.Candidates, slots int, model *ranker.Model) (func(q int, buf []float64) []float64, error) {
	ds := c.Dataset()
	sc, err := model.Score(ctx, ds, ranker.ScoreOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	stride := sc.Stride()
	if sc.Slots < slots {
		return nil, fmt.Errorf("%s: the model scores %d slots, the evaluation needs %d", what, sc.Slots, slots)
	}
	return func(q int, buf []float64) []float64 {
		lo, _ := ds.Query(c.Query(q))
		for j := range stride { // the candidates' pair scores, ℓm
			for _, d := range c.Docs(q) {
				buf = append(buf, sc.Values[(lo+int(d))*stride+j])
			}
		}
		return buf
	}, nil
}
