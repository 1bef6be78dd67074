//go:build cgo

package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDistributedRecipe runs docs/distributed.md's recipe on loopback:
// simulate a log, impute it as 3 shards (what a job array runs), merge the
// partials into targets identical to one process's, train on them with 3
// workers and XGBoost's tracker, and score with the model rank 0 wrote.
func TestDistributedRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("trains with 3 worker processes")
	}
	needTracker(t)
	t.Setenv(testAsPiopt, "1")
	dir := t.TempDir()
	tr, _ := trainFixtureN(t, dir, "train", 1, 120)
	common := []string{"--data", tr, "--no-cache", "--max-label", "2"}
	log := filepath.Join(dir, "train.log")
	if err := runPiopt(t, append([]string{"simulate", "--slots", "3", "--logging", "uniform", "--samples", "6000", "--seed", "1", "--out", log}, common...)...); err != nil {
		t.Fatal(err)
	}
	imp := append([]string{"impute", "--logs", log}, common...)
	parts := shardRun(t, dir, "train", 3, imp)
	targets, whole := filepath.Join(dir, "train.targets"), filepath.Join(dir, "whole.targets")
	if err := runPiopt(t, append([]string{"merge", "--out", targets}, parts...)...); err != nil {
		t.Fatal(err)
	}
	if err := runPiopt(t, append(imp, "--out", whole)...); err != nil {
		t.Fatal(err)
	}
	if string(mustRead(t, targets)) != string(mustRead(t, whole)) {
		t.Fatal("merged targets differ from one process's")
	}
	model := filepath.Join(dir, "pi.model")
	args := []string{"--data", tr, "--targets", targets, "--workers", "3", "--out", model}
	if err := runTrainCLI(t, args...); err != nil {
		t.Fatal(err)
	}
	scores := filepath.Join(dir, "scores.txt")
	if err := runPiopt(t, "predict", "--no-cache", "--max-label", "2", "--data", tr, "--model", model, "--out", scores); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(mustRead(t, scores)), "\n"); n < 120 {
		t.Fatalf("predict wrote %d lines, want one per document", n)
	}
}
