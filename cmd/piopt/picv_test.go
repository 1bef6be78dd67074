package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// evaluate --estimators pi-cv writes the estimate under "pi-cv" with its
// coefficients, one per --cv-folds fold; "all" includes it.
func TestEvaluatePICV(t *testing.T) {
	dir, common := letorCommand(t, letorSpec{file: "d.txt", seed: 9, queries: 10, minDocs: 4, maxDocs: 9, qid0: 1})
	at := func(name string) string { return filepath.Join(dir, name) }
	if err := runPiopt(t, append([]string{"simulate", "--slots", "3", "--logging", "pa:1", "--rank-by", "feature:2",
		"--samples", "4000", "--out", at("log.txt")}, common...)...); err != nil {
		t.Fatal(err)
	}
	evaluate := func(js string, flags ...string) map[string]json.RawMessage {
		args := append(append([]string{"evaluate", "--logs", at("log.txt"), "--target", "feature:3", "--json", at(js)}, common...), flags...)
		if err := runPiopt(t, args...); err != nil {
			t.Fatal(err)
		}
		var v map[string]json.RawMessage
		if err := json.Unmarshal(mustRead(t, at(js)), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	var cv struct {
		Value          float64
		ControlVariate struct {
			Beta      float64   `json:"beta"`
			FoldBetas []float64 `json:"fold_betas"`
		} `json:"control_variate"`
	}
	v := evaluate("a.json", "--estimators", "pi,pi-cv", "--cv-folds", "3")
	if err := json.Unmarshal(v["pi-cv"], &cv); err != nil {
		t.Fatal(err)
	}
	if len(cv.ControlVariate.FoldBetas) != 3 || math.IsNaN(cv.Value) || cv.ControlVariate.Beta == 0 {
		t.Errorf("pi-cv %+v: want 3 fold coefficients and a value", cv)
	}
	if all := evaluate("b.json", "--estimators", "all"); all["pi-cv"] == nil {
		t.Error(`--estimators all has no "pi-cv"`)
	}
	err := runPiopt(t, append([]string{"evaluate", "--logs", at("log.txt"), "--target", "feature:3", "--estimators", "pi-cv", "--cv-folds", "0"}, common...)...)
	if err == nil || !strings.Contains(err.Error(), "--cv-folds 0: must be ≥ 1") {
		t.Errorf("--cv-folds 0: %v", err)
	}
}
