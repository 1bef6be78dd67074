// Package sweep runs the paper's semi-synthetic protocol (Sec. 4.1) on an
// ope.Plan: R independent simulated logs, every estimator on the prefixes
// of each log on a log-spaced grid, and the RMSE, bias and spread of each
// against V(π); Report writes it as JSON, HTML and a table.
package sweep

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/parallel"
	"github.com/piopt/piopt/internal/xsum"
	"github.com/piopt/piopt/ope"
)

// LogGrid returns log-spaced sample sizes from lo to hi: the rounded powers
// 10^(k/perDecade) inside [lo, hi], and hi itself.
func LogGrid(lo, hi int64, perDecade int) []int64 {
	if perDecade < 1 {
		perDecade = 1
	}
	lo = max(lo, 1)
	var out []int64
	for k := 0; ; k++ {
		v := int64(math.Round(math.Pow(10, float64(k)/float64(perDecade))))
		if v > hi {
			break
		}
		if v >= lo && (len(out) == 0 || out[len(out)-1] != v) {
			out = append(out, v)
		}
	}
	if len(out) == 0 || out[len(out)-1] != hi {
		out = append(out, hi)
	}
	return out
}

// Config is the paper's semi-synthetic protocol (Sec. 4.1): Runs
// independent logs of Samples samples each, simulated from the plan's
// logging policy with contexts uniform over the queries and the metric of
// the plan's Scorer as reward, and every estimator of the plan's
// deterministic target evaluated on every prefix of each log whose length
// is on Grid.
type Config struct {
	Samples int64
	Runs    int
	// Seed of run 0; run k simulates with seed Seed + k (the log
	// `piopt simulate --seed Seed+k` would write).
	Seed       uint64
	Grid       []int64 // increasing; prefixes evaluated (default LogGrid(100, Samples, 4))
	Estimators ope.Estimators
	Regressors map[string]ope.Regressor
	// DMMaxTrain caps the rows DM trains on at grid point n: the first
	// min(n/2, DMMaxTrain) samples. 0, the zero value and evaluate-sweep's
	// default, is no cap: the first n/2, as the paper. Fit time and memory
	// grow with it: a run being fitted holds a design matrix of
	// min(Samples/2, cap) × Slots × features float32 (XGBoost copies it).
	DMMaxTrain int
	// Threads bounds the runs simulated (and DM-fitted) at once (0: all
	// cores). Results do not depend on it. The Regressors should share the
	// remaining cores (one thread each when Threads ≤ Runs).
	Threads int
	// Progress, when not nil, is called with the number of samples
	// simulated since its last call (concurrently from several runs).
	Progress func(n int64)
	// DMProgress, when not nil, is called with 0 as DM fitting starts and
	// then with 1 per grid point of a run whose DM models are fitted and
	// evaluated (concurrently from several runs); DMPoints is their number.
	DMProgress func(n int64)
	// CVFolds is pi-cv's number of cross-fitting folds (0: DefaultCVFolds).
	CVFolds int
	// Baseline is dr's and wdr's reward model, cross-fitted at every grid
	// point n on the first n samples (a run keeps its samples for that).
	Baseline ope.Baseline
	// FitPoints, when not nil, are the only grid points where the
	// estimators that fit models are computed: DM's variants (a fit per
	// model) and dr and wdr (Baseline.Folds fits); elsewhere they are NaN.
	FitPoints []int64
}

// fitAt reports whether DM, dr and wdr are computed at grid point n.
func (cfg Config) fitAt(n int64) bool {
	if cfg.FitPoints == nil {
		return true
	}
	return slices.Contains(cfg.FitPoints, n)
}

// dmTrain is the size of DM's training part at grid point n, the first
// min(n/2, keep) samples, or 0 where DM is not fitted: off the fit points
// and below 2 samples.
func (cfg Config) dmTrain(n, keep int64) int64 {
	if t := min(n/2, keep); t >= 2 && cfg.fitAt(n) {
		return t
	}
	return 0
}

// DMPoints is the number of model-fitting steps of the sweep, what
// DMProgress counts to: per run, the fit points where DM can train (n/2 ≥
// 2 samples) and those where dr or wdr cross-fits its reward model.
func (cfg Config) DMPoints() int64 {
	grid := cfg.grid()
	var n int64
	if len(cfg.Estimators.DM) > 0 {
		keep := dmKeep(grid, cfg.DMMaxTrain)
		for _, g := range grid {
			if cfg.dmTrain(g, keep) > 0 {
				n++
			}
		}
	}
	if cfg.Estimators.Baseline() {
		for _, g := range grid {
			if cfg.fitAt(g) && g >= int64(cfg.Baseline.MinSamples()) {
				n++
			}
		}
	}
	return n * int64(cfg.Runs)
}

// drKeep is the number of samples of a run kept for dr: the largest grid
// point where dr is computed (0 without dr).
func (cfg Config) drKeep(grid []int64) int64 {
	var keep int64
	if cfg.Estimators.Baseline() {
		for _, n := range grid {
			if cfg.fitAt(n) {
				keep = n
			}
		}
	}
	return keep
}

// dmKeep is the number of samples of a run kept for DM's training: half
// the largest grid point, capped by dmMaxTrain when positive.
func dmKeep(grid []int64, dmMaxTrain int) int64 {
	keep := grid[len(grid)-1] / 2
	if dmMaxTrain > 0 {
		keep = min(keep, int64(dmMaxTrain))
	}
	return keep
}

// Result holds every estimate of every run at every grid point and
// their errors against the true value.
type Result struct {
	TrueValue float64
	Grid      []int64
	Names     []string
	Seeds     []uint64
	// Values[name][run][g] is the estimate of run on the first Grid[g]
	// samples (NaN where not computed, e.g. DM with too few samples).
	Values map[string][][]float64
	// RMSE, Bias (mean − V) and Std (across runs) per grid point.
	RMSE, Bias, Std map[string][]float64
	// Timing of the stages.
	SimulateTime, DMTime time.Duration
}

// runState is one run's simulation: its sums at every grid point.
type runState struct {
	values  map[string][]float64
	dm      *ope.Samples
	ckCount [][]int64 // per-query counts at the DM checkpoints
	dr      *ope.Samples
}

// grid is Grid, or the default LogGrid(100, Samples, 4).
func (cfg Config) grid() []int64 {
	if cfg.Grid == nil {
		return LogGrid(100, cfg.Samples, 4)
	}
	return cfg.Grid
}

// prepareSweep checks the plan and cfg and returns cfg's grid, with dr's
// baseline prepared in cfg.
func prepareSweep(ctx context.Context, p *ope.Plan, cfg *Config) ([]int64, error) {
	if !p.Target.Deterministic() || p.Scorer == nil {
		return nil, fmt.Errorf("offpolicy: the sweep needs a deterministic target and the labels (Scorer)")
	}
	if cfg.Samples < 1 || cfg.Runs < 1 {
		return nil, fmt.Errorf("offpolicy: sweep of %d runs × %d samples", cfg.Runs, cfg.Samples)
	}
	grid := cfg.grid()
	for i, n := range grid {
		if n < 1 || n > cfg.Samples || (i > 0 && n <= grid[i-1]) {
			return nil, fmt.Errorf("offpolicy: grid %v is not increasing within 1..%d", grid, cfg.Samples)
		}
	}
	if !cfg.Estimators.Baseline() {
		return grid, nil
	}
	var err error
	cfg.Baseline, err = p.PrepareBaseline(ctx, cfg.Baseline)
	return grid, err
}

// Sweep runs the protocol on the plan's logging policy, target and
// Scorer.
func Sweep(ctx context.Context, p *ope.Plan, cfg Config) (*Result, error) {
	grid, err := prepareSweep(ctx, p, &cfg)
	if err != nil {
		return nil, err
	}
	est := cfg.Estimators
	res := &Result{TrueValue: p.TrueValue, Grid: grid, Names: est.Names(), Values: map[string][][]float64{},
		RMSE: map[string][]float64{}, Bias: map[string][]float64{}, Std: map[string][]float64{}}
	for _, name := range res.Names {
		res.Values[name] = make([][]float64, cfg.Runs)
	}
	for k := range cfg.Runs {
		res.Seeds = append(res.Seeds, cfg.Seed+uint64(k))
	}
	// DM checkpoints: every n and n/2 of the grid where DM is fitted.
	var ck []int64
	keep := int64(0)
	if len(est.DM) > 0 {
		keep = dmKeep(grid, cfg.DMMaxTrain)
		set := map[int64]bool{}
		for _, n := range grid {
			if cfg.dmTrain(n, keep) > 0 {
				set[n], set[n/2] = true, true
			}
		}
		for n := range set {
			ck = append(ck, n)
		}
		sort.Slice(ck, func(i, j int) bool { return ck[i] < ck[j] })
	}
	states := make([]*runState, cfg.Runs)
	start := time.Now()
	if err := eachRun(cfg.Runs, cfg.Threads, func(k int) (err error) {
		states[k], err = simulateRun(ctx, p, cfg, grid, ck, keep, res.Seeds[k])
		return err
	}); err != nil {
		return nil, err
	}
	res.SimulateTime = time.Since(start)
	for k, st := range states {
		for name, v := range st.values {
			res.Values[name][k] = v
		}
	}
	if est.FitsModels() {
		// DM fits run one per run at a time, in parallel over runs: each
		// fit is independent of the others and of the thread count.
		// Their values start as NaN (simulateRun) and are filled in
		// place.
		start = time.Now()
		if cfg.DMProgress != nil {
			cfg.DMProgress(0)
		}
		if err := eachRun(len(states), cfg.Threads, func(k int) error {
			if err := sweepDR(ctx, p, cfg, grid, states[k], res, k); err != nil {
				return err
			}
			return sweepDM(ctx, p, cfg, grid, ck, keep, states[k], res, k)
		}); err != nil {
			return nil, err
		}
		res.DMTime = time.Since(start)
	}
	for _, name := range res.Names {
		res.RMSE[name], res.Bias[name], res.Std[name] = errorsOf(res.Values[name], res.TrueValue, len(grid))
	}
	return res, nil
}

// sweepDM fits and evaluates every DM variant of run k at every grid
// point: trained on the first min(n/2, dmKeep) samples, evaluated on the
// contexts of samples n/2 .. n−1.
func sweepDM(ctx context.Context, p *ope.Plan, cfg Config, grid, ck []int64, dmKeep int64, st *runState, res *Result, k int) error {
	if len(cfg.Estimators.DM) == 0 {
		return nil
	}
	// Grid points past 2·dmKeep train on the same dmKeep samples: one fit
	// serves them all.
	var fit ope.DMFit
	evalCounts := make([]int64, p.Candidates.NumQueries())
	for g, n := range grid {
		if err := ctx.Err(); err != nil {
			return err
		}
		nTrain := int(cfg.dmTrain(n, dmKeep))
		if nTrain == 0 {
			continue
		}
		half := n / 2
		hi, lo := st.ckCount[ckIndex(ck, n)], st.ckCount[ckIndex(ck, half)]
		for q := range evalCounts {
			evalCounts[q] = hi[q] - lo[q]
		}
		dm, err := p.DirectMethod(ctx, st.dm, nTrain, evalCounts, cfg.Regressors, cfg.Estimators.DM, &fit)
		if err != nil {
			return err
		}
		for name, e := range dm {
			res.Values[name][k][g] = float64(e.Value)
		}
		if cfg.DMProgress != nil {
			cfg.DMProgress(1)
		}
	}
	st.dm = nil // free the training part
	return nil
}

// sweepDR computes dr and wdr of run k at every grid point n on the first
// n samples, cross-fitting their reward model there.
func sweepDR(ctx context.Context, p *ope.Plan, cfg Config, grid []int64, st *runState, res *Result, k int) error {
	if !cfg.Estimators.Baseline() {
		return nil
	}
	for g, n := range grid {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !cfg.fitAt(n) {
			continue
		}
		dr, wdr, err := p.CrossFitDR(ctx, cfg.Baseline, st.dr, int(n))
		if err != nil {
			return fmt.Errorf("run %d (seed %d), dr at n = %d: %w", k+1, res.Seeds[k], n, err)
		}
		if math.IsNaN(dr) {
			continue // too few samples: NaN
		}
		if v := res.Values[ope.DR]; v != nil {
			v[k][g] = dr
		}
		if v := res.Values[ope.WDR]; v != nil {
			v[k][g] = wdr
		}
		if cfg.DMProgress != nil {
			cfg.DMProgress(1)
		}
	}
	st.dr = nil
	return nil
}

func ckIndex(ck []int64, n int64) int {
	return sort.Search(len(ck), func(i int) bool { return ck[i] >= n })
}

func nanSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}

// errorsOf returns, per grid point, the RMSE against v, the bias and the
// standard deviation across runs (runs with NaN left out).
func errorsOf(values [][]float64, v float64, points int) (rmse, bias, std []float64) {
	rmse, bias, std = nanSlice(points), nanSlice(points), nanSlice(points)
	for g := range points {
		var xs []float64
		for _, run := range values {
			if x := run[g]; !math.IsNaN(x) {
				xs = append(xs, x)
			}
		}
		if len(xs) == 0 {
			continue
		}
		se := 0.0
		for _, x := range xs {
			se += (x - v) * (x - v)
		}
		m, s := eval.MeanStd(xs)
		rmse[g], bias[g], std[g] = math.Sqrt(se/float64(len(xs))), m-v, s
	}
	return rmse, bias, std
}

// simulateRun simulates one log and records the streaming estimators at
// every grid point: for PI and wPI the prefix estimate needs only Σ r_i w_i
// and Σ w_i, for IPS Σ r_i·1{s_i = s*}/μ(s*|x_i), so one pass in O(ℓ) per
// sample serves every grid point.
func simulateRun(ctx context.Context, p *ope.Plan, cfg Config, grid, ck []int64, dmKeep int64, seed uint64) (*runState, error) {
	est := cfg.Estimators
	keepDR := cfg.drKeep(grid)
	st := &runState{values: map[string][]float64{}, dm: ope.NewSamples(p.Slots, 0), dr: ope.NewSamples(p.Slots, keepDR)}
	for _, name := range est.Names() {
		st.values[name] = nanSlice(len(grid))
	}
	counts := make([]int64, p.Candidates.NumQueries()) // the checkpoints' and pi-cv's folds (by context, as the Evaluator's)
	if len(ck) > 0 {
		st.ckCount = make([][]int64, len(ck))
		// Checkpoint 0 may be n = 0 (grid point 1 has n/2 = 0).
	}
	sim := impute.Simulation{Candidates: p.Candidates, Logging: p.Gammas.Logging(), Slots: p.Slots, Reward: p.Scorer, Seed: seed}
	var pi, ips ope.ExactSums // exact, as the Evaluator's: the same bits
	var cv *ope.CVFolds
	if est.PICV {
		cv = ope.NewCVFolds(cvFolds(cfg.CVFolds))
	}
	var value xsum.Sum
	var i int64
	gi, ci := 0, 0
	record := func() {
		for ci < len(ck) && ck[ci] == i {
			st.ckCount[ci] = append([]int64(nil), counts...)
			ci++
		}
		if gi < len(grid) && grid[gi] == i {
			set := func(name string, v float64) {
				if s := st.values[name]; s != nil {
					s[gi] = v
				}
			}
			ps, is := pi.Sums(), ips.Sums()
			set(ope.PI, ps.Mean())
			w, _ := ps.SelfNormalized()
			set(ope.WPI, w)
			set(ope.IPS, is.Mean())
			w, _ = is.SelfNormalized()
			set(ope.WIPS, w)
			if cv != nil {
				set(ope.PICV, cv.Value(cv.Betas()))
			}
			set(ope.OnPolicy, value.Float64()/float64(i))
			gi++
		}
	}
	record()
	const batch = 1 << 14
	err := sim.Run(ctx, grid[len(grid)-1], func(q int, s []int32, r float64) error {
		w := p.Weight(q, s)
		pi.Add(r, w)
		if cv != nil {
			cv.AddContext(q, counts[q], r, w)
		}
		ips.Add(r, p.Ratio(q, s)) // deterministic targets: never NaN
		value.Add(p.Query(q).Value)
		counts[q]++
		if i < dmKeep {
			st.dm.Add(q, s, r)
		}
		if i < keepDR {
			st.dr.Add(q, s, r)
		}
		i++
		if i%batch == 0 && cfg.Progress != nil {
			cfg.Progress(batch)
		}
		record()
		return nil
	})
	if cfg.Progress != nil {
		cfg.Progress(i % batch)
	}
	if err != nil {
		return nil, err
	}
	return st, nil
}

// eachRun calls f(k) for k = 0..runs−1 on up to threads goroutines (all
// cores when threads ≤ 0) and returns the error of the lowest k that failed, so the error does not
// depend on scheduling. Unlike parallel.For alone it does not stop on
// cancellation: every run sees ctx itself and reports ctx.Err().
func eachRun(runs, threads int, f func(k int) error) error {
	return parallel.For(context.Background(), runs, threads, nil, func(_ struct{}, k int) error {
		return f(k)
	})
}

// cvFolds is k, or ope.DefaultCVFolds for 0.
func cvFolds(k int) int {
	if k > 0 {
		return k
	}
	return ope.DefaultCVFolds
}
