//go:build cgo

package xgbmodel_test

// The layout of the package doc, checked on files XGBoost itself writes
// (through the cgo binding, a test-only dependency).

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/piopt/piopt/data/xgbmodel"
	"github.com/piopt/piopt/trainer/xgboost"
)

// layoutReader reads the legacy binary layout as documented, independently
// of the decoder.
type layoutReader struct {
	t   *testing.T
	b   []byte
	off int
}

func (r *layoutReader) take(n int) []byte {
	r.t.Helper()
	if n < 0 || n > len(r.b)-r.off {
		r.t.Fatalf("layout walk: %d bytes wanted at byte %d of %d", n, r.off, len(r.b))
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

func (r *layoutReader) str() string {
	return string(r.take(int(binary.LittleEndian.Uint64(r.take(8)))))
}

func le32(p []byte, off int) int { return int(int32(binary.LittleEndian.Uint32(p[off:]))) }

// walkLayout predicts rows from a legacy binary model by the documented
// layout alone: it proves the layout.
func walkLayout(t *testing.T, model []byte, x []float32, cols int) (pred []float64, objective string, numFeature int) {
	t.Helper()
	if string(model[:4]) != "binf" {
		t.Fatalf("model starts with %q, want binf", model[:4])
	}
	r := &layoutReader{t: t, b: model, off: 4}
	lp := r.take(136)
	base := math.Float32frombits(binary.LittleEndian.Uint32(lp))
	numFeature = le32(lp, 4)
	if le32(lp, 12) != 1 {
		t.Fatalf("contain_extra_attrs = %d", le32(lp, 12))
	}
	if maj, min := le32(lp, 20), le32(lp, 24); maj != 1 || min < 7 {
		t.Fatalf("model version %d.%d", maj, min)
	}
	objective = r.str()
	if b := r.str(); b != "gbtree" {
		t.Fatalf("booster %q", b)
	}
	gp := r.take(160)
	trees := le32(gp, 0)
	if g := le32(gp, 24); g != 0 {
		t.Fatalf("num_output_group = %d, documented as 0", g)
	}
	rows := len(x) / cols
	pred = make([]float64, rows)
	for i := range pred {
		pred[i] = float64(base)
	}
	for range trees {
		n := le32(r.take(148), 4)
		nodes := r.take(n * 20)
		r.take(n * 16)
		for i := range rows {
			pred[i] += walkTree(nodes, x[i*cols:(i+1)*cols])
		}
	}
	r.take(4 * trees)
	return pred, objective, numFeature
}

// walkTree returns the leaf value row reaches in a tree's 20-byte nodes.
func walkTree(nodes []byte, row []float32) float64 {
	k := 0
	for {
		nd := nodes[k*20:]
		left, right := le32(nd, 4), le32(nd, 8)
		val := math.Float32frombits(binary.LittleEndian.Uint32(nd[16:]))
		if left == -1 {
			return float64(val)
		}
		split := binary.LittleEndian.Uint32(nd[12:])
		switch v := row[split&(1<<31-1)]; {
		case v != v:
			if split>>31 != 0 {
				k = left
			} else {
				k = right
			}
		case v < val:
			k = left
		default:
			k = right
		}
	}
}

// trainSaved trains a 40-round lossguide model on rows×cols values (a grid of
// 0.1 and one NaN) with attributes, and returns the booster, the data and the
// file XGBoost saves in its legacy binary format.
func trainSaved(t *testing.T, rows, cols int, attrs map[string]string) (*xgboost.Booster, []float32, []byte) {
	r := rand.New(rand.NewPCG(13, 1))
	d := xgboost.Dense{Data: make([]float32, rows*cols), Rows: rows, Cols: cols, Labels: make([]float32, rows)}
	for i := range rows {
		row := d.Data[i*cols : (i+1)*cols]
		for j := range row {
			row[j] = float32(r.IntN(11)) / 10
		}
		d.Labels[i] = 3*row[0] - 2*row[1%cols] + row[0]*row[2%cols]
	}
	d.Data[7] = float32(math.NaN())
	dm, err := xgboost.NewDMatrix(d, xgboost.MatrixOptions{Build: xgboost.BuildQuantile, Threads: 1, MaxBin: 256})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dm.Close() })
	bst, err := xgboost.NewBooster([]xgboost.Param{
		{Name: "tree_method", Value: "hist"}, {Name: "grow_policy", Value: "lossguide"}, {Name: "max_depth", Value: "0"},
		{Name: "max_leaves", Value: "70"}, {Name: "max_bin", Value: "256"}, {Name: "nthread", Value: "1"},
		{Name: "verbosity", Value: "0"}, {Name: "base_score", Value: "0.3"},
	}, dm)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bst.Close() })
	for i := range 40 {
		if err := bst.Update(i, dm); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range attrs {
		if err := bst.SetAttr(k, v); err != nil {
			t.Fatal(err)
		}
	}
	model, err := bst.Save(xgboost.FormatBinary)
	if err != nil {
		t.Fatal(err)
	}
	return bst, d.Data, model
}

// A model saved by XGBoost 1.7 follows the documented layout ("binf"
// included): walking it predicts what XGBoost predicts, and Decode finds
// its attributes, refuses every truncation and reads it without the prefix.
func TestLegacyBinaryLayout(t *testing.T) {
	want := map[string]string{"piopt_kind": "pi-opt", "piopt_slots": "3", "empty": ""}
	bst, x, model := trainSaved(t, 3000, 6, want)
	xgb, err := bst.PredictDense(x, 3000, 6, xgboost.PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, objective, nf := walkLayout(t, model, x, 6)
	if objective != "reg:squarederror" || nf != 6 {
		t.Fatalf("objective %q, %d features", objective, nf)
	}
	for i := range got {
		if math.Abs(got[i]-float64(xgb[i])) > 1e-5*max(1, math.Abs(got[i])) {
			t.Fatalf("row %d: layout walk %g, XGBoost %g", i, got[i], xgb[i])
		}
	}
	m, err := xgbmodel.Decode(model)
	if err != nil {
		t.Fatal(err)
	}
	attrs := m.Attrs
	obj, ok := attrs["objective"]
	if !ok || !strings.Contains(obj, `"name":"reg:squarederror"`) {
		t.Fatalf("objective attribute %q", obj)
	}
	delete(attrs, "objective")
	if len(attrs) != len(want) {
		t.Fatalf("attributes %v, want %v", attrs, want)
	}
	for k, v := range want {
		if attrs[k] != v {
			t.Fatalf("attribute %s = %q, want %q", k, attrs[k], v)
		}
	}
	// No prefix of the file decodes, and none panics.
	for n := 0; n < len(model); n += 1 + n/50 {
		if _, err := xgbmodel.Decode(model[:n]); err == nil {
			t.Fatalf("a %d-byte prefix of a %d-byte model decoded", n, len(model))
		}
	}
	if _, err := xgbmodel.Decode(model[4:]); err != nil {
		t.Fatalf("model without the binf prefix: %v", err)
	}
	if _, err := xgbmodel.Decode(append(model, 0)); err == nil {
		t.Fatal("trailing byte accepted")
	}
}

// Tree.Leaf predicts bit for bit what XGBoost predicts: the base score plus
// each tree's leaf, added in float32 in tree order, from the legacy binary
// and the JSON file alike, and from a slice of one round at a time.
func TestLeafMatchesXGBoost(t *testing.T) {
	const rows, cols = 3000, 6
	bst, x, _ := trainSaved(t, rows, cols, nil)
	xgb, err := bst.PredictDense(x, rows, cols, xgboost.PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	predict := func(m *xgbmodel.Model, pred []float32) {
		for i := range rows {
			row := x[i*cols : (i+1)*cols]
			for k := range m.Trees {
				pred[i] += m.Trees[k].Leaf(func(c int) float32 { return row[c] })
			}
		}
	}
	base := func(m *xgbmodel.Model) []float32 {
		pred := make([]float32, rows)
		for i := range pred {
			pred[i] = m.BaseScore
		}
		return pred
	}
	for _, f := range []xgboost.Format{xgboost.FormatBinary, xgboost.FormatJSON} {
		b, err := bst.Save(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := xgbmodel.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		pred := base(m)
		predict(m, pred)
		// One round at a time, as trainer's validation does.
		byRound := base(m)
		for it := range len(m.Trees) {
			b, err := bst.SaveSlice(it, it+1, f)
			if err != nil {
				t.Fatal(err)
			}
			s, err := xgbmodel.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Trees) != 1 || s.BaseScore != m.BaseScore {
				t.Fatalf("slice %d: %d trees, base %v (model %v)", it, len(s.Trees), s.BaseScore, m.BaseScore)
			}
			predict(s, byRound)
		}
		nan := 0
		for i := range rows {
			if math.Float32bits(pred[i]) != math.Float32bits(xgb[i]) || math.Float32bits(byRound[i]) != math.Float32bits(xgb[i]) {
				t.Fatalf("%s: row %d: Leaf sums %v and %v by round, XGBoost %v", f, i, pred[i], byRound[i], xgb[i])
			}
			if math.IsNaN(float64(x[i*cols])) || math.IsNaN(float64(x[i*cols+1])) {
				nan++
			}
		}
		if nan == 0 {
			t.Fatal("no row with a missing value: the default direction is untested")
		}
	}
}
