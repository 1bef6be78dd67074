package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/internal/progress"
)

// The kinds of targets impute writes (--targets-kind): PI-OPT's φ̂ = Γ†θ̂,
// or doubly-robust φ̂_DR = φ̄ + Γ†1_s(r − 1_sᵀφ̄) (impute.Baseline).
const (
	TargetsPI = "pi"
	TargetsDR = "dr"
)

// DRTargets say where doubly-robust targets get their reward model φ̄; the
// zero value asks for PI targets.
type DRTargets struct {
	// Baseline is policy.Crossfit (PI-OPT's φ̄ regression cross-fitted
	// over Folds blocks of the log's queries) or model:PATH (a PI-OPT
	// model's slot-action scores); "" means PI targets.
	Baseline string
	Folds    int
	// Threads are the φ̄ regression's XGBoost threads (0: the idle cores).
	Threads int
}

// On reports whether doubly-robust targets are asked for.
func (d DRTargets) On() bool { return d.Baseline != "" }

// Replay goes over the impressions behind a log's statistics again, with
// every reward r replaced by its residual r − 1_sᵀφ̄_x under base, and
// returns their statistics: the second pass of doubly-robust targets.
type Replay func(ctx context.Context, base impute.Baseline) (*impute.Stats, error)

// DoublyRobustTargets is Targets for doubly-robust targets: φ̄ from dr (fitted on
// st's PI targets when cross-fitted), the residual statistics from replay,
// and the targets φ̄_x + Γ†(S'_x/n_x). The header records
// targets-kind=dr, baseline= (crossfit, or model: and the model file's
// name) and, cross-fitted, baseline-folds=.
func DoublyRobustTargets(ctx context.Context, st *impute.Stats, gammas *impute.GammaCache, header data.Header, perSample bool, dr DRTargets, replay Replay) (*data.Targets, policy.TargetBaselineInfo, error) {
	opt := policy.DefaultBaselineOptions()
	opt.Threads = dr.Threads
	b, err := policy.ResolveBaseline(ctx, dr.Baseline, dr.Folds, st.Candidates(), st.Slots(), opt)
	if err != nil {
		return nil, policy.TargetBaselineInfo{}, err
	}
	base, info, err := policy.TargetBaseline(ctx, b, st, gammas)
	if err != nil {
		return nil, info, err
	}
	res, err := replay(ctx, base)
	if err != nil {
		return nil, info, err
	}
	for x := range st.Candidates().NumQueries() {
		if res.Count(x) != st.Count(x) {
			return nil, info, fmt.Errorf("%s %q: %d impressions in the second pass over the log, %d in the first: the log changed while read",
				unitName(st.Candidates()), st.Candidates().Name(x), res.Count(x), st.Count(x))
		}
	}
	header["targets-kind"] = TargetsDR
	header["baseline"] = dr.Baseline
	if p, ok := strings.CutPrefix(dr.Baseline, "model:"); ok {
		header["baseline"] = "model:" + filepath.Base(p)
	} else {
		header["baseline-folds"] = strconv.Itoa(info.Folds)
	}
	tg, err := targets(ctx, res, gammas, header, impute.TargetOptions{PerSample: perSample, Baseline: base})
	return tg, info, err
}

// unitName names the units of c: query, or context.
func unitName(c *impute.Candidates) string {
	if c.PerContext() {
		return "context"
	}
	return "query"
}

// logReplay is the Replay of impute's log: cfg.Logs read again (the same
// shard) into statistics over st's candidates.
func logReplay(cfg ImputeConfig, ds *data.Dataset, st *impute.Stats) Replay {
	return func(ctx context.Context, base impute.Baseline) (*impute.Stats, error) {
		lr, _, err := openImputeLog(cfg, ds)
		if err != nil {
			return nil, err
		}
		defer lr.Close()
		cfg.Shard.apply(lr)
		res, err := impute.NewStats(st.Candidates(), st.Slots())
		if err != nil {
			return nil, err
		}
		bar := progress.New(cfg.Progress, "impute dr", 0, "impressions")
		err = res.AddLogResidual(ctx, lr, base, bar.Add)
		bar.Done()
		return res, err
	}
}

// SimulateReplay is SimulateStats with the Replay of the simulation: the
// same impressions (the same seed) drawn again with residual rewards.
func SimulateReplay(ctx context.Context, ds *data.Dataset, s SimulationSpec, add func(n int64)) (*impute.Stats, *impute.GammaCache, data.Header, Replay, error) {
	sim, gammas, err := s.simulation(ctx, ds)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	st, err := sim.Stats(ctx, s.Samples, 0, add)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	replay := func(ctx context.Context, base impute.Baseline) (*impute.Stats, error) {
		return sim.ResidualStats(ctx, s.Samples, 0, base, nil)
	}
	return st, gammas, s.header(ds), replay, nil
}
