package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piopt/piopt/trainer"
)

// evaluate --estimators dr,wdr writes both with their baseline: by default
// a cross-fitted regression (--baseline-folds K folds), or a PI-OPT model
// given by --baseline model:PATH; "all" includes them; bad values of the
// two flags are refused before any work.
func TestEvaluateDR(t *testing.T) {
	if !trainer.Available {
		t.Skip("dr's cross-fitted baseline trains with XGBoost: a build without cgo has none")
	}
	dir, common := letorCommand(t, letorSpec{file: "d.txt", seed: 9, queries: 10, minDocs: 4, maxDocs: 9, qid0: 1})
	at := func(name string) string { return filepath.Join(dir, name) }
	run := func(args ...string) {
		t.Helper()
		if err := runPiopt(t, append(args, common...)...); err != nil {
			t.Fatal(err)
		}
	}
	run("simulate", "--slots", "3", "--logging", "pa:1", "--rank-by", "feature:2", "--samples", "4000", "--out", at("log.txt"))
	evaluate := func(js string, flags ...string) map[string]json.RawMessage {
		t.Helper()
		run(append([]string{"evaluate", "--logs", at("log.txt"), "--target", "feature:3", "--json", at(js), "--threads", "1"}, flags...)...)
		var v map[string]json.RawMessage
		if err := json.Unmarshal(mustRead(t, at(js)), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	type drJSON struct {
		Value    float64
		Baseline struct {
			Kind        string  `json:"kind"`
			Folds       int     `json:"folds"`
			FoldSamples []int64 `json:"fold_samples"`
			FoldTrees   []int   `json:"fold_trees"`
			ModelLo     float64 `json:"model_lo"`
			ModelHi     float64 `json:"model_hi"`
		}
		EmpiricalBernstein *struct{ Lo, Hi float64 } `json:"empirical_bernstein"`
	}
	decode := func(raw json.RawMessage) drJSON {
		var d drJSON
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	v := evaluate("a.json", "--estimators", "pi,dr,wdr", "--baseline-folds", "3")
	dr, wdr := decode(v["dr"]), decode(v["wdr"])
	b := dr.Baseline
	if b.Kind != "crossfit" || b.Folds != 3 || len(b.FoldSamples) != 3 || b.FoldSamples[0]+b.FoldSamples[1]+b.FoldSamples[2] != 4000 ||
		len(b.FoldTrees) != 3 || b.FoldTrees[0] < 1 || !(b.ModelLo <= b.ModelHi) || dr.EmpiricalBernstein == nil || math.IsNaN(wdr.Value) {
		t.Errorf("dr %+v, wdr %+v", dr, wdr)
	}
	again := evaluate("a2.json", "--estimators", "pi,dr,wdr", "--baseline-folds", "3")
	if string(again["dr"]) != string(v["dr"]) {
		t.Errorf("dr not reproducible:\n%s\n%s", v["dr"], again["dr"])
	}
	if all := evaluate("b.json", "--estimators", "all"); all["dr"] == nil || all["wdr"] == nil {
		t.Error(`--estimators all has no "dr" or "wdr"`)
	}

	run("impute", "--logs", at("log.txt"), "--out", at("t.targets"))
	run("train", "--targets", at("t.targets"), "--trees", "5", "--out", at("m.model"))
	m := decode(evaluate("c.json", "--estimators", "dr", "--baseline", "model:"+at("m.model"))["dr"])
	if m.Baseline.Kind != "model:"+at("m.model") || m.Baseline.Folds != 0 || math.IsNaN(m.Value) {
		t.Errorf("dr with a model baseline: %+v", m)
	}

	// --baseline model:PATH is an input: an output over it is refused,
	// while "crossfit" names no file.
	err := runPiopt(t, append([]string{"evaluate", "--logs", at("log.txt"), "--target", "feature:3", "--estimators", "dr",
		"--baseline", "model:" + at("m.model"), "--json", at("m.model")}, common...)...)
	if err == nil || !strings.Contains(err.Error(), "the same file") {
		t.Errorf("--json over the --baseline model: %v", err)
	}
	t.Chdir(dir)
	run("evaluate", "--logs", at("log.txt"), "--target", "feature:3", "--estimators", "dr", "--json", "crossfit", "--threads", "1")

	// Under ERR, dr and wdr say that their unbiasedness assumes an
	// additive reward, as PI does.
	run("simulate", "--slots", "3", "--logging", "pa:1", "--rank-by", "feature:2", "--samples", "400", "--metric", "err", "--out", at("err.txt"))
	run("evaluate", "--logs", at("err.txt"), "--target", "feature:3", "--estimators", "dr,wdr", "--baseline-folds", "2", "--json", at("err.json"), "--threads", "1")
	var e map[string]struct{ Warnings []string }
	if err := json.Unmarshal(mustRead(t, at("err.json")), &e); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"dr", "wdr"} {
		if w := e[name].Warnings; len(w) == 0 || !strings.Contains(w[0], "ERR is not additive") {
			t.Errorf("%s under ERR: warnings %q", name, w)
		}
	}

	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--baseline-folds", "1"}, "--baseline-folds 1: cross-fitting needs at least 2 folds"},
		{[]string{"--baseline", "tree"}, `--baseline "tree": want crossfit or model:PATH`},
		{[]string{"--baseline", "model:" + at("nothing.model")}, "nothing.model"},
	} {
		args := append([]string{"evaluate", "--logs", at("log.txt"), "--target", "feature:3", "--estimators", "dr"}, c.flags...)
		err := runPiopt(t, append(args, common...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.flags, err, c.want)
		}
	}
}
