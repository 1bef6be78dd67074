//go:build cgo

package trainer_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/trainer"
)

// Train a SUP-style regression y = 2·x on 100 points, save it in the
// legacy binary format and load it back with its metadata.
func ExampleTrain() {
	m := &features.Matrix{Rows: 100, Cols: 1, Meta: features.Meta{Kind: features.KindSUP, Features: 1, Metric: "gain"}}
	for i := range 100 {
		m.X = append(m.X, float32(i)/100)
		m.Labels = append(m.Labels, 2*float32(i)/100)
	}
	p := trainer.Defaults()
	p.Trees, p.Leaves, p.Threads = 50, 8, 1
	model, err := trainer.Train(context.Background(), m, nil, p, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer model.Close()
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "sup.model")
	if err := model.Save(path); err != nil {
		log.Fatal(err)
	}
	loaded, err := trainer.Load(path)
	if err != nil {
		log.Fatal(err)
	}
	defer loaded.Close()
	pred, err := loaded.Predict(&features.Matrix{X: []float32{0.25, 0.75}, Rows: 2, Cols: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s model, %d features, %d rounds; f(0.25) ≈ %.1f, f(0.75) ≈ %.1f\n",
		loaded.Meta.Kind, loaded.Meta.Features, loaded.Rounds, pred[0], pred[1])
	// Output: sup model, 1 features, 50 rounds; f(0.25) ≈ 0.5, f(0.75) ≈ 1.5
}

// Fit one depth-1 regression tree to a step, y = 2·1{x ≥ 0.5}: it splits
// at the step and predicts each side's mean.
func ExampleFitTree() {
	var x, y []float32
	for i := range 100 {
		v := float32(i) / 100
		x = append(x, v)
		if v >= 0.5 {
			y = append(y, 2)
		} else {
			y = append(y, 0)
		}
	}
	ctx := context.Background()
	r, err := trainer.FitTree(ctx, x, 1, y, 1, trainer.FitOptions{Threads: 1, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	pred, err := r.Predict(ctx, []float32{0.1, 0.9}, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("f(0.1) = %.2f, f(0.9) = %.2f\n", pred[0], pred[1])
	// Output: f(0.1) = 0.00, f(0.9) = 2.00
}

// Fit a lasso to y = 2·x1 − x2 + 1: without penalty it recovers the line;
// a large L1 penalty shrinks every weight to zero, leaving the mean.
func ExampleFitLasso() {
	const cols = 2
	var x, y []float32
	for i := range 10 {
		for k := range 10 {
			x1, x2 := float32(i)/10, float32(k)/10
			x = append(x, x1, x2)
			y = append(y, 2*x1-x2+1)
		}
	}
	ctx := context.Background()
	row := []float32{1, 1} // y = 2
	for _, l1 := range []float64{0, 10} {
		r, err := trainer.FitLasso(ctx, x, cols, y, l1, trainer.FitOptions{Threads: 1, Seed: 1})
		if err != nil {
			log.Fatal(err)
		}
		pred, err := r.Predict(ctx, row, cols)
		r.Close()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("l1 = %g: f(1, 1) = %.2f\n", l1, pred[0])
	}
	// Output:
	// l1 = 0: f(1, 1) = 2.00
	// l1 = 10: f(1, 1) = 1.45
}
