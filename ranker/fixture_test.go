package ranker

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/piopt/piopt/features"
)

// testdata/xgb174-* were written by XGBoost 1.7.4 itself (TestWriteFixture,
// cgo): a PI-OPT model of 20 trees × 8 leaves on 4 features + 3 slots, in
// the legacy binary and the JSON format, and rows with XGBoost's
// predictions. This test needs no XGBoost, so CGO_ENABLED=0 runs check the
// reader against genuine files.
func TestXGBoostFixture(t *testing.T) {
	raw, err := os.ReadFile("testdata/xgb174-rows.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var x []float32
	var want []float64
	for i, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 8 {
			t.Fatalf("line %d: %d fields", i+1, len(f))
		}
		for k, s := range f {
			v, err := strconv.ParseFloat(s, 32)
			if err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			if k < 7 {
				x = append(x, float32(v))
			} else {
				want = append(want, v)
			}
		}
	}
	bin, err := os.ReadFile("testdata/xgb174-pi-opt.model")
	if err != nil {
		t.Fatal(err)
	}
	// The file has the quirks the transform exists for (136: the learner
	// parameters).
	if !bytes.HasPrefix(bin, []byte("binf")) {
		t.Error("XGBoost 1.7 binary without the binf prefix")
	}
	off := 4 + 136 + 8 + len("reg:squarederror") + 8 + len("gbtree") + 24
	if g := binary.LittleEndian.Uint32(bin[off:]); g != 0 {
		t.Errorf("num_output_group = %d, expected XGBoost 1.7's 0", g)
	}
	for _, path := range []string{"testdata/xgb174-pi-opt.model", "testdata/xgb174-pi-opt.json"} {
		m, err := LoadModel(path)
		if err != nil {
			t.Fatal(err)
		}
		if m.Meta().Kind != features.KindPIOPT || m.Meta().Features != 4 || m.Meta().Slots != 3 || m.Trees() != 20 {
			t.Errorf("%s: %+v, %d trees", path, m.Meta(), m.Trees())
		}
		out := make([]float64, len(want))
		if err := m.predictRows(context.Background(), x, out, 0); err != nil {
			t.Fatal(err)
		}
		for i := range out {
			if d := math.Abs(out[i] - want[i]); d > 1e-5*math.Max(1, math.Abs(want[i])) {
				t.Fatalf("%s row %d: %v, XGBoost %v", path, i, out[i], want[i])
			}
		}
	}
}
