package experiment

import (
	"context"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/pipeline"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/ope"
)

// dr reports whether PI-OPT learns from doubly-robust targets.
func (c Config) dr() bool { return c.TargetsKind == pipeline.TargetsDR }

// stageKeys are the cache-key parts of the options that change the
// targets and everything after them, none for the defaults, so that the
// keys of runs without them stay as they were: CandidatesBy, RankBy (sourceKey), and
// doubly-robust targets.
func (r *runner) stageKeys() []any {
	k := r.sourceKey()
	if r.cfg.dr() {
		k = append(k, "targets-kind", pipeline.TargetsDR)
	}
	return k
}

// imputeTargets imputes the targets of a simulated log's statistics: PI
// targets, or doubly-robust ones whose φ̄ is PI-OPT's φ̄ regression
// cross-fitted over ope.DefaultBaselineFolds blocks of the fold's queries
// (replay draws the same impressions again for their residuals).
func (r *runner) imputeTargets(ctx context.Context, st *impute.Stats, gammas *impute.GammaCache, header data.Header, replay pipeline.Replay) (*data.Targets, error) {
	if !r.cfg.dr() {
		return pipeline.Targets(ctx, st, gammas, header, r.cfg.PerSample)
	}
	dr := pipeline.DRTargets{Baseline: policy.Crossfit, Folds: ope.DefaultBaselineFolds}
	tg, _, err := pipeline.DoublyRobustTargets(ctx, st, gammas, header, r.cfg.PerSample, dr, replay)
	return tg, err
}
