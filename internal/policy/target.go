package policy

import (
	"context"
	"strings"

	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/ranker"
)

// ResolveTarget builds the deterministic target policy π named by spec on
// the candidates: for a PI-OPT model (`model:PATH` of kind pi-opt) its
// slot-action slate over the candidates (greedy or exact); for every other
// rank source (any spelling Resolve reads) its top ℓ candidates by score.
func ResolveTarget(ctx context.Context, spec string, c *impute.Candidates, slots int, method ranker.SlateMethod, opt Options) (*ope.Target, error) {
	if path, ok := strings.CutPrefix(spec, "model:"); ok {
		m, err := ranker.LoadModel(path)
		if err != nil {
			return nil, err
		}
		if err := m.Fits(c.Dataset()); err != nil {
			return nil, err
		}
		if m.Meta().Slots > 0 {
			return ope.SlotActionTarget(ctx, spec, c, slots, m, method)
		}
		scores, err := m.DocScores(ctx, c.Dataset(), ranker.ScoreOptions{Threads: opt.Threads})
		if err != nil {
			return nil, err
		}
		return ope.TopTarget(spec, c, slots, scores)
	}
	src, err := Resolve(spec, opt)
	if err != nil {
		return nil, err
	}
	scores, err := src.Scores(ctx, c.Dataset())
	if err != nil {
		return nil, err
	}
	return ope.TopTarget(src.String(), c, slots, scores)
}
