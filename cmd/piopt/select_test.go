package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// selectOutput is select's --json, with each estimator's object kept as
// written so that it can be compared with evaluate's byte for byte.
type selectOutput struct {
	Estimator string  `json:"estimator"`
	Interval  string  `json:"interval"`
	Delta     float64 `json:"delta"`
	Log       string  `json:"log"`
	Best      string  `json:"best"`
	Models    []struct {
		Name         string                     `json:"name"`
		Target       string                     `json:"target"`
		Rank         int                        `json:"rank"`
		NotSeparable bool                       `json:"not_separable"`
		Estimates    map[string]json.RawMessage `json:"-"`
	} `json:"models"`
}

// readSelectJSON reads select's --json file and checks that its keys are
// the documented ones, at the top and in every model.
func readSelectJSON(t *testing.T, path string) selectOutput {
	t.Helper()
	b := mustRead(t, path)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sortedKeys(top), ","); got != "best,delta,estimator,interval,log,models" {
		t.Errorf("top-level keys %s", got)
	}
	var out selectOutput
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	var models []map[string]json.RawMessage
	if err := json.Unmarshal(top["models"], &models); err != nil {
		t.Fatal(err)
	}
	for i, m := range models {
		if got := strings.Join(sortedKeys(m), ","); got != "ips,name,not_separable,pi,rank,target,wips,wpi" {
			t.Errorf("model %d keys %s", i, got)
		}
		out.Models[i].Estimates = m
	}
	return out
}

func sortedKeys(m map[string]json.RawMessage) []string { return slices.Sorted(maps.Keys(m)) }

// estimateJSON is one estimator's object as evaluate and select write it.
type estimateJSON struct {
	Value     float64 `json:"value"`
	Bernstein *struct {
		Lo float64 `json:"lo"`
		Hi float64 `json:"hi"`
	} `json:"bernstein"`
	Setup map[string]any `json:"setup"`
}

// withoutSetup returns an estimator's JSON object less its setup (which
// records the command line), re-encoded with sorted keys.
func withoutSetup(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "setup")
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkSelectMatchesEvaluate checks every model of select's output
// against `evaluate --target SPEC --estimators pi,wpi,ips,wips` on the same
// log with the same interval flags: the same estimator objects, byte for
// byte (values, intervals, weights, Γ), and the same target.
func checkSelectMatchesEvaluate(t *testing.T, sel selectOutput, common []string, log string, flags ...string) {
	t.Helper()
	dir := t.TempDir()
	for _, m := range sel.Models {
		out := filepath.Join(dir, "est.json")
		args := append(append([]string{"evaluate", "--logs", log, "--target", m.Target, "--estimators", "pi,wpi,ips,wips", "--json", out}, common...), flags...)
		if err := runPiopt(t, args...); err != nil {
			t.Fatal(err)
		}
		var est map[string]json.RawMessage
		if err := json.Unmarshal(mustRead(t, out), &est); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"pi", "wpi", "ips", "wips"} {
			if got, want := withoutSetup(t, m.Estimates[name]), withoutSetup(t, est[name]); got != want {
				t.Errorf("%s (%s) %s:\nselect   %.300s\nevaluate %.300s", m.Name, m.Target, name, got, want)
			}
			var e estimateJSON
			if err := json.Unmarshal(m.Estimates[name], &e); err != nil || e.Setup["target"] != m.Target {
				t.Errorf("%s %s: setup target %v, want %s (%v)", m.Name, name, e.Setup["target"], m.Target, err)
			}
		}
	}
}

// checkSelectOrder checks that the models are ranked by the estimator's
// value, best first, that best is the first, and that exactly the models
// whose interval overlaps the best's are marked.
func checkSelectOrder(t *testing.T, sel selectOutput) []float64 {
	t.Helper()
	values := make([]float64, len(sel.Models))
	var best estimateJSON
	for i, m := range sel.Models {
		var e estimateJSON
		if err := json.Unmarshal(m.Estimates[sel.Estimator], &e); err != nil {
			t.Fatal(err)
		}
		values[i] = e.Value
		if m.Rank != i+1 || (i > 0 && values[i] > values[i-1]) {
			t.Errorf("rank %d: %s at %d, %s %g after %v", m.Rank, m.Name, i, sel.Estimator, e.Value, values[:i])
		}
		if i == 0 {
			best = e
			continue
		}
		overlap := e.Bernstein.Lo <= best.Bernstein.Hi && best.Bernstein.Lo <= e.Bernstein.Hi
		if m.NotSeparable != overlap {
			t.Errorf("%s: not_separable %v, Bernstein %v vs the best's %v", m.Name, m.NotSeparable, *e.Bernstein, *best.Bernstein)
		}
	}
	if sel.Best != sel.Models[0].Name {
		t.Errorf("best %q, first %q", sel.Best, sel.Models[0].Name)
	}
	return values
}

// TestSelectMatchesEvaluate ranks three rank sources on a simulated log by
// wpi and by ips: every estimate is evaluate's, the order is the chosen
// estimator's, and the table lists the models in that order.
func TestSelectMatchesEvaluate(t *testing.T) {
	dir, common := letorCommand(t, opeLETOR)
	log := filepath.Join(dir, "x.log")
	if err := runPiopt(t, append([]string{"simulate", "--slots", "3", "--metric", "ndcg", "--logging", "pa:1", "--rank-by", "feature:2",
		"--candidates", "8", "--samples", "20000", "--seed", "5", "--out", log}, common...)...); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--delta", "0.1", "--bootstrap", "50", "--seed", "3"}
	listed := []string{"feature:1", "four=feature:4", "feature:3"}
	for _, estimator := range []string{"wpi", "ips"} {
		out := filepath.Join(dir, estimator+".json")
		args := append(append([]string{"select", "--logs", log, "--models", strings.Join(listed, ","), "--estimator", estimator, "--json", out}, common...), flags...)
		stdout, err := runCapture(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		sel := readSelectJSON(t, out)
		if sel.Estimator != estimator || sel.Interval != "bernstein" || sel.Delta != 0.1 || sel.Log != log || len(sel.Models) != 3 {
			t.Fatalf("selection %+v", sel)
		}
		checkSelectOrder(t, sel)
		checkSelectMatchesEvaluate(t, sel, common, log, flags...)
		// The table: one line per model, in rank order, then best.
		var names []string
		for _, m := range sel.Models {
			names = append(names, m.Name)
		}
		var rows []string
		for _, l := range strings.Split(stdout, "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == string(rune('0'+len(rows)+1)) {
				rows = append(rows, f[1])
			}
		}
		if strings.Join(rows, ",") != strings.Join(names, ",") || !strings.Contains(stdout, "\nbest: "+names[0]+"\n") {
			t.Errorf("table rows %v, JSON order %v:\n%s", rows, names, stdout)
		}
		if !slices.Contains(names, "four") || slices.Contains(names, "feature:4") {
			t.Errorf("NAME=SPEC not used as the name: %v", names)
		}
	}
}

// TestSelectErrors: select refuses bad flags and files naming the flag or
// file, before it writes anything.
func TestSelectErrors(t *testing.T) {
	dir, common := letorCommand(t, opeLETOR)
	log := filepath.Join(dir, "x.log")
	if err := runPiopt(t, append([]string{"simulate", "--slots", "3", "--logging", "uniform", "--samples", "100", "--out", log}, common...)...); err != nil {
		t.Fatal(err)
	}
	bad := writeText(t, dir, "bad.model", "not a model")
	missing := filepath.Join(dir, "nosuch.model")
	out := filepath.Join(dir, "sel.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--models", "feature:1", "--estimator", "dm"}, `--estimator "dm"`},
		{[]string{"--models", "feature:1", "--interval", "normal"}, "--interval"},
		{[]string{"--models", "feature:1", "--interval", "bootstrap", "--bootstrap", "0"}, "--bootstrap"},
		{[]string{"--models", ""}, "--models"},
		{[]string{"--models", "feature:1,,feature:2"}, "--models"},
		{[]string{"--models", "feature:1,feature:1"}, `two models named "feature:1"`},
		{[]string{"--models", "feature:1,one=feature:1"}, "feature:1 and one=feature:1 are the same ranker"},
		{[]string{"--models", "a=feature:1,a=feature:2"}, `two models named "a"`},
		{[]string{"--models", "feature:1," + missing}, "--models " + missing + ": no model file " + missing},
		{[]string{"--models", "model:" + bad}, "--models model:" + bad},
		{[]string{"--models", "tree:1-2"}, "--policy-data"},
		{[]string{"--models", "feature:1", "--delta", "0"}, "--delta"},
		{[]string{"--models", "feature:9"}, "--models feature:9"},
		{[]string{"--models", "feature:1", "--logs", filepath.Join(dir, "nosuch.log")}, "nosuch.log"},
		{[]string{"--models", "feature:1", "--data", filepath.Join(dir, "nosuch.txt")}, "nosuch.txt"},
		{[]string{"--models", "feature:1", "--slots", "4"}, "slots"},
		{[]string{"--models", "feature:1", "--json", log}, "--json and --logs"},
	} {
		args := []string{"select", "--logs", log}
		if !slices.Contains(tc.args, "--json") { // a flag is given once
			args = append(args, "--json", out)
		}
		args = append(append(args, common...), tc.args...)
		stdout, err := runCapture(t, args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one naming %q", tc.args, err, tc.want)
		}
		if _, serr := os.Stat(out); stdout != "" || serr == nil {
			t.Errorf("%v: failed run printed %q or wrote %s", tc.args, stdout, out)
		}
	}
}

// TestSelectExitStatus runs piopt's main in a child process: a refused
// flag exits 1 with the message on stderr and nothing on stdout.
func TestSelectExitStatus(t *testing.T) {
	if args := os.Getenv("PIOPT_SELECT_MAIN"); args != "" {
		os.Args = append([]string{"piopt"}, strings.Split(args, "\x1f")...)
		main()
		os.Exit(0)
	}
	dir, common := letorCommand(t, opeLETOR)
	log := filepath.Join(dir, "x.log")
	if err := runPiopt(t, append([]string{"simulate", "--slots", "3", "--logging", "uniform", "--samples", "100", "--out", log}, common...)...); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"select", "--logs", log, "--models", "feature:1", "--estimator", "onpolicy"}, common...)
	cmd := exec.Command(os.Args[0], "-test.run=^TestSelectExitStatus$")
	// GOMP_SPINCOUNT set: main does not re-execute itself (LimitOpenMPSpin)
	// with the arguments it was given.
	cmd.Env = append(os.Environ(), "GOMP_SPINCOUNT=10000", "PIOPT_SELECT_MAIN="+strings.Join(args, "\x1f"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want status 1; stderr %s", err, stderr.String())
	}
	if want := "piopt: --estimator \"onpolicy\": want pi, wpi, ips, wips\n"; stderr.String() != want || stdout.Len() != 0 {
		t.Errorf("stderr %q (want %q), stdout %q", stderr.String(), want, stdout.String())
	}
}
