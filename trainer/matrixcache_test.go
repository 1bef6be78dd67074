//go:build cgo

package trainer

import (
	"bytes"
	"context"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/trainer/xgboost"
)

// retarget returns t's rows and weights with other targets (another
// metric's rewards on the same log), and with weights scaled by w.
func retarget(t *data.Targets, w float64) *data.Targets {
	o := *t
	o.Target, o.Weight = make([]float64, len(t.Target)), make([]float64, len(t.Weight))
	for i, v := range t.Target {
		o.Target[i] = 1 - 0.5*v*v
		o.Weight[i] = t.Weight[i] * w
	}
	return &o
}

// modelBytes trains on m (through c, nil: alone) and returns the model's
// bytes.
func modelBytes(t *testing.T, c *MatrixCache, m *features.Matrix) []byte {
	t.Helper()
	p := small()
	p.Trees = 20
	model, err := c.TrainJob(context.Background(), nil, m, nil, nil, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	b, err := model.bytes(xgboost.FormatBinary)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A model trained on a cached quantile matrix with its labels swapped is
// the model trained on a matrix of its own, bit for bit; the cache is hit
// only for the same rows and weights, and a miss rebuilds.
func TestMatrixCacheSameModels(t *testing.T) {
	needFit(t)
	ds := smallFold(1)
	base := piTargets(ds, 3)
	mk := func(tg *data.Targets) *features.Matrix {
		m, err := features.PIOPT(ds, tg)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	ndcg, errM, heavier := mk(base), mk(retarget(base, 1)), mk(retarget(base, 2))
	var c MatrixCache
	defer c.Close()
	first := modelBytes(t, &c, ndcg)
	built := c.d
	shared := modelBytes(t, &c, errM)
	if c.d != built {
		t.Fatal("same rows and weights: the cache rebuilt its matrix")
	}
	alone := modelBytes(t, nil, errM)
	if bytes.Equal(first, alone) {
		t.Fatal("the two targets give the same model: the test cannot tell labels apart")
	}
	if !bytes.Equal(shared, alone) {
		t.Fatal("the model on the shared matrix differs from the one on its own matrix")
	}
	if got, want := modelBytes(t, &c, heavier), modelBytes(t, nil, heavier); !bytes.Equal(got, want) || c.d == built {
		t.Fatalf("other weights: rebuilt %v, same model %v", c.d != built, bytes.Equal(got, want))
	}
	if again := modelBytes(t, &c, ndcg); !bytes.Equal(again, first) {
		t.Fatal("the first targets, after the cache changed hands, give another model")
	}
}
