package experiment

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/pipeline"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/internal/progress"
	"github.com/piopt/piopt/ranker"
)

// Logger is the policy name of the logger's own deterministic ranking
// (Config.RankBy): every query's top ℓ documents by the logger's scores,
// what a production ranker shows when it does not explore.
const Logger = "logger"

// freshSeed offsets Config.Seed for the fresh log of the test fold, apart
// from the training log (Seed) and the validation log (Seed+1).
const freshSeed = 2

// scoreLogger records, on the test fold, the logger's deterministic
// ranking's metrics (test labels) and, label-free, the PI estimates of
// that ranking and of every metric's PI-OPT slates from a fresh log drawn
// by the logger itself (fold result's Estimates).
func (r *runner) scoreLogger(ctx context.Context, fr *foldRun, test *data.Dataset, rep *pipeline.RankReport) error {
	c := r.cfg
	lr, err := loggerRanking(ctx, c.RankBy, r.rank, test, c.Slots)
	if err != nil {
		return fmt.Errorf("logger %s: %w", c.RankBy, err)
	}
	res := fr.res
	res.Estimates = map[string]map[string]float64{}
	for _, k := range c.Metrics {
		m := r.metric(k)
		res.Values[m.Name()][Logger] = rankingMean(test, lr, m)
		pi := rep.Rankings[PIOPT+"-"+k.String()]
		if pi == nil {
			return fmt.Errorf("no PI-OPT slates for %s", m.Name())
		}
		tg, st, err := r.freshTargets(ctx, fr, test, m)
		if err != nil {
			return err
		}
		res.Estimates[m.Name()] = map[string]float64{PIOPT: PIValue(tg, st, pi), Logger: PIValue(tg, st, lr)}
	}
	return nil
}

// loggerRanking is the deterministic ranking of the rank source spec
// (fitted with opt) on ds: every query's top min(slots, m) documents by
// score, ties to the lower position, as `piopt rank` ranks a SUP model.
func loggerRanking(ctx context.Context, spec string, opt policy.Options, ds *data.Dataset, slots int) (*ranker.Ranking, error) {
	src, err := policy.Resolve(spec, opt)
	if err != nil {
		return nil, err
	}
	scores, err := src.Scores(ctx, ds)
	if err != nil {
		return nil, err
	}
	return ranker.Rank(ds, &ranker.Scores{Values: scores}, slots, ranker.SlateGreedy)
}

// rankingMean is the mean over ds's queries of metric m of the ranking's
// slates.
func rankingMean(ds *data.Dataset, rk *ranker.Ranking, m eval.Metric) float64 {
	scorer := eval.NewScorer(m, ds.Labels, ds.QueryOffsets)
	v := make([]float64, ds.NumQueries())
	for q := range v {
		v[q] = scorer.Score(q, rk.Slate(q))
	}
	mean, _ := eval.MeanStd(v)
	return mean
}

// freshTargets simulates a fresh log of the logger on ds (the test fold),
// as many impressions as Samples scaled by the folds' query counts, seeded
// apart from the training and validation logs, and imputes its per-query
// targets φ̄_x = Γ_x† S_x/n_x; it returns them with the log's counts n_x.
func (r *runner) freshTargets(ctx context.Context, fr *foldRun, ds *data.Dataset, m eval.Metric) (*data.Targets, *impute.Stats, error) {
	c := r.cfg
	n := max(1, c.Samples*int64(ds.NumQueries())/int64(fr.train.NumQueries()))
	start := time.Now()
	spec := pipeline.SimulationSpec{DataPath: ds.Source, Metric: m, Samples: n, Seed: c.Seed + freshSeed,
		Setup: policy.Setup{Slots: c.Slots, Logging: c.Logging, RankBy: c.RankBy, CandidatesBy: c.CandidatesBy}, Rank: r.rank}
	bar := progress.New(r.progressWriter(), fmt.Sprintf("fold %d: fresh %s log on %s", fr.f.Number, m.Name(), filepath.Base(ds.Source)), n, "samples")
	st, gammas, header, err := pipeline.SimulateStats(ctx, ds, spec, bar.Add)
	bar.Done()
	if err != nil {
		return nil, nil, err
	}
	tg, err := pipeline.Targets(ctx, st, gammas, header, false)
	if err != nil {
		return nil, nil, err
	}
	sec := time.Since(start).Seconds()
	fr.res.Seconds["fresh "+m.Name()] = sec
	r.logf("fold %d: fresh %s log of %d impressions on %s in %.1fs", fr.f.Number, m.Name(), n, filepath.Base(ds.Source), sec)
	return tg, st, nil
}

// PIValue is the PI estimate of the deterministic ranking rk's value from
// a log whose per-query counts n_x st holds and whose targets
// φ̄_x = Γ_x† S_x/n_x tg holds (rows sorted by query, as ComputeTargets
// writes them): V̂ = Σ_x (n_x/n) Σ_j φ̄_x(j, π_j(x)). It is the paper's
// (1/n) Σ_i r_i 1_π(x_i)ᵀ Γ†_{x_i} 1_{s_i} summed per query, what `piopt
// evaluate --estimators pi` computes impression by impression from the
// log; queries the log never drew add 0.
func PIValue(tg *data.Targets, st *impute.Stats, rk *ranker.Ranking) float64 {
	n := float64(st.Samples())
	v := 0.0
	for lo := 0; lo < tg.Len(); {
		q := tg.Query[lo]
		hi := lo
		for hi < tg.Len() && tg.Query[hi] == q {
			hi++
		}
		sum := 0.0
		for j, d := range rk.Slate(int(q)) {
			for i := lo; i < hi; i++ {
				if tg.Doc[i] == d && int(tg.Slot[i]) == j+1 {
					sum += tg.Target[i]
					break
				}
			}
		}
		v += float64(st.Count(int(q))) / n * sum
		lo = hi
	}
	return v
}

// LoggerGain is PI-OPT's gain over the logger's deterministic ranking
// (Config.RankBy), per metric name.
type LoggerGain struct {
	Logger  string           `json:"logger"` // the rank source, e.g. tree:1-5@2
	Metrics map[string]*Gain `json:"metrics"`
}

// Gain is one metric's per-fold differences PI-OPT − logger on the test
// fold: by the test labels, and label-free by the PI estimates from a
// fresh log of the logger. SameOrder says whether both means have the same
// sign: the estimates rank the two rankers as the labels do.
type Gain struct {
	Test      Diff `json:"test"`
	Estimate  Diff `json:"estimate"`
	SameOrder bool `json:"same_order"`
}

// Diff is per-fold differences with their mean and its standard error
// across folds, std/√folds (null with one fold), and Z = mean/SE.
type Diff struct {
	Folds []float64 `json:"folds"`
	Mean  float64   `json:"mean"`
	SE    jfloat    `json:"se"`
	Z     jfloat    `json:"z"`
}

// newDiff summarises per-fold differences.
func newDiff(d []float64) Diff {
	mean, std := eval.MeanStd(d)
	se, z := math.NaN(), math.NaN()
	if len(d) > 1 {
		se = std / math.Sqrt(float64(len(d)))
		z = mean / se
	}
	return Diff{Folds: d, Mean: mean, SE: jfloat(se), Z: jfloat(z)}
}

// loggerGain is PI-OPT's gain over the logger in folds (nil without a
// logger).
func (r *runner) loggerGain(folds []FoldResult) *LoggerGain {
	if r.cfg.RankBy == "" {
		return nil
	}
	g := &LoggerGain{Logger: r.cfg.RankBy, Metrics: map[string]*Gain{}}
	for _, k := range r.cfg.Metrics {
		name := r.metric(k).Name()
		var test, est []float64
		for _, f := range folds {
			test = append(test, f.Values[name][PIOPT]-f.Values[name][Logger])
			e := f.Estimates[name]
			est = append(est, e[PIOPT]-e[Logger])
		}
		t, e := newDiff(test), newDiff(est)
		g.Metrics[name] = &Gain{Test: t, Estimate: e, SameOrder: (t.Mean > 0) == (e.Mean > 0)}
	}
	return g
}

// lines are the gain's lines under the table, one per metric.
func (g *LoggerGain) lines(metrics []string) []string {
	var out []string
	for _, m := range metrics {
		x := g.Metrics[m]
		if x == nil {
			continue
		}
		out = append(out, fmt.Sprintf("PI-OPT − logger (%s) %s: test labels %s; PI estimate from a fresh log %s; same order: %t",
			g.Logger, m, x.Test.text(), x.Estimate.text(), x.SameOrder))
	}
	return out
}

// text is "+0.0123 ± 0.0040 SE (3.1 SE)", or the mean alone with one fold.
func (d Diff) text() string {
	if math.IsNaN(float64(d.SE)) {
		return fmt.Sprintf("%+.4f", d.Mean)
	}
	return fmt.Sprintf("%+.4f ± %.4f SE (%.1f SE)", d.Mean, float64(d.SE), float64(d.Z))
}
