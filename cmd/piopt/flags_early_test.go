package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Numeric flags are refused at start, naming the flag: the data file does
// not exist, so an error about it would mean the work had started.
func TestNumericFlagsRefusedBeforeWork(t *testing.T) {
	none := filepath.Join(t.TempDir(), "none.txt")
	folds := t.TempDir()
	fold1 := filepath.Join(folds, "Fold1")
	if err := os.Mkdir(fold1, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"train.txt", "vali.txt", "test.txt"} {
		writeText(t, fold1, f, "0 qid:1 1:1\n")
	}
	ev := []string{"evaluate", "--data", none, "--logs", none, "--target", "feature:1"}
	sw := []string{"evaluate-sweep", "--data", none, "--target", "feature:1"}
	ex := []string{"experiment", "--folds", folds, "--out", filepath.Join(t.TempDir(), "e")}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(ev, "--dm-l1", "-1"), "--dm-l1 -1: must be a finite number ≥ 0"},
		{append(ev, "--dm-depth", "0"), "--dm-depth 0: must be ≥ 1"},
		{append(ev, "--threads", "-1"), "--threads -1: must be ≥ 0"},
		{append(ev, "--slots", "-1"), "--slots -1: must be in 1..255"},
		{append(ev, "--candidates", "-1"), "--candidates -1: must be ≥ 0"},
		{append(ev, "--logging", "pa:x"), "--logging: "},
		{[]string{"impute", "--data", none, "--logs", none, "--slots", "0", "--out", none + ".out"}, "--slots 0: must be in 1..255"},
		{[]string{"impute", "--data", none, "--logs", none, "--candidates", "-2", "--out", none + ".out"}, "--candidates -2: must be ≥ 0"},
		{append(sw, "--min-samples", "2000", "--samples", "1000"), "--min-samples 2000: must lie in 1..--samples 1000"},
		{append(sw, "--points-per-decade", "0"), "--points-per-decade 0: must be ≥ 1"},
		{append(sw, "--dm-max-train", "-1"), "--dm-max-train -1: must be ≥ 0"},
		{append(sw, "--dm-depth", "0"), "--dm-depth 0: must be ≥ 1"},
		{append(sw, "--metric", "bogus"), "--metric: "},
		{[]string{"simulate", "--data", none, "--slots", "3", "--logging", "uniform", "--samples", "5", "--metric", "bogus", "--out", none + ".out"}, "--metric: "},
		{[]string{"impute", "--data", none, "--samples", "5", "--slots", "3", "--logging", "uniform", "--metric", "bogus", "--out", none + ".out"}, "--metric: "},
		{[]string{"rank", "--data", none, "--model", none, "--threads", "-3", "--out", none + ".run"}, "--threads -3: must be ≥ 0 (0: all cores)"},
		{[]string{"predict", "--data", none, "--model", none, "--threads", "-1", "--out", none + ".out"}, "--threads -1: must be ≥ 0 (0: all cores)"},
		{[]string{"synth", "--threads", "-1", "--out", none + ".d"}, "--threads -1: must be ≥ 0 (0: all cores)"},
		{[]string{"predict", "--data", none, "--model", none, "--out", ""}, "--out: empty file name"},
		{append(ex, "--valid-samples", "-1"), "--valid-samples -1: must be ≥ 1"},
		// --random-samples (unused since random ERR became exact) is gone.
		{append(ex, "--random-samples", "1000"), "unknown flag --random-samples"},
		{[]string{"rank", "--data", none, "--model", none, "--random-samples", "1000"}, "unknown flag --random-samples"},
		{append(ex, "--samples", "0"), "--samples 0: must be ≥ 1"},
		{append(ex, "--only-folds", "1,1"), `--only-folds "1,1": fold 1 given twice`},
	} {
		_, err := runCapture(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(folds, "e")); err == nil {
		t.Error("experiment created its output folder")
	}
}
