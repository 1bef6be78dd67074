package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Issue 30, class 5: a flag given twice took its last value without a
// word; it is refused, naming the flag and both values. List flags
// (urfave/cli's slices) are meant to repeat and still do.
func TestLesser_RepeatedFlag(t *testing.T) {
	dir := t.TempDir()
	none := filepath.Join(dir, "none")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--seed", "1", "--data", none, "--seed", "2", "--slots", "3", "--out", none + ".log"},
			`--seed given twice ("1" and "2")`},
		{[]string{"stats", "--no-cache", "--max-label=2", "--max-label", "4", none}, `--max-label given twice ("2" and "4")`},
		{[]string{"train", "--sup", "--sup", "--data", none, "--out", none + ".model"}, `--sup given twice ("true" and "true")`},
	} {
		_, err := runCapture(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", strings.Join(tc.args, " "), err, tc.want)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: the refusal is not one line: %q", strings.Join(tc.args, " "), err)
		}
	}
	// A list flag given twice adds to its list: the run gets past the flags
	// and fails on the missing data instead.
	_, err := runCapture(t, "evaluate-grid", "--metrics", "ndcg", "--metrics", "err", "--data", none, "--out", filepath.Join(dir, "g"))
	if err == nil || strings.Contains(err.Error(), "given twice") {
		t.Errorf("evaluate-grid --metrics twice: got %v, want the missing data's error", err)
	}
}
