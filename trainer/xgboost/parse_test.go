package xgboost

import (
	"math"
	"testing"
)

func TestParseEval(t *testing.T) {
	iter, res, err := parseEval("[12]\ttrain-rmse:0.50000000000000000\tvalid-ndcg@3-:0.25\tvalid-map:nan\n")
	if err != nil {
		t.Fatal(err)
	}
	if iter != 12 || len(res) != 3 {
		t.Fatalf("iter %d, %d results", iter, len(res))
	}
	if res[0] != (EvalResult{"train", "rmse", 0.5}) || res[1] != (EvalResult{"valid", "ndcg@3-", 0.25}) {
		t.Fatalf("results %+v", res)
	}
	if res[2].Metric != "map" || !math.IsNaN(res[2].Value) {
		t.Fatalf("nan result %+v", res[2])
	}
	for _, bad := range []string{"", "12\ttrain-rmse:1", "[x]\ttrain-rmse:1", "[1]\ttrainrmse:1", "[1]\ttrain-rmse", "[1]\ttrain-rmse:abc", "[1]\t-rmse:1"} {
		if _, _, err := parseEval(bad); err == nil {
			t.Errorf("ParseEval(%q) accepted", bad)
		}
	}
}

func TestFormatForPath(t *testing.T) {
	for path, want := range map[string]Format{
		"m.json": FormatJSON, "dir.v1/M.JSON": FormatJSON, "m.ubj": FormatUBJ,
		"m.model": FormatBinary, "m": FormatBinary, "m.json.bin": FormatBinary,
	} {
		if got := formatForPath(path); got != want {
			t.Errorf("FormatForPath(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestCleanMessage(t *testing.T) {
	msg := "[04:21:00] ../src/learner.cc:1023: Check failed: x (0 vs. 1) : bad\nStack trace:\n  [bt] (0) /usr/lib/libxgboost.so(+0x1234)\n"
	if got := cleanMessage(msg); got != "Check failed: x (0 vs. 1) : bad" {
		t.Fatalf("cleanMessage = %q", got)
	}
	if got := cleanMessage("[1] plain"); got != "[1] plain" {
		t.Fatalf("cleanMessage kept too little: %q", got)
	}
}

func TestDenseValidate(t *testing.T) {
	ok := Dense{Data: make([]float32, 6), Rows: 3, Cols: 2, Labels: make([]float32, 3), Groups: []uint32{1, 2}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string]Dense{
		"empty":   {Rows: 0, Cols: 2},
		"size":    {Data: make([]float32, 5), Rows: 3, Cols: 2},
		"labels":  {Data: make([]float32, 6), Rows: 3, Cols: 2, Labels: []float32{}},
		"weights": {Data: make([]float32, 6), Rows: 3, Cols: 2, Weights: make([]float32, 4)},
		"groups":  {Data: make([]float32, 6), Rows: 3, Cols: 2, Groups: []uint32{3, 0}},
		"huge":    {Data: make([]float32, 6), Rows: math.MaxInt / 2, Cols: 3},
	} {
		if err := d.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestParseBuild(t *testing.T) {
	for _, b := range []Build{BuildQuantile, BuildDense, BuildMatOMP} {
		if got, err := parseBuild(b.String()); err != nil || got != b {
			t.Errorf("ParseBuild(%q) = %v, %v", b.String(), got, err)
		}
	}
	if _, err := parseBuild("csr"); err == nil {
		t.Error("csr accepted")
	}
}
