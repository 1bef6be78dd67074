package ope

import (
	"context"
	"math"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/piopt/piopt/impute"
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

// meanRegressor predicts the mean training reward: DM then equals the mean
// reward of its training part, which a test can compute independently.
type meanRegressor struct{}

type constPredictor float64

func (meanRegressor) Fit(_ context.Context, x []float32, cols int, y []float32) (Predictor, error) {
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
	Regressor
	fits *atomic.Int64
}

func (c countingRegressor) Fit(ctx context.Context, x []float32, cols int, y []float32) (Predictor, error) {
	c.fits.Add(1)
	return c.Regressor.Fit(ctx, x, cols, y)
}

// TestSweepMatchesEvaluator checks every grid point of every run against
// Evaluators fed with the same prefix of the same simulated log.
func TestSweepMatchesEvaluator(t *testing.T) {
	ds := testData([]int{6, 8, 5, 9, 7, 4, 3}, 3, 31)
	s := setup(t, ds, 5, 3, "pa:1")
	p := prepare(t, s)
	est, err := ParseEstimators("pi,wpi,pi-cv,ips,wips,dm,onpolicy")
	if err != nil {
		t.Fatal(err)
	}
	regs := map[string]Regressor{"tree": meanRegressor{}}
	const dmCap = 700
	var fits atomic.Int64
	cfg := SweepConfig{Samples: 3000, Runs: 3, Seed: 40, Grid: []int64{1, 100, 1000, 2000, 3000}, Estimators: est,
		Regressors: map[string]Regressor{"tree": countingRegressor{meanRegressor{}, &fits}}, DMMaxTrain: dmCap, CVFolds: 4}
	res, err := p.Sweep(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Training sizes 50, 500 and 700 (n = 2000 and 3000 share the capped
	// 700): three fits per run.
	if got := fits.Load(); got != 3*int64(cfg.Runs) {
		t.Errorf("%d DM fits, want 3 per run (the capped training part fitted once)", got)
	}
	for k := range cfg.Runs {
		for g, n := range cfg.Grid {
			full, _ := p.NewEvaluator(EvalOptions{Estimators: Estimators{PI: true, WPI: true, PICV: true, IPS: true, WIPS: true, OnPolicy: true},
				Intervals: Intervals{Delta: 0.05, RewardHi: 1}, CVFolds: 4})
			cv, _ := p.NewCV(4)
			// The sweep's DM trains on the first min(n/2, cap) samples and
			// evaluates on samples n/2..n: feed exactly those.
			train := min(n/2, dmCap)
			dm, _ := p.NewEvaluator(EvalOptions{Estimators: Estimators{DM: est.DM}, Intervals: Intervals{Delta: 0.05, RewardHi: 1},
				DMTrain: train, Regressors: regs})
			sim := impute.Simulation{Candidates: s.Candidates, Logging: s.Gammas.Logging(), Slots: 3, Reward: s.Scorer, Seed: 40 + uint64(k)}
			var i int64
			_ = sim.Run(context.Background(), n, func(q int, sl []int32, r float64) error {
				full.Add(q, sl, r)
				cv.Add(q, sl, r)
				if i < train || i >= n/2 {
					dm.Add(q, sl, r)
				}
				i++
				return nil
			})
			ref, _ := full.Result(context.Background())
			if core, _ := cv.Estimate(Intervals{Delta: 0.05, RewardHi: 1}); core.Value != ref.Estimates[PICV].Value ||
				len(ref.Estimates[PICV].ControlVariate.FoldBetas) != 4 {
				t.Errorf("run %d n %d: evaluator's pi-cv %v, CVEvaluator's %v", k, n, ref.Estimates[PICV], core)
			}
			for _, name := range []string{PI, WPI, PICV, IPS, WIPS, OnPolicy} {
				if got, want := res.Values[name][k][g], float64(ref.Estimates[name].Value); got != want {
					t.Errorf("run %d n %d %s: sweep %.15g, evaluator %.15g", k, n, name, got, want)
				}
			}
			got := res.Values[DM][k][g]
			if n/2 < 2 {
				if !math.IsNaN(got) {
					t.Errorf("run %d n %d: DM %g with fewer than 2 training samples", k, n, got)
				}
				continue
			}
			ref, _ = dm.Result(context.Background())
			if want := float64(ref.Estimates[DM].Value); !near(got, want, 1e-12) {
				t.Errorf("run %d n %d DM: sweep %.15g, evaluator %.15g", k, n, got, want)
			}
		}
	}
	if res.TrueValue != p.TrueValue || len(res.RMSE[PI]) != len(cfg.Grid) {
		t.Fatalf("result %+v", res)
	}
}

func TestSweepDoesNotDependOnThreads(t *testing.T) {
	ds := testData([]int{6, 8, 5, 9}, 3, 5)
	p := prepare(t, setup(t, ds, 0, 2, "uniform"))
	est, _ := ParseEstimators("pi,wpi,ips,wips,onpolicy")
	run := func(threads int) *SweepResult {
		res, err := p.Sweep(context.Background(), SweepConfig{Samples: 2000, Runs: 5, Seed: 1, Estimators: est, Threads: threads})
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
