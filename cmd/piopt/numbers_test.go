package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
)

// TestModelFeatureCount: predict and rank refuse a model trained on another
// feature count, as evaluate does, and write nothing; --features pads.
func TestModelFeatureCount(t *testing.T) {
	dir := t.TempDir()
	three := writeText(t, dir, "three.txt", "2 qid:1 1:1 2:0 3:5\n0 qid:1 1:0 3:1\n1 qid:2 2:3\n")
	five := writeText(t, dir, "five.txt", "2 qid:1 1:1 5:1\n0 qid:1 1:0\n")
	out := filepath.Join(dir, "out")
	for _, cmd := range []string{"predict", "rank"} {
		for file, n := range map[string]int{three: 3, five: 5} {
			err := runPiopt(t, cmd, "--data", file, "--model", fixtureModel, "--out", out, "--no-cache")
			want := "model " + fixtureModel + " was trained on 4 features but " + file + " has " + string(rune('0'+n)) + " (read it with --features 4)"
			if err == nil || err.Error() != want {
				t.Errorf("%s %s:\n got %v\nwant %s", cmd, file, err, want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Fatalf("%s wrote %s", cmd, out)
			}
		}
		if err := runPiopt(t, cmd, "--data", three, "--model", fixtureModel, "--out", out, "--no-cache", "--features", "4"); err != nil {
			t.Errorf("%s --features 4: %v", cmd, err)
		}
		os.Remove(out)
	}
}

// TestMaxRelChecked: --maxrel below the data's highest grade, negative or
// above 255 is refused before anything is written.
func TestMaxRelChecked(t *testing.T) {
	dir := t.TempDir()
	file := writeText(t, dir, "g2.txt", "2 qid:1 1:1 2:0 3:5 4:1\n0 qid:1 1:0 3:1\n1 qid:2 2:3 4:1\n")
	out := filepath.Join(dir, "out")
	for maxrel, want := range map[string]string{
		"1":   "--maxrel 1 is below the data's highest grade 2",
		"-3":  "--maxrel -3 is not a non-negative integer",
		"256": "--maxrel 256 is above 255, the highest grade a file can hold",
	} {
		err := runPiopt(t, "rank", "--data", file, "--model", fixtureModel, "--out", out, "--no-cache", "--maxrel", maxrel)
		if err == nil || err.Error() != want {
			t.Errorf("--maxrel %s:\n got %v\nwant %s", maxrel, err, want)
		}
		err = runPiopt(t, "simulate", "--data", file, "--slots", "2", "--metric", "err", "--logging", "uniform",
			"--samples", "10", "--out", out, "--no-cache", "--maxrel", maxrel)
		if err == nil || err.Error() != want {
			t.Errorf("simulate --maxrel %s:\n got %v\nwant %s", maxrel, err, want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("--maxrel %s wrote %s", maxrel, out)
		}
	}
	if err := runPiopt(t, "rank", "--data", file, "--model", fixtureModel, "--out", out, "--no-cache", "--maxrel", "2"); err != nil {
		t.Errorf("--maxrel 2: %v", err)
	}
}

// TestFeaturesMemoryCheck: --features asking for more memory than there is
// is a clear error, not a runtime abort.
func TestFeaturesMemoryCheck(t *testing.T) {
	avail, ok := data.AvailableMemory()
	// Rows of 2^20 float32s, more than the available memory and than the
	// 64 MiB that the loader always assumes available.
	docs := max(avail/(4<<20)+1, 17)
	if !ok || docs > 1<<20 {
		t.Skipf("available memory unknown or too large (%d, %v)", avail, ok)
	}
	dir := t.TempDir()
	file := writeText(t, dir, "tiny.txt", strings.Repeat("1 qid:1 1:0.5 3:1\n", int(docs)))
	err := runPiopt(t, "predict", "--data", file, "--model", fixtureModel, "--out", filepath.Join(dir, "out"), "--no-cache", "--features", "1048576")
	if err == nil || !strings.HasPrefix(err.Error(), file+": --features 1048576 makes the dense feature matrix ") ||
		!strings.Contains(err.Error(), "of memory available; at most ") {
		t.Errorf("got %v", err)
	}
	err = runPiopt(t, "stats", "--no-cache", "--features", "1048577", file)
	if want := "--features 1048577 outside 0..1048576"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %s", err, want)
	}
}
