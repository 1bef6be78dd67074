//go:build cgo

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSelectPIOPTReadsNoLabel ranks a PI-OPT model and two rank sources on
// a log simulated on a validation file: the estimates are evaluate's, bit
// for bit, and the same run after the file's labels are scrambled prints
// and writes the same bytes (while the true value, which reads them,
// changes). The scrambled labels are first refused, because the log's
// header says it was simulated on the file (rewardCheck); the log is then
// read as one another program wrote, without seed=.
func TestSelectPIOPTReadsNoLabel(t *testing.T) {
	dir := t.TempDir()
	train, trainT := trainFixture(t, dir, "train", 1)
	vali, _ := trainFixture(t, dir, "vali", 2)
	model := filepath.Join(dir, "pi.model")
	if err := runTrainCLI(t, "--data", train, "--targets", trainT, "--out", model); err != nil {
		t.Fatal(err)
	}
	common := []string{"--data", vali, "--no-cache", "--max-label", "2"}
	log := filepath.Join(dir, "vali.log")
	if err := runPiopt(t, append([]string{"simulate", "--slots", "3", "--metric", "ndcg", "--logging", "pa:1", "--rank-by", "feature:2",
		"--candidates", "8", "--samples", "20000", "--seed", "4", "--out", log}, common...)...); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "select.json")
	args := append([]string{"select", "--logs", log, "--models", model + ",feature:1,feature:5", "--estimator", "pi", "--json", out}, common...)
	stdout, err := runCapture(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	js := mustRead(t, out)
	sel := readSelectJSON(t, out)
	checkSelectOrder(t, sel)
	checkSelectMatchesEvaluate(t, sel, common, log)
	if sel.Estimator != "pi" || len(sel.Models) != 3 || !strings.Contains(stdout, model) {
		t.Fatalf("selection %+v\n%s", sel, stdout)
	}

	trueValue := func() float64 {
		est := filepath.Join(dir, "onpolicy.json")
		if err := runPiopt(t, append([]string{"evaluate", "--logs", log, "--target", "model:" + model, "--estimators", "onpolicy", "--json", est}, common...)...); err != nil {
			t.Fatal(err)
		}
		var v map[string]estimateJSON
		if err := json.Unmarshal(mustRead(t, est), &v); err != nil {
			t.Fatal(err)
		}
		return v["onpolicy"].Value
	}
	before := trueValue()
	scrambled := filepath.Join(dir, "scrambled.txt")
	scrambleLabels(t, vali, scrambled, 7)
	if err := os.Rename(scrambled, vali); err != nil {
		t.Fatal(err)
	}
	// The log's header says piopt simulated it on vali.txt: its rewards no
	// longer match the scrambled labels, and that is refused. Stripped of
	// seed= (as a log another program wrote), it is read again.
	if _, err := runCapture(t, args...); err == nil || !strings.Contains(err.Error(), "whose labels differ") {
		t.Fatalf("a simulated log read against other labels: %v", err)
	}
	header, rest, _ := bytes.Cut(mustRead(t, log), []byte("\n"))
	header = bytes.Replace(header, []byte(" seed=4"), nil, 1)
	if err := os.WriteFile(log, append(append(header, '\n'), rest...), 0o644); err != nil {
		t.Fatal(err)
	}
	if after := trueValue(); after == before {
		t.Fatalf("scrambling left the true value at %g: the test would not see labels read", after)
	}
	stdout2, err := runCapture(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	if stdout2 != stdout || !bytes.Equal(mustRead(t, out), js) {
		t.Errorf("scrambled labels changed the selection:\n%s\n%s", stdout, stdout2)
	}
}

// TestSelectPIOPTRefused: a PI-OPT model scoring fewer slots than the log's
// slates have, or named as the --json output, is refused before any work.
func TestSelectPIOPTRefused(t *testing.T) {
	dir := t.TempDir()
	train, trainT := trainFixture(t, dir, "train", 1)
	model := filepath.Join(dir, "pi.model")
	if err := runTrainCLI(t, "--data", train, "--targets", trainT, "--trees", "3", "--out", model); err != nil {
		t.Fatal(err)
	}
	common := []string{"--data", train, "--no-cache", "--max-label", "2"}
	log := filepath.Join(dir, "four.log")
	if err := runPiopt(t, append([]string{"simulate", "--slots", "4", "--logging", "uniform", "--samples", "100", "--out", log}, common...)...); err != nil {
		t.Fatal(err)
	}
	saved := mustRead(t, model)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--models", "feature:1,pi=" + model}, "--models pi=" + model + ": the PI-OPT model scores 3 slots, the log's slates have 4"},
		{[]string{"--models", model, "--json", model}, "--json and --models name the same file (" + model + ")"},
	} {
		stdout, err := runCapture(t, append(append([]string{"select", "--logs", log}, common...), tc.args...)...)
		if err == nil || err.Error() != tc.want || stdout != "" {
			t.Errorf("%v: error %v, want %q; printed %q", tc.args, err, tc.want, stdout)
		}
	}
	if !bytes.Equal(mustRead(t, model), saved) {
		t.Error("a refused run changed the model file")
	}
}
