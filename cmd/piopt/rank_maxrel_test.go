package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeGraded writes a LETOR file of queries of 2..6 docs with 4 integer
// features whose grades are 0..top, top reached at least once.
func writeGraded(t *testing.T, path string, seed uint64, queries, top int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	var b strings.Builder
	for q := range queries {
		for d := range 2 + rng.IntN(5) {
			g := rng.IntN(top + 1)
			if q == 0 && d == 0 {
				g = top
			}
			fmt.Fprintf(&b, "%d qid:%d", g, int(seed)*100+q)
			for f := 1; f <= 4; f++ {
				fmt.Fprintf(&b, " %d:%d", f, rng.IntN(10))
			}
			b.WriteString("\n")
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rankErrOut runs rank and returns its stderr, the maxrel its --json
// summary records and its per-query metrics.
func rankErrOut(t *testing.T, data string, extra ...string) (stderr string, maxrel int, perQuery string) {
	t.Helper()
	dir := t.TempDir()
	js, pq := filepath.Join(dir, "summary.json"), filepath.Join(dir, "perquery.tsv")
	app := newApp()
	var out, errs bytes.Buffer
	app.Writer, app.ErrWriter = &out, &errs
	args := append([]string{"piopt", "rank", "--data", data, "--model", fixtureModel, "--json", js, "--per-query", pq,
		"--no-cache", "--seed", "3"}, extra...)
	if err := app.RunContext(context.Background(), args); err != nil {
		t.Fatalf("rank %v: %v", extra, err)
	}
	var sum struct {
		Conventions struct {
			MaxRel int `json:"err-maxrel"`
		} `json:"conventions"`
	}
	if err := json.Unmarshal(mustRead(t, js), &sum); err != nil {
		t.Fatal(err)
	}
	return errs.String(), sum.Conventions.MaxRel, string(mustRead(t, pq))
}

// TestRankMaxRelOfFolds: rank on a file of a fold takes the maxrel that
// experiment settles for the whole dataset (the highest grade of every
// fold's train and test files), says so on stderr and records it in its
// JSON; --maxrel overrides it, and a file outside a fold layout keeps its
// own highest grade.
func TestRankMaxRelOfFolds(t *testing.T) {
	root := filepath.Join(t.TempDir(), "letor")
	for k, tops := range [][3]int{{1, 3, 1}, {2, 1, 0}} { // train, vali, test
		for i, name := range []string{"train", "vali", "test"} {
			writeGraded(t, filepath.Join(root, fmt.Sprintf("Fold%d", k+1), name+".txt"), uint64(10*k+i+1), 8, tops[i])
		}
	}
	test := filepath.Join(root, "Fold1", "test.txt")
	// The same file outside a fold layout, with every document's position.
	alone := filepath.Join(t.TempDir(), "test.txt")
	if err := os.WriteFile(alone, mustRead(t, test), 0o644); err != nil {
		t.Fatal(err)
	}

	stderr, maxrel, pqFolds := rankErrOut(t, test)
	want := "maxrel 2: highest grade of the train and test files of the 2 folds under " + root + ", as experiment takes it (--maxrel to override)\n"
	if maxrel != 2 || stderr != want {
		t.Errorf("rank on Fold1/test.txt: maxrel %d, stderr\n%q\nwant 2 and\n%q", maxrel, stderr, want)
	}
	stderr, maxrel, pqAlone := rankErrOut(t, alone)
	if maxrel != 1 || stderr != "" {
		t.Errorf("rank on a file outside folds: maxrel %d, stderr %q; want 1 and nothing", maxrel, stderr)
	}
	if pqAlone == pqFolds {
		t.Error("maxrel 1 and 2 give the same per-query ERR")
	}
	// The fold's default is --maxrel 2 on the file alone, ERR for ERR.
	if _, maxrel, pq := rankErrOut(t, alone, "--maxrel", "2"); maxrel != 2 || pq != pqFolds {
		t.Errorf("--maxrel 2 outside folds: maxrel %d, per-query equal %v", maxrel, pq == pqFolds)
	}
	// --maxrel overrides, without a word.
	for _, mr := range []string{"1", "3"} {
		if stderr, maxrel, _ := rankErrOut(t, test, "--maxrel", mr); fmt.Sprint(maxrel) != mr || stderr != "" {
			t.Errorf("--maxrel %s: maxrel %d, stderr %q", mr, maxrel, stderr)
		}
	}
	// A validation file with a higher grade keeps it (ERR stays ≤ 1).
	stderr, maxrel, _ = rankErrOut(t, filepath.Join(root, "Fold1", "vali.txt"))
	if maxrel != 3 || !strings.HasPrefix(stderr, "maxrel 3: highest grade of "+filepath.Join(root, "Fold1", "vali.txt")+", above the 2 of") {
		t.Errorf("rank on Fold1/vali.txt: maxrel %d, stderr %q", maxrel, stderr)
	}
	// A file in a fold folder that is not one of the fold's files is on
	// its own.
	other := filepath.Join(root, "Fold1", "subset.txt")
	if err := os.WriteFile(other, mustRead(t, test), 0o644); err != nil {
		t.Fatal(err)
	}
	if stderr, maxrel, _ := rankErrOut(t, other); maxrel != 1 || stderr != "" {
		t.Errorf("rank on Fold1/subset.txt: maxrel %d, stderr %q", maxrel, stderr)
	}
	// Folders foldK and the other file names experiment takes.
	root2 := filepath.Join(t.TempDir(), "yahoo")
	for k, tops := range [][3]int{{1, 0, 1}, {3, 0, 0}} {
		for i, name := range []string{"trainingset", "valid", "testset"} {
			writeGraded(t, filepath.Join(root2, fmt.Sprintf("fold%d", k+1), name+".txt"), uint64(10*k+i+1), 8, tops[i])
		}
	}
	if stderr, maxrel, _ := rankErrOut(t, filepath.Join(root2, "fold1", "testset.txt")); maxrel != 3 || !strings.HasPrefix(stderr, "maxrel 3: ") {
		t.Errorf("rank on fold1/testset.txt: maxrel %d, stderr %q", maxrel, stderr)
	}
	// A grade above --max-label in another fold stops rank, as it would
	// stop experiment, unless --maxrel is given.
	bad := filepath.Join(root, "Fold2", "train.txt")
	writeGraded(t, bad, 21, 8, 5)
	err := runPiopt(t, "rank", "--data", test, "--model", fixtureModel, "--no-cache")
	if err == nil || !strings.Contains(err.Error(), "(--maxrel to give one): "+bad+":") || !strings.Contains(err.Error(), "outside 0..4 (--max-label)") {
		t.Errorf("bad grade in Fold2/train.txt: %v", err)
	}
	if _, maxrel, _ := rankErrOut(t, test, "--maxrel", "2"); maxrel != 2 {
		t.Errorf("bad grade in Fold2/train.txt, --maxrel 2: maxrel %d", maxrel)
	}
}
