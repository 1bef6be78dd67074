package sweep

import (
	"context"
	"math"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/ope"
)

func TestLogGrid(t *testing.T) {
	for _, tc := range []struct {
		lo, hi int64
		per    int
		want   []int64
	}{
		{100, 1000, 4, []int64{100, 178, 316, 562, 1000}},
		{100, 1500, 2, []int64{100, 316, 1000, 1500}},
		{1, 10, 1, []int64{1, 10}},
		{50, 60, 4, []int64{56, 60}},
		{5, 3, 4, []int64{3}},
	} {
		if got := LogGrid(tc.lo, tc.hi, tc.per); !slices.Equal(got, tc.want) {
			t.Errorf("LogGrid(%d, %d, %d) = %v, want %v", tc.lo, tc.hi, tc.per, got, tc.want)
		}
	}
}

func TestErrorsOf(t *testing.T) {
	// Two grid points, three runs; V = 1.
	values := [][]float64{{1, 2}, {3, math.NaN()}, {2, 4}}
	rmse, bias, std := errorsOf(values, 1, 2)
	// Point 0: errors 0, 2, 1 → RMSE sqrt(5/3), bias 1, std 1.
	// Point 1: errors 1, 3 (NaN left out) → RMSE sqrt(5), bias 2, std sqrt(2).
	want := [][3]float64{{math.Sqrt(5.0 / 3), 1, 1}, {math.Sqrt(5), 2, math.Sqrt(2)}}
	for g, w := range want {
		if !near(rmse[g], w[0], 1e-12) || !near(bias[g], w[1], 1e-12) || !near(std[g], w[2], 1e-12) {
			t.Errorf("point %d: rmse %g bias %g std %g, want %v", g, rmse[g], bias[g], std[g], w)
		}
	}
}

// meanRegressor predicts the mean training reward: ope.DM then equals the mean
// reward of its training part, which a test can compute independently.
type meanRegressor struct{}

type constPredictor float64

func (meanRegressor) Fit(_ context.Context, x []float32, cols int, y []float32) (ope.Predictor, error) {
	s := 0.0
	for _, v := range y {
		s += float64(v)
	}
	return constPredictor(s / float64(len(y))), nil
}

func (c constPredictor) Predict(_ context.Context, x []float32, cols int, out []float64) error {
	for i := range out {
		out[i] = float64(c)
	}
	return nil
}

// countingRegressor counts its fits.
type countingRegressor struct {
	ope.Regressor
	fits *atomic.Int64
}

func (c countingRegressor) Fit(ctx context.Context, x []float32, cols int, y []float32) (ope.Predictor, error) {
	c.fits.Add(1)
	return c.Regressor.Fit(ctx, x, cols, y)
}

// TestSweepMatchesEvaluator checks every grid point of every run against
// Evaluators fed with the same prefix of the same simulated log.
func TestSweepMatchesEvaluator(t *testing.T) {
	ds := testData([]int{6, 8, 5, 9, 7, 4, 3}, 3, 31)
	s := setup(t, ds, 5, 3, "pa:1")
	p := prepare(t, s)
	est, err := ope.ParseEstimators("pi,wpi,pi-cv,ips,wips,dm,onpolicy")
	if err != nil {
		t.Fatal(err)
	}
	regs := map[string]ope.Regressor{"tree": meanRegressor{}}
	const dmCap = 700
	var fits atomic.Int64
	cfg := Config{Samples: 3000, Runs: 3, Seed: 40, Grid: []int64{1, 100, 1000, 2000, 3000}, Estimators: est,
		Regressors: map[string]ope.Regressor{"tree": countingRegressor{meanRegressor{}, &fits}}, DMMaxTrain: dmCap, CVFolds: 4}
	res, err := Sweep(context.Background(), p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Training sizes 50, 500 and 700 (n = 2000 and 3000 share the capped
	// 700): three fits per run.
	if got := fits.Load(); got != 3*int64(cfg.Runs) {
		t.Errorf("%d ope.DM fits, want 3 per run (the capped training part fitted once)", got)
	}
	for k := range cfg.Runs {
		for g, n := range cfg.Grid {
			full, _ := p.NewEvaluator(ope.EvalOptions{Estimators: ope.Estimators{PI: true, WPI: true, PICV: true, IPS: true, WIPS: true, OnPolicy: true},
				Intervals: ope.Intervals{Delta: 0.05, RewardHi: 1}, CVFolds: 4})
			// The sweep's ope.DM trains on the first min(n/2, cap) samples and
			// evaluates on samples n/2..n: feed exactly those.
			train := min(n/2, dmCap)
			dm, _ := p.NewEvaluator(ope.EvalOptions{Estimators: ope.Estimators{DM: est.DM}, Intervals: ope.Intervals{Delta: 0.05, RewardHi: 1},
				DMTrain: train, Regressors: regs})
			sim := impute.Simulation{Candidates: s.Candidates, Logging: s.Gammas.Logging(), Slots: 3, Reward: s.Scorer, Seed: 40 + uint64(k)}
			var i int64
			_ = sim.Run(context.Background(), n, func(q int, sl []int32, r float64) error {
				full.Add(q, sl, r)
				if i < train || i >= n/2 {
					dm.Add(q, sl, r)
				}
				i++
				return nil
			})
			ref, _ := full.Result(context.Background())
			if len(ref.Estimates[ope.PICV].ControlVariate.FoldBetas) != 4 {
				t.Errorf("run %d n %d: pi-cv %+v, want 4 folds", k, n, ref.Estimates[ope.PICV])
			}
			for _, name := range []string{ope.PI, ope.WPI, ope.PICV, ope.IPS, ope.WIPS, ope.OnPolicy} {
				if got, want := res.Values[name][k][g], float64(ref.Estimates[name].Value); got != want {
					t.Errorf("run %d n %d %s: sweep %.15g, evaluator %.15g", k, n, name, got, want)
				}
			}
			got := res.Values[ope.DM][k][g]
			if n/2 < 2 {
				if !math.IsNaN(got) {
					t.Errorf("run %d n %d: ope.DM %g with fewer than 2 training samples", k, n, got)
				}
				continue
			}
			ref, _ = dm.Result(context.Background())
			if want := float64(ref.Estimates[ope.DM].Value); !near(got, want, 1e-12) {
				t.Errorf("run %d n %d DM: sweep %.15g, evaluator %.15g", k, n, got, want)
			}
		}
	}
	if res.TrueValue != p.TrueValue || len(res.RMSE[ope.PI]) != len(cfg.Grid) {
		t.Fatalf("result %+v", res)
	}
}

func TestSweepDoesNotDependOnThreads(t *testing.T) {
	ds := testData([]int{6, 8, 5, 9}, 3, 5)
	p := prepare(t, setup(t, ds, 0, 2, "uniform"))
	est, _ := ope.ParseEstimators("pi,wpi,ips,wips,onpolicy")
	run := func(threads int) *Result {
		res, err := Sweep(context.Background(), p, Config{Samples: 2000, Runs: 5, Seed: 1, Estimators: est, Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(1), run(3)
	for _, name := range a.Names {
		for k := range a.Values[name] {
			for g := range a.Values[name][k] {
				if math.Float64bits(a.Values[name][k][g]) != math.Float64bits(b.Values[name][k][g]) {
					t.Fatalf("%s run %d point %d: %g with 1 thread, %g with 3", name, k, g, a.Values[name][k][g], b.Values[name][k][g])
				}
			}
		}
	}
	if !slices.Equal(a.Grid, LogGrid(100, 2000, 4)) {
		t.Fatalf("default grid %v", a.Grid)
	}
}

// TestSweepDRMatchesEvaluator: the sweep's dr and wdr at every grid point
// are the evaluator's on the same prefix of the same log.
func TestSweepDRMatchesEvaluator(t *testing.T) {
	ds := testData([]int{6, 8, 5, 9, 7}, 3, 31)
	s := setup(t, ds, 5, 3, "pa:1")
	p := prepare(t, s)
	b := ope.Baseline{Fitter: meanFitter{}, Folds: 3}
	cfg := Config{Samples: 2000, Runs: 2, Seed: 7, Grid: []int64{5, 6, 300, 2000}, Estimators: ope.Estimators{PI: true, DR: true, WDR: true}, Baseline: b}
	if got := cfg.DMPoints(); got != 3*2 {
		t.Errorf("DMPoints %d, want 6 (grid points with at least 2K samples, 2 runs)", got)
	}
	res, err := Sweep(context.Background(), p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for k := range cfg.Runs {
		for g, n := range cfg.Grid {
			ev, _ := p.NewEvaluator(ope.EvalOptions{Estimators: cfg.Estimators, Intervals: ope.Intervals{Delta: 0.05, RewardHi: 1}, Baseline: b})
			sim := impute.Simulation{Candidates: s.Candidates, Logging: s.Gammas.Logging(), Slots: 3, Reward: s.Scorer, Seed: 7 + uint64(k)}
			_ = sim.Run(context.Background(), n, func(q int, sl []int32, r float64) error { ev.Add(q, sl, r); return nil })
			ref, _ := ev.Result(context.Background())
			for _, name := range []string{ope.DR, ope.WDR} {
				got, want := res.Values[name][k][g], float64(ref.Estimates[name].Value)
				if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
					t.Errorf("run %d n %d %s: sweep %.15g, evaluator %.15g", k, n, name, got, want)
				}
			}
		}
	}
	if !math.IsNaN(res.Values[ope.DR][0][0]) || math.IsNaN(res.Values[ope.DR][0][1]) {
		t.Errorf("dr at n = 5 and 6 with K = 3: %v", res.Values[ope.DR][0][:2])
	}
}

// TestSweepFitPoints: with FitPoints the sweep computes ope.DM, dr and wdr
// only there, with the values a sweep over every point gives.
func TestSweepFitPoints(t *testing.T) {
	ds := testData([]int{6, 8, 5}, 3, 3)
	p := prepare(t, setup(t, ds, 0, 2, "uniform"))
	est, err := ope.ParseEstimators("pi,dr,wdr,dm")
	if err != nil {
		t.Fatal(err)
	}
	all := Config{Samples: 1000, Runs: 2, Seed: 1, Grid: []int64{100, 300, 1000}, Estimators: est,
		Regressors: map[string]ope.Regressor{"tree": meanRegressor{}}, Baseline: ope.Baseline{Fitter: meanFitter{}, Folds: 2}}
	cfg := all
	cfg.FitPoints = []int64{300}
	if got := cfg.DMPoints(); got != 4 {
		t.Errorf("DMPoints %d, want 4 (ope.DM and dr at one point, 2 runs)", got)
	}
	res, err := Sweep(context.Background(), p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := Sweep(context.Background(), p, all)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{ope.DR, ope.WDR, ope.DM} {
		for k := range 2 {
			v, w := res.Values[name][k], ref.Values[name][k]
			if !math.IsNaN(v[0]) || v[1] != w[1] || math.IsNaN(v[1]) || !math.IsNaN(v[2]) {
				t.Errorf("%s run %d: %v, want NaN but at n = 300, where every point's sweep has %v", name, k, v, w[1])
			}
		}
	}
	if v := res.Values[ope.PI][0]; math.IsNaN(v[0]) || math.IsNaN(v[2]) {
		t.Errorf("pi %v: every point", v)
	}
}

// meanFitter's model values every slate at the mean reward of its samples.
type meanFitter struct{}

func (meanFitter) FitPhi(_ context.Context, p *ope.Plan, _, _ []int32, r []float32) (ope.RewardModel, error) {
	v := 0.0
	for _, x := range r {
		v += float64(x)
	}
	return ope.ConstantModel(p.Candidates, p.Slots, v/float64(len(r))), nil
}
