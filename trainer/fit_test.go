package trainer

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

func needFit(t *testing.T) {
	t.Helper()
	if !Available {
		t.Skip("needs cgo and libxgboost")
	}
}

// fitOpt is every fit's options: one thread and a fixed seed, so each fit
// is reproducible.
var fitOpt = FitOptions{Threads: 1, Seed: 1}

// mustFit returns fit's model, failing t on an error, and closes the model
// when t ends.
func mustFit(t *testing.T, fit func() (*Regression, error)) *Regression {
	t.Helper()
	r, err := fit()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestFitTreeStepFunction: y = 2·1{x1 > 0.5} + 1{x2 > 0.5} is recovered
// exactly by a depth-2 tree; a depth-1 tree splits on x1 only and predicts
// the means of its halves, 2.5 and 0.5 (x2's indicator averages ½).
func TestFitTreeStepFunction(t *testing.T) {
	needFit(t)
	rng := rand.New(rand.NewPCG(7, 7))
	const rows, cols = 2000, 2
	x := make([]float32, rows*cols)
	y := make([]float32, rows)
	step := func(v float32) float32 {
		if v > 0.5 {
			return 1
		}
		return 0
	}
	for i := range rows {
		// Grid values keep both halves balanced and away from the cut.
		x[i*cols] = float32(rng.IntN(10))/10 + 0.05
		x[i*cols+1] = float32(i%10)/10 + 0.05
		y[i] = 2*step(x[i*cols]) + step(x[i*cols+1])
	}
	ctx := context.Background()
	r := mustFit(t, func() (*Regression, error) { return FitTree(ctx, x, cols, y, 2, fitOpt) })
	p, err := r.Predict(ctx, x, cols)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if math.Abs(p[i]-float64(y[i])) > 1e-5 {
			t.Fatalf("depth 2: row %d (%g, %g) predicted %g, want %g", i, x[i*cols], x[i*cols+1], p[i], y[i])
		}
	}
	r1 := mustFit(t, func() (*Regression, error) { return FitTree(ctx, x, cols, y, 1, fitOpt) })
	p, _ = r1.Predict(ctx, []float32{0.25, 0.95, 0.75, 0.05}, cols)
	if math.Abs(p[0]-0.5) > 0.05 || math.Abs(p[1]-2.5) > 0.05 {
		t.Fatalf("depth 1 predicts %v, want ≈ [0.5 2.5]", p)
	}
	if _, err := r1.Predict(ctx, []float32{1, 2, 3}, 3); err == nil {
		t.Fatal("prediction on 3 columns of a 2-column model accepted")
	}
	if _, err := FitTree(ctx, nil, cols, nil, 2, FitOptions{}); err == nil {
		t.Fatal("fit on no rows accepted")
	}
}

// TestFitLasso: with no penalty the linear model recovers y = 2 f1 − f2 + 1;
// with a large one every weight is 0 and the prediction is the mean.
func TestFitLasso(t *testing.T) {
	needFit(t)
	rng := rand.New(rand.NewPCG(5, 5))
	const rows, cols = 500, 3
	x := make([]float32, rows*cols)
	y := make([]float32, rows)
	mean := 0.0
	for i := range rows {
		for k := range cols {
			x[i*cols+k] = float32(rng.Float64())
		}
		y[i] = 2*x[i*cols] - x[i*cols+1] + 1
		mean += float64(y[i]) / rows
	}
	ctx := context.Background()
	r := mustFit(t, func() (*Regression, error) { return FitLasso(ctx, x, cols, y, 0, fitOpt) })
	p, _ := r.Predict(ctx, []float32{0.5, 0.25, 0.9}, cols)
	if math.Abs(p[0]-1.75) > 1e-3 {
		t.Fatalf("unpenalised fit predicts %g at (0.5, 0.25, 0.9), want 1.75", p[0])
	}
	// One feature, y = 2 f1 (exactly): scikit-learn's Lasso objective
	// (1/2n)‖y − w f1 − b‖² + α|w| has w = 2 − α/var(f1), var over n.
	x1 := make([]float32, rows)
	y1 := make([]float32, rows)
	var m1, v1 float64
	for i := range rows {
		x1[i] = x[i*cols]
		y1[i] = 2 * x1[i]
		m1 += float64(x1[i]) / rows
	}
	for i := range rows {
		v1 += (float64(x1[i]) - m1) * (float64(x1[i]) - m1) / rows
	}
	const alpha = 0.05
	r1 := mustFit(t, func() (*Regression, error) { return FitLasso(ctx, x1, 1, y1, alpha, fitOpt) })
	p, _ = r1.Predict(ctx, []float32{0, 1}, 1)
	if w := p[1] - p[0]; math.Abs(w-(2-alpha/v1)) > 1e-3 {
		t.Fatalf("lasso slope %g, want 2 − α/var = %g", w, 2-alpha/v1)
	}
	r10 := mustFit(t, func() (*Regression, error) { return FitLasso(ctx, x, cols, y, 10, fitOpt) })
	p, _ = r10.Predict(ctx, []float32{0.5, 0.25, 0.9, 0, 1, 0}, cols)
	if math.Abs(p[0]-mean) > 1e-4 || math.Abs(p[1]-mean) > 1e-4 {
		t.Fatalf("heavily penalised fit predicts %v, want the mean %g", p, mean)
	}
}

// TestConverged: the largest move is compared with lassoTol × the largest
// weight (floored at 1e-12, so all-zero weights have converged).
func TestConverged(t *testing.T) {
	for _, tc := range []struct {
		prev, w []float64
		want    bool
	}{
		{[]float64{1, 2}, []float64{1, 2}, true},
		{[]float64{1, 2}, []float64{1, 2.0001}, true},   // move 1e-4 ≤ 1e-4·2.0001
		{[]float64{1, 2}, []float64{1, 2.00021}, false}, // move 2.1e-4 > 1e-4·2.00021
		{[]float64{0, 0}, []float64{0, 0}, true},
		{[]float64{0, 0}, []float64{0, 1e-15}, false}, // 1e-15 > 1e-4·1e-12
	} {
		if got := converged(tc.prev, tc.w); got != tc.want {
			t.Errorf("converged(%v, %v) = %v, want %v", tc.prev, tc.w, got, tc.want)
		}
	}
}
