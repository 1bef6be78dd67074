package ranker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dmitryikh/leaves"
	"github.com/piopt/piopt/features"
)

// predictOne scores one float32 row with m.
func predictOne(t *testing.T, m *Model, row []float32) float64 {
	t.Helper()
	out := make([]float64, 1)
	if err := m.PredictRows(context.Background(), row, out, 1); err != nil {
		t.Fatal(err)
	}
	return out[0]
}

// The three failures of leaves on a 1.7 file, and the transform that fixes
// them, on a one-split model whose answer is known by hand.
func TestTransformFixesLeaves(t *testing.T) {
	// x[0] < 2 ? -1 : +1, base score 0.5, 1 feature + 0 slots.
	xm := newXGB(features.KindSUP, 1, 0, 0.5, stump(1, 0, 2, -1, 1))
	raw := xgb17Binary(xm)

	// Fix 1 is not exercised: leaves reads "binf" and the next 4 bytes as
	// the objective's length and dies allocating 64 GiB (a fatal error, not
	// a recoverable panic).
	// Without the prefix, the output-group count of 0 remains: leaves
	// loads the model and then divides by it when predicting.
	func() {
		ens, err := leaves.XGEnsembleFromReader(bufio.NewReader(bytes.NewReader(raw[4:])), false)
		if err != nil {
			return
		}
		defer func() { recover() }()
		out := []float64{0}
		if err := ens.PredictDense([]float64{3}, 1, 1, out, 0, 1); err == nil && out[0] == 1.5 {
			t.Error("leaves predicted right with 0 output groups; fix 2 may no longer be needed")
		}
	}()

	m, err := ParseModel(raw, "stump")
	if err != nil {
		t.Fatal(err)
	}
	// Fix 3: XGBoost sends x < 2 left, so x = 2 goes right (+1); leaves'
	// own rule x ≤ t would send it left.
	for _, c := range []struct{ x, want float32 }{
		{1, -0.5}, {1.9999999, -0.5}, {2, 1.5}, {2.0000002, 1.5}, {3, 1.5},
		{float32(math.Inf(-1)), -0.5}, {float32(math.Inf(1)), 1.5},
	} {
		if got := predictOne(t, m, []float32{c.x}); got != float64(c.want) {
			t.Errorf("x = %v: got %v, want %v", c.x, got, c.want)
		}
	}
	// With fixes 1 and 2 only (prefix dropped, group count patched to 1 in
	// place), leaves reads the file but sends x = t left.
	only12 := bytes.Clone(raw[4:])
	off := learnerParamSize + 8 + len(xm.objective) + 8 + len(xm.booster) + 24
	binary.LittleEndian.PutUint32(only12[off:], 1)
	ens, err := leaves.XGEnsembleFromReader(bufio.NewReader(bytes.NewReader(only12)), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := ens.PredictSingle([]float64{2}, 0); got != -0.5 {
		t.Errorf("leaves without fix 3 at x = t: %v, want the wrong side -0.5", got)
	}
}

// Splits at thresholds around zero and at the extremes of float32.
func TestTransformEdgeThresholds(t *testing.T) {
	for _, thr := range []float32{0, float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32, float32(math.Inf(1))} {
		xm := newXGB(features.KindSUP, 1, 0, 0, stump(1, 0, thr, -1, 1))
		m, err := ParseModel(xgb17Binary(xm), "edge")
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range []float32{0, float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 1, -1, math.MaxFloat32, -math.MaxFloat32} {
			want := float64(xgbPredict(xm, []float32{x}))
			if got := predictOne(t, m, []float32{x}); got != want {
				t.Errorf("threshold %v, x = %v: got %v, want %v", thr, x, got, want)
			}
		}
	}
}

// Missing values (NaN) follow each split's default direction, as in XGBoost.
func TestDefaultDirection(t *testing.T) {
	var b tb
	b.leaf(math.MaxInt32, 0)
	b.split(0, 0, 1, true, -1, 1)
	var c tb
	c.leaf(math.MaxInt32, 0)
	c.split(0, 0, 1, false, -10, 10)
	xm := newXGB(features.KindSUP, 1, 0, 0, b.tree(1), c.tree(1))
	m, err := ParseModel(xgb17Binary(xm), "nan")
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
		F, L := 1+rng.IntN(6), rng.IntN(4)
		kind := features.KindSUP
		if L > 0 {
			kind = features.KindPIOPT
		}
		cols := F + L
		var trees []xgbTree
		for range 1 + rng.IntN(30) {
			trees = append(trees, randomTree(rng, cols, 1+rng.IntN(40), values))
		}
		xm := newXGB(kind, F, L, float32(rng.NormFloat64()), trees...)
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
			b := xgb17Binary(xm)
			if format == "json" {
				b = xgb17JSON(xm)
			}
			m, err := ParseModel(b, format)
			if err != nil {
				t.Fatalf("trial %d %s: %v", trial, format, err)
			}
			out := make([]float64, rows)
			if err := m.PredictRows(context.Background(), x, out, 2); err != nil {
				t.Fatal(err)
			}
			for i := range rows {
				want := float64(xgbPredict(xm, x[i*cols:(i+1)*cols]))
				if d := math.Abs(out[i] - want); d > 1e-5*math.Max(1, math.Abs(want)) {
					t.Fatalf("trial %d %s row %d: got %v, want %v", trial, format, i, out[i], want)
				}
			}
		}
	}
}

func TestModelMetadata(t *testing.T) {
	xm := newXGB(features.KindPIOPT, 4, 3, 0, stump(7, 5, 0.5, 0, 1))
	for _, b := range [][]byte{xgb17Binary(xm), xgb17JSON(xm)} {
		m, err := ParseModel(b, "meta")
		if err != nil {
			t.Fatal(err)
		}
		want := features.Meta{Kind: features.KindPIOPT, Slots: 3, Features: 4, Metric: "ndcg@3", Targets: "test"}
		if m.Meta() != want || m.Trees() != 1 || m.Objective() != "reg:squarederror" {
			t.Errorf("got %+v, %d trees, %s", m.Meta(), m.Trees(), m.Objective())
		}
	}
}

func TestParseModelErrors(t *testing.T) {
	good := func() *xgbModel { return newXGB(features.KindSUP, 2, 0, 0, stump(2, 1, 0.5, 0, 1)) }
	cases := []struct {
		name string
		edit func(m *xgbModel)
		want string
	}{
		{"no metadata", func(m *xgbModel) { m.attrs = map[string]string{} }, "no piopt metadata"},
		{"columns disagree", func(m *xgbModel) { m.numFeature = 3 }, "trained on 3 columns"},
		{"logistic", func(m *xgbModel) { m.objective = "binary:logistic" }, "output transform"},
		{"dart", func(m *xgbModel) { m.booster = "dart" }, "only gbtree"},
		{"split column out of range", func(m *xgbModel) { m.trees[0].nodes[0].sindex = 2 }, "splits on column 2"},
		{"cycle", func(m *xgbModel) { m.trees[0].nodes[0].left = 0 }, "corrupt tree"},
		{"shared child", func(m *xgbModel) { m.trees[0].nodes[0].left = 2 }, "corrupt tree"},
		{"infinite leaf", func(m *xgbModel) { m.trees[0].nodes[1].value = float32(math.Inf(1)) }, "not finite"},
		{"no trees", func(m *xgbModel) { m.trees = nil }, "no trees"},
	}
	for _, c := range cases {
		for _, format := range []string{"binary", "json"} {
			if format == "json" && c.name == "infinite leaf" {
				continue // JSON has no spelling for Inf
			}
			xm := good()
			c.edit(xm)
			b := xgb17Binary(xm)
			if format == "json" {
				b = xgb17JSON(xm)
			}
			_, err := ParseModel(b, "bad.model")
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.model") {
				t.Errorf("%s (%s): got %v, want an error naming the file and containing %q", c.name, format, err, c.want)
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

// Every truncation of a valid file is an error, never a panic.
func TestParseModelTruncated(t *testing.T) {
	xm := newXGB(features.KindPIOPT, 2, 3, 0.5, stump(5, 1, 0.5, 0, 1), stump(5, 3, 0.5, 2, 3))
	b := xgb17Binary(xm)
	for n := range len(b) {
		if _, err := ParseModel(b[:n], "t"); err == nil {
			t.Fatalf("truncated to %d of %d bytes: no error", n, len(b))
		}
	}
	if _, err := ParseModel(append(b, 0), "t"); err == nil || !strings.Contains(err.Error(), "unexpected bytes") {
		t.Errorf("trailing byte: %v", err)
	}
}

// Corrupt bytes give an error or a model, never a panic or a hang.
func FuzzParseModel(f *testing.F) {
	xm := newXGB(features.KindPIOPT, 2, 3, 0.5, stump(5, 1, 0.5, 0, 1), stump(5, 3, 0.5, 2, 3))
	f.Add(xgb17Binary(xm))
	f.Add(xgb17JSON(xm))
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
	xm := newXGB(features.KindPIOPT, 2, 3, 0.5, randomTree(rng, 5, 12, []float32{0, 0.5, 1}), stump(5, 3, 0.5, 2, 3))
	for _, orig := range [][]byte{xgb17Binary(xm), xgb17JSON(xm)} {
		for range 3000 {
			b := bytes.Clone(orig)
			b[rng.IntN(len(b))] = byte(rng.IntN(256))
			if m, err := ParseModel(b, "c"); err == nil {
				predictOne(t, m, make([]float32, m.Meta().Columns()))
			}
		}
	}
}
