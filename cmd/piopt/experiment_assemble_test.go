//go:build cgo

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// experiment --assemble-train runs a fold without a training file on the
// one it assembles (LETOR's train.txt, byte for byte), says so on stderr,
// and reuses the file when run again.
func TestExperimentAssembleTrain(t *testing.T) {
	folds := t.TempDir()
	parts := writeRotatedFolds(t, folds, 1, 3, 4, 5)
	out := filepath.Join(t.TempDir(), "e")
	args := []string{"piopt", "experiment", "--folds", folds, "--only-folds", "2", "--assemble-train", "--out", out,
		"--samples", "2000", "--metrics", "ndcg", "--trees", "3", "--leaves", "4", "--threads", "1", "--no-cache"}
	for run, verb := range []string{"assembled train from", "reused train assembled from"} {
		app := newApp()
		var stdout, stderr bytes.Buffer
		app.Writer, app.ErrWriter = &stdout, &stderr
		if err := app.RunContext(context.Background(), args); err != nil {
			t.Fatalf("run %d: %v\n%s", run+1, err, stderr.String())
		}
		paths, _ := filepath.Glob(filepath.Join(out, "fold2", "train-assembled-*.txt"))
		if len(paths) != 1 {
			t.Fatalf("run %d: assembled files %v", run+1, paths)
		}
		want := "fold 2: no train file; " + verb + " Fold3,Fold4,Fold5 test files (Fold1's is this fold's validation set, left out) → " + paths[0] + "\n"
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("run %d: stderr lacks %q:\n%s", run+1, want, stderr.String())
		}
		// Fold2 trains on parts 2, 3, 4 (0-based 1..3).
		if b := mustRead(t, paths[0]); string(b) != parts[1]+parts[2]+parts[3] {
			t.Errorf("run %d: assembled train is not fold 2's LETOR train", run+1)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "summary.json")); err != nil {
		t.Error(err)
	}
}
