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
