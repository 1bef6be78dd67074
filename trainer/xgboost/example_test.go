//go:build cgo

package xgboost_test

import (
	"fmt"
	"log"

	"github.com/piopt/piopt/trainer/xgboost"
)

// Fit y = 10·[x ≥ 0.5] − 5 with one two-leaf tree, save it in the legacy
// binary format and read it back.
func Example() {
	d := xgboost.Dense{Rows: 4, Cols: 1, Data: []float32{0.1, 0.2, 0.7, 0.9}, Labels: []float32{-5, -5, 5, 5}}
	m, err := xgboost.NewDMatrix(d, xgboost.MatrixOptions{Build: xgboost.BuildQuantile})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	bst, err := xgboost.NewBooster([]xgboost.Param{
		{Name: "tree_method", Value: "hist"}, {Name: "grow_policy", Value: "lossguide"},
		{Name: "max_depth", Value: "0"}, {Name: "max_leaves", Value: "2"},
		{Name: "eta", Value: "1"}, {Name: "lambda", Value: "0"}, {Name: "min_child_weight", Value: "0"},
		{Name: "base_score", Value: "0"},
	}, m)
	if err != nil {
		log.Fatal(err)
	}
	defer bst.Close()
	if err := bst.Update(0, m); err != nil {
		log.Fatal(err)
	}
	res, err := bst.Eval(0, xgboost.EvalSet{Name: "train", Matrix: m})
	if err != nil {
		log.Fatal(err)
	}
	if err := bst.SetAttr("piopt_kind", "sup"); err != nil {
		log.Fatal(err)
	}
	model, err := bst.Save(xgboost.FormatBinary)
	if err != nil {
		log.Fatal(err)
	}
	again, err := xgboost.LoadBooster(model)
	if err != nil {
		log.Fatal(err)
	}
	defer again.Close()
	p, err := again.PredictDense([]float32{0, 0.8}, 2, 1, xgboost.PredictOptions{})
	if err != nil {
		log.Fatal(err)
	}
	kind, _, _ := again.Attr("piopt_kind")
	fmt.Printf("%s-%s %.3f; predictions %v; kind %s; file starts %q\n", res[0].Data, res[0].Metric, res[0].Value, p, kind, model[:4])
	// Output: train-rmse 0.000; predictions [-5 5]; kind sup; file starts "binf"
}
