//go:build cgo

package xgboost

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// walkLegacy predicts rows from a legacy binary model by the layout
// documented in legacy.go, independently of XGBoost: it proves the layout.
func walkLegacy(t *testing.T, model []byte, x []float32, cols int) (pred []float64, objective string, numFeature int) {
	t.Helper()
	if string(model[:4]) != "binf" {
		t.Fatalf("model starts with %q, want binf", model[:4])
	}
	r := &legacyReader{b: model, off: 4}
	must := func(p []byte, err error) []byte {
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	lp := must(r.take(legacyLearnerParamSize, ""))
	base := math.Float32frombits(binary.LittleEndian.Uint32(lp))
	numFeature = int(binary.LittleEndian.Uint32(lp[4:]))
	if i32(lp, 12) != 1 {
		t.Fatalf("contain_extra_attrs = %d", i32(lp, 12))
	}
	if maj, min := i32(lp, 20), i32(lp, 24); maj != 1 || min < 7 {
		t.Fatalf("model version %d.%d", maj, min)
	}
	objective, _ = r.str("")
	if b, _ := r.str(""); b != "gbtree" {
		t.Fatalf("booster %q", b)
	}
	gp := must(r.take(legacyGBTreeParamSize, ""))
	trees := i32(gp, 0)
	if g := i32(gp, 24); g != 0 {
		t.Fatalf("num_output_group = %d, documented as 0", g)
	}
	rows := len(x) / cols
	pred = make([]float64, rows)
	for i := range pred {
		pred[i] = float64(base)
	}
	for range trees {
		tp := must(r.take(legacyTreeParamSize, ""))
		n := i32(tp, 4)
		nodes := must(r.take(n*legacyNodeSize, ""))
		must(r.take(n*legacyStatSize, ""))
		for i := range rows {
			k := 0
			for {
				nd := nodes[k*legacyNodeSize:]
				left, right := i32(nd, 4), i32(nd, 8)
				val := math.Float32frombits(binary.LittleEndian.Uint32(nd[16:]))
				if left == -1 {
					pred[i] += float64(val)
					break
				}
				split := binary.LittleEndian.Uint32(nd[12:])
				v := x[i*cols+int(split&(1<<31-1))]
				switch {
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
	}
	must(r.take(4*trees, ""))
	return pred, objective, numFeature
}

func TestLegacyBinaryLayout(t *testing.T) {
	d := randomDense(3000, 6, 13)
	d.Data[7] = float32(math.NaN())
	bst, _ := train(t, d, BuildQuantile, hist(Param{"base_score", "0.3"}, Param{"max_leaves", "70"}), 40)
	want := map[string]string{"piopt_kind": "pi-opt", "piopt_slots": "3", "empty": ""}
	for k, v := range want {
		if err := bst.SetAttr(k, v); err != nil {
			t.Fatal(err)
		}
	}
	model, err := bst.Save(FormatBinary)
	if err != nil {
		t.Fatal(err)
	}
	xgb, err := bst.PredictDense(d.Data, d.Rows, d.Cols, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, objective, nf := walkLegacy(t, model, d.Data, d.Cols)
	if objective != "reg:squarederror" || nf != 6 {
		t.Fatalf("objective %q, %d features", objective, nf)
	}
	for i := range got {
		if math.Abs(got[i]-float64(xgb[i])) > 1e-5*max(1, math.Abs(got[i])) {
			t.Fatalf("row %d: layout walk %g, XGBoost %g", i, got[i], xgb[i])
		}
	}
	attrs, err := LegacyAttrs(model)
	if err != nil {
		t.Fatal(err)
	}
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
	// No prefix of the file parses, and none panics.
	for n := 0; n < len(model); n += 1 + n/50 {
		if _, err := LegacyAttrs(model[:n]); err == nil {
			t.Fatalf("a %d-byte prefix of a %d-byte model parsed", n, len(model))
		}
	}
	if _, err := LegacyAttrs(model[4:]); err != nil {
		t.Fatalf("model without the binf prefix (XGBoost < 1.6): %v", err)
	}
	if _, err := LegacyAttrs(append(model, 0)); err == nil {
		t.Fatal("trailing byte accepted")
	}
}
