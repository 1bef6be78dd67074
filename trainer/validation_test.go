//go:build cgo

package trainer

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/trainer/xgboost"
)

// smallFold is a random dataset of 60 queries of 2..14 docs × 5 features,
// integer-valued (ties at split thresholds) with a few missing values.
func smallFold(seed uint64) *data.Dataset {
	const queries, F = 60, 5
	r := rand.New(rand.NewPCG(seed, 9))
	ds := &data.Dataset{NumFeatures: F, QueryOffsets: []int{0}, Source: "small"}
	for q := range queries {
		m := 2 + r.IntN(13)
		for range m {
			for range F {
				v := float32(r.IntN(8))
				if r.IntN(40) == 0 {
					v = float32(math.NaN())
				}
				ds.Features = append(ds.Features, v)
			}
			ds.Labels = append(ds.Labels, uint8(r.IntN(5)))
		}
		ds.QueryOffsets = append(ds.QueryOffsets, ds.QueryOffsets[q]+m)
		ds.QIDs = append(ds.QIDs, "q")
	}
	return ds
}

// The running predictions of validation are XGBoost's predictions of a
// dense validation matrix in its prediction cache (what piopt used before),
// bit for bit, at every round: for a PI-OPT matrix made on demand with
// regression and for query groups with rank:ndcg.
func TestValidationMatchesXGBoostCache(t *testing.T) {
	train, vali := smallFold(1), smallFold(2)
	pt, err := features.PIOPT(train, piTargets(train, 3))
	if err != nil {
		t.Fatal(err)
	}
	pv, err := features.PIOPT(vali, piTargets(vali, 3))
	if err != nil {
		t.Fatal(err)
	}
	lt, err := features.LambdaMART(train)
	if err != nil {
		t.Fatal(err)
	}
	lv, err := features.LambdaMART(vali)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name         string
		train, valid *features.Matrix
		objective    string
	}{
		{"pi-opt", pt, pv, ObjectiveRegression},
		{"lambdamart", lt, lv, ObjectiveRankNDCG},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := small()
			p.Trees, p.Objective, p.Subsample = 40, c.objective, 0.8
			dtrain, err := xgboost.NewDMatrix(dense(c.train), xgboost.MatrixOptions{Build: xgboost.BuildQuantile, Threads: 1, MaxBin: p.MaxBin})
			if err != nil {
				t.Fatal(err)
			}
			defer dtrain.Close()
			var rows []float32
			for i := range c.valid.Rows {
				rows = c.valid.AppendRow(rows, i)
			}
			dvalid, err := xgboost.NewDMatrix(xgboost.Dense{Data: rows, Rows: c.valid.Rows, Cols: c.valid.Cols},
				xgboost.MatrixOptions{Build: xgboost.BuildDense, Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer dvalid.Close()
			bst, err := xgboost.NewBooster(p.xgbParams(weightedMean(c.train), "rmse"), dtrain, dvalid)
			if err != nil {
				t.Fatal(err)
			}
			defer bst.Close()
			val, err := newValidation(metric{name: "rmse"}, nil, c.valid, 2)
			if err != nil {
				t.Fatal(err)
			}
			nan := 0
			for _, v := range rows {
				if v != v {
					nan++
				}
			}
			if nan == 0 {
				t.Fatal("no missing value in the validation rows")
			}
			for it := range p.Trees {
				if err := bst.Update(it, dtrain); err != nil {
					t.Fatal(err)
				}
				want, err := bst.Predict(dvalid, xgboost.PredictOptions{})
				if err != nil {
					t.Fatal(err)
				}
				got, err := val.add(context.Background(), bst, it)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("round %d row %d: %v, XGBoost's cache %v", it+1, i, got[i], want[i])
					}
				}
			}
		})
	}
}

// A regression model does not depend on the number of threads that
// trained it (so piopt may choose them from the machine's load): same bytes
// with 1 and 2 threads, on a PI-OPT matrix large enough that XGBoost splits
// its histograms and quantile sketch over both. (rank:ndcg models do
// depend on it; Params.threads keeps all cores for them.)
func TestModelThreadsInvariant(t *testing.T) {
	ds := mslrLike(200)
	m, err := features.PIOPT(ds, piTargets(ds, 3))
	if err != nil {
		t.Fatal(err)
	}
	var models [][]byte
	for _, threads := range []int{1, 2} {
		p := small()
		p.Trees, p.Leaves, p.Threads, p.Subsample = 20, 70, threads, 0.8
		model, err := Train(context.Background(), m, m, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := model.bytes(xgboost.FormatBinary)
		model.Close()
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, b)
	}
	if !bytes.Equal(models[0], models[1]) {
		t.Fatalf("%d rows: the models trained on 1 and 2 threads differ", m.Rows)
	}
}
