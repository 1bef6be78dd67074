package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piopt/piopt/internal/policy"
)

// targetsDir holds the fixture of targets given as data (testdata/targets/targets.py).
var targetsDir = filepath.Join("testdata", "targets")

// Targets given by a policy file, by scores and by a TREC run give, with
// and without --data, on the TSV log and on its JSON-lines twin, the PI, wPI, IPS and wIPS an independent numpy
// computation gives (testdata/targets/targets.py), and the coverage of the
// documents the logger never shows.
func TestTargetsAsData(t *testing.T) {
	type values struct {
		PI, WPI, IPS, WIPS float64
		ContextsShort      int `json:"contexts_short"`
	}
	var want map[string]json.RawMessage
	if err := json.Unmarshal(mustRead(t, filepath.Join(targetsDir, "expected.json")), &want); err != nil {
		t.Fatal(err)
	}
	targets := map[string][]string{
		"policy": {"--target-policy", filepath.Join(targetsDir, "tpolicy.txt")},
		"scores": {"--target-scores", filepath.Join(targetsDir, "scores.txt")},
		"run":    {"--target", "run:" + filepath.Join(targetsDir, "run.txt")},
	}
	withData := []string{"--data", filepath.Join(targetsDir, "data.txt"), "--doc-ids", "comment", "--no-cache"}
	for name, flags := range targets {
		var w values
		if err := json.Unmarshal(want[name], &w); err != nil {
			t.Fatal(err)
		}
		for k, data := range [][]string{nil, withData, nil, withData} {
			log := []string{"log.txt", "log.jsonl"}[k/2] // the TSV log and its JSON-lines twin
			out := filepath.Join(t.TempDir(), "est.json")
			args := append([]string{"evaluate", "--logs", filepath.Join(targetsDir, log), "--estimators", "pi,wpi,ips,wips", "--json", out}, flags...)
			if _, err := runCapture(t, append(args, data...)...); err != nil {
				t.Fatalf("%s (data %v): %v", name, data != nil, err)
			}
			var got map[string]struct {
				Value    float64 `json:"value"`
				Coverage *struct {
					ContextsShort  int     `json:"contexts_short"`
					ContextsUnseen int     `json:"contexts_unseen"`
					Bound          float64 `json:"max_bias_bound"`
				} `json:"coverage"`
			}
			if err := json.Unmarshal(mustRead(t, out), &got); err != nil {
				t.Fatal(err)
			}
			for est, v := range map[string]float64{"pi": w.PI, "wpi": w.WPI, "ips": w.IPS, "wips": w.WIPS} {
				if g := got[est].Value; math.Abs(g-v) > 1e-9*math.Abs(v) {
					t.Errorf("%s target, data %v: %s = %.17g, numpy %.17g", name, data != nil, est, g, v)
				}
			}
			cov := got["pi"].Coverage
			// numpy counts the contexts short of unseen documents; piopt
			// also those whose target lies partly outside Γ's range.
			if cov == nil || cov.ContextsUnseen != w.ContextsShort || cov.ContextsShort < w.ContextsShort || (cov.ContextsShort > 0) != (cov.Bound > 0) {
				t.Errorf("%s target, data %v: coverage %+v, want %d contexts with unseen documents", name, data != nil, cov, w.ContextsShort)
			}
		}
	}
}

// The messages a newcomer tripped on (issue 28) say what to do.
func TestTargetMessages(t *testing.T) {
	logs := filepath.Join(targetsDir, "log.txt")
	data := filepath.Join(targetsDir, "data.txt")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"evaluate", "--logs", logs, "--target", "bm25:1"}, policy.TargetKinds},
		{[]string{"evaluate", "--logs", logs, "--data", data, "--doc-ids", "comment", "--no-cache", "--target", "bm25:1"}, policy.TargetKinds},
		{[]string{"evaluate", "--logs", logs}, policy.TargetKinds},
		{[]string{"evaluate", "--logs", logs, "--target", "feature:1"}, "--target feature:1 needs --data: it reads the documents' features"},
		{[]string{"evaluate", "--logs", logs, "--target-scores", filepath.Join(targetsDir, "scores.txt"), "--estimators", "pi,dm"}, "--estimators dm needs --data"},
		{[]string{"evaluate", "--logs", logs, "--target-scores", filepath.Join(targetsDir, "missing.txt")}, "missing.txt"},
	} {
		_, err := runCapture(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("piopt %s: error %v, want one containing %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

// A scores file that misses a candidate names the file, the line, the
// context and the document; a log line whose context is unknown says
// "context".
func TestTargetScoresMissingCandidate(t *testing.T) {
	dir := t.TempDir()
	sc := writeText(t, dir, "sc.txt", "101\tD1\t1\n102\tD1\t1\n")
	_, err := runCapture(t, "evaluate", "--logs", filepath.Join(targetsDir, "log.txt"), "--target-scores", sc)
	if err == nil || !strings.Contains(err.Error(), "sc.txt:1: context \"101@a\": candidate \"D") || !strings.Contains(err.Error(), "\" has no score") {
		t.Errorf("error %v, want the file, line, context and document", err)
	}
	log := writeText(t, dir, "log.txt", "# piopt-log v1 slots=3 policy=policy.txt\n105@a\tD1,D2,D3\t1\n")
	writeText(t, dir, "policy.txt", string(mustRead(t, filepath.Join(targetsDir, "policy.txt"))))
	_, err = runCapture(t, "evaluate", "--logs", log, "--target-scores", filepath.Join(targetsDir, "scores.txt"))
	if err == nil || !strings.Contains(err.Error(), `context "105@a": qid "105" is not in`) {
		t.Errorf("error %v, want it to name the context", err)
	}
}

// Default estimators skip, and say so, what the log cannot give: onpolicy
// without a reward metric (instead of advising --metric); rewards outside
// the range name --reward-range.
func TestTargetDefaultsAndRange(t *testing.T) {
	args := []string{"evaluate", "--logs", filepath.Join(targetsDir, "log.txt"), "--target-scores", filepath.Join(targetsDir, "scores.txt"),
		"--data", filepath.Join(targetsDir, "data.txt"), "--doc-ids", "comment", "--no-cache", "--bootstrap", "0", "--reward-range", "0,0.5"}
	js := filepath.Join(t.TempDir(), "est.json")
	if _, err := runCapture(t, append(args, "--json", js)...); err != nil {
		t.Fatal(err)
	}
	out := string(mustRead(t, js))
	if strings.Contains(out, `"onpolicy"`) || strings.Contains(out, "--metric") {
		t.Errorf("default estimators on a log without metric= kept onpolicy:\n%s", out)
	}
	if !strings.Contains(out, "(give the range with --reward-range LO,HI)") {
		t.Errorf("a reward outside the range does not name --reward-range:\n%s", out)
	}
}

// impute's help names every logging spec and how each Γ is computed.
func TestImputeHelpNamesSpecs(t *testing.T) {
	out, err := runCapture(t, "impute", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"pl:TAU", "slates", "closed form for uniform", "exact dynamic programme", "quadrature", "summation"} {
		if !strings.Contains(out, w) {
			t.Errorf("impute --help lacks %q", w)
		}
	}
}

// select takes the same targets in --models, without --data, and gives
// each the wPI of the numpy reference.
func TestSelectTargetsAsData(t *testing.T) {
	var want map[string]struct{ WPI float64 }
	var all map[string]json.RawMessage
	if err := json.Unmarshal(mustRead(t, filepath.Join(targetsDir, "expected.json")), &all); err != nil {
		t.Fatal(err)
	}
	delete(all, "n")
	raw, _ := json.Marshal(all)
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "sel.json")
	models := "policy=policy:" + filepath.Join(targetsDir, "tpolicy.txt") + ",scores=scores:" + filepath.Join(targetsDir, "scores.txt") +
		",run=run:" + filepath.Join(targetsDir, "run.txt")
	if _, err := runCapture(t, "select", "--logs", filepath.Join(targetsDir, "log.txt"), "--models", models, "--json", out); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Models []struct {
			Name string
			WPI  struct{ Value float64 } `json:"wpi"`
		}
	}
	if err := json.Unmarshal(mustRead(t, out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Models) != 3 {
		t.Fatalf("%d models, want 3", len(got.Models))
	}
	for _, m := range got.Models {
		if w := want[m.Name].WPI; math.Abs(m.WPI.Value-w) > 1e-9*math.Abs(w) {
			t.Errorf("select %s: wpi %.17g, numpy %.17g", m.Name, m.WPI.Value, w)
		}
	}
}
