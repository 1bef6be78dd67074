package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// writeRotatedFolds writes five parts of distinct queries and, as LETOR's
// 5-fold rotation does, FoldK/vali.txt = part K+3 and FoldK/test.txt =
// part K+4 (mod 5), with FoldK/train.txt = parts K, K+1, K+2 only for the
// folds in withTrain. It returns the parts' texts.
func writeRotatedFolds(t *testing.T, dir string, withTrain ...int) []string {
	t.Helper()
	parts := make([]string, 5)
	for s := range parts {
		p := writeLETOR(t, t.TempDir(), letorSpec{file: "S.txt", seed: uint64(10 + s), queries: 6, minDocs: 3, maxDocs: 6, qid0: 100 * (s + 1)})
		parts[s] = string(mustRead(t, p))
	}
	for k := 1; k <= 5; k++ {
		fold := filepath.Join(dir, fmt.Sprintf("Fold%d", k))
		if err := os.MkdirAll(fold, 0o755); err != nil {
			t.Fatal(err)
		}
		part := func(i int) string { return parts[(k-1+i)%5] }
		writeText(t, fold, "vali.txt", part(3))
		writeText(t, fold, "test.txt", part(4))
		for _, w := range withTrain {
			if w == k {
				writeText(t, fold, "train.txt", part(0)+part(1)+part(2))
			}
		}
	}
	return parts
}

// Without --assemble-train a fold without a training file is refused,
// naming the flag; with it, a bad flag is still refused before anything is
// assembled. Neither run makes the output folder.
func TestExperimentFoldWithoutTrain(t *testing.T) {
	folds := t.TempDir()
	writeRotatedFolds(t, folds, 1, 3, 4, 5)
	out := filepath.Join(t.TempDir(), "e")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--folds: " + filepath.Join(folds, "Fold2") + " has no train.txt (nor trainingset.txt; each may be .txt.gz); --assemble-train builds it from the other folds' test files"},
		{[]string{"--assemble-train", "--samples", "0"}, "--samples 0: must be ≥ 1"},
		{[]string{"--assemble-train", "--metrics", "map"}, "--metrics"},
	} {
		args := append([]string{"experiment", "--folds", folds, "--out", out, "--no-cache"}, tc.args...)
		_, err := runCapture(t, args...)
		if err == nil || len(err.Error()) < len(tc.want) || err.Error()[:len(tc.want)] != tc.want {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v: output folder made", tc.args)
		}
	}
}
