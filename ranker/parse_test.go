package ranker

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/piopt/piopt/data/xgbmodel"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/internal/xgbmodeltest"
)

// predictOne scores one float32 row with m.
func predictOne(t *testing.T, m *Model, row []float32) float64 {
	t.Helper()
	out := make([]float64, 1)
	if err := m.predictRows(context.Background(), row, out, 1); err != nil {
		t.Fatal(err)
	}
	return out[0]
}

// Splits at thresholds around zero and at the extremes of float32.
func TestTransformEdgeThresholds(t *testing.T) {
	for _, thr := range []float32{0, float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32, float32(math.Inf(1))} {
		xm := newXGB(features.KindSUP, 1, 0, 0, xgbmodeltest.Stump(1, 0, thr, -1, 1))
		m, err := ParseModel(xgbmodeltest.Binary(xm), "edge")
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range []float32{0, float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 1, -1, math.MaxFloat32, -math.MaxFloat32} {
			want := float64(xgbmodeltest.Predict(xm, []float32{x}))
			if got := predictOne(t, m, []float32{x}); got != want {
				t.Errorf("threshold %v, x = %v: got %v, want %v", thr, x, got, want)
			}
		}
	}
}

// Missing values (NaN) follow each split's default direction, as in XGBoost.
func TestDefaultDirection(t *testing.T) {
	var b xgbmodeltest.Builder
	b.Leaf(math.MaxInt32, 0)
	b.Split(0, 0, 1, true, -1, 1)
	var c xgbmodeltest.Builder
	c.Leaf(math.MaxInt32, 0)
	c.Split(0, 0, 1, false, -10, 10)
	xm := newXGB(features.KindSUP, 1, 0, 0, b.Tree(1), c.Tree(1))
	m, err := ParseModel(xgbmodeltest.Binary(xm), "nan")
	if err != nil {
		t.Fatal(err)
	}
	if got := predictOne(t, m, []float32{float32(math.NaN())}); got != 9 {
		t.Errorf("NaN: got %v, want -1 + 10", got)
	}
}

// Random deep trees on integer-valued rows, read from both formats, agree
// with XGBoost's prediction rule (float32 sums, x < t).
func TestRandomModelsBothFormats(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	values := []float32{0, 1, 2, 3, 4.5, 5, 6, 7, 8, 9, 0.5}
	for trial := range 20 {
		xm, F, L := randomXGB(rng, 6, 30, 40, values)
		cols := F + L
		rows := 200
		x := make([]float32, rows*cols)
		for i := range x {
			x[i] = float32(rng.IntN(10))
		}
		for i := 0; i < rows; i++ {
			for j := range L {
				x[i*cols+F+j] = 0
			}
			if L > 0 {
				x[i*cols+F+rng.IntN(L)] = 1
			}
		}
		for _, format := range []string{"binary", "json"} {
			b := xgbmodeltest.Binary(xm)
			if format == "json" {
				b = xgbmodeltest.JSON(xm)
			}
			m, err := ParseModel(b, format)
			if err != nil {
				t.Fatalf("trial %d %s: %v", trial, format, err)
			}
			out := make([]float64, rows)
			if err := m.predictRows(context.Background(), x, out, 2); err != nil {
				t.Fatal(err)
			}
			for i := range rows {
				want := float64(xgbmodeltest.Predict(xm, x[i*cols:(i+1)*cols]))
				if d := math.Abs(out[i] - want); d > 1e-5*math.Max(1, math.Abs(want)) {
					t.Fatalf("trial %d %s row %d: got %v, want %v", trial, format, i, out[i], want)
				}
			}
		}
	}
}

func TestModelMetadata(t *testing.T) {
	xm := newXGB(features.KindPIOPT, 4, 3, 0, xgbmodeltest.Stump(7, 5, 0.5, 0, 1))
	for _, b := range [][]byte{xgbmodeltest.Binary(xm), xgbmodeltest.JSON(xm)} {
		m, err := ParseModel(b, "meta")
		if err != nil {
			t.Fatal(err)
		}
		want := features.Meta{Kind: features.KindPIOPT, Slots: 3, Features: 4, Metric: "ndcg@3", Targets: "test"}
		if m.Meta() != want || m.Trees() != 1 || m.objective != "reg:squarederror" {
			t.Errorf("got %+v, %d trees, %s", m.Meta(), m.Trees(), m.objective)
		}
	}
}

func TestParseModelErrors(t *testing.T) {
	good := func() *xgbmodel.Model { return newXGB(features.KindSUP, 2, 0, 0, xgbmodeltest.Stump(2, 1, 0.5, 0, 1)) }
	cases := append(xgbmodeltest.Corruptions(2),
		xgbmodeltest.Corruption{Name: "no metadata", Edit: func(m *xgbmodel.Model) { m.Attrs = map[string]string{} }, Want: "no piopt metadata"},
		xgbmodeltest.Corruption{Name: "columns disagree", Edit: func(m *xgbmodel.Model) { m.NumFeature = 3 }, Want: "trained on 3 columns"})
	for _, c := range cases {
		for _, format := range []string{"binary", "json"} {
			if format == "json" && c.BinaryOnly {
				continue
			}
			xm := good()
			c.Edit(xm)
			b := xgbmodeltest.Encode(xm, format)
			_, err := ParseModel(b, "bad.model")
			if err == nil || !strings.Contains(err.Error(), c.Want) || !strings.Contains(err.Error(), "bad.model") {
				t.Errorf("%s (%s): got %v, want an error naming the file and containing %q", c.Name, format, err, c.Want)
			}
		}
	}
	if _, err := ParseModel([]byte("CONFIG-offset:xxxxxxxx"), "snap"); err == nil || !strings.Contains(err.Error(), "serialised") {
		t.Errorf("snapshot: %v", err)
	}
	if _, err := ParseModel([]byte("{not json"), "j"); err == nil || !strings.Contains(err.Error(), "JSON") {
		t.Errorf("bad JSON: %v", err)
	}
}

// Corrupt bytes give an error or a model, never a panic or a hang.
func FuzzParseModel(f *testing.F) {
	xm := newXGB(features.KindPIOPT, 2, 3, 0.5, xgbmodeltest.Stump(5, 1, 0.5, 0, 1), xgbmodeltest.Stump(5, 3, 0.5, 2, 3))
	f.Add(xgbmodeltest.Binary(xm))
	f.Add(xgbmodeltest.JSON(xm))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseModel(b, "fuzz")
		if err != nil {
			return
		}
		row := make([]float32, m.Meta().Columns())
		predictOne(t, m, row)
	})
}

// Random single-byte corruptions of a valid file, as a quick fuzz in the
// ordinary test run.
func TestParseModelCorrupt(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	xm := newXGB(features.KindPIOPT, 2, 3, 0.5, xgbmodeltest.RandomTree(rng, 5, 12, []float32{0, 0.5, 1}), xgbmodeltest.Stump(5, 3, 0.5, 2, 3))
	for _, orig := range [][]byte{xgbmodeltest.Binary(xm), xgbmodeltest.JSON(xm)} {
		for range 3000 {
			b := bytes.Clone(orig)
			b[rng.IntN(len(b))] = byte(rng.IntN(256))
			if m, err := ParseModel(b, "c"); err == nil {
				predictOne(t, m, make([]float32, m.Meta().Columns()))
			}
		}
	}
}
