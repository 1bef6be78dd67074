package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/ranker"
)

// fixtureModel is a PI-OPT model of 4 features and 3 slots written by
// XGBoost 1.7.4 (see ranker/testdata).
var fixtureModel = filepath.Join("..", "..", "ranker", "testdata", "xgb174-pi-opt.model")

// rankLETOR is a test fold of 12 queries of 1..9 docs, some shorter than
// the model's 3 slots, with integer features.
var rankLETOR = letorSpec{file: "test.txt", seed: 8, queries: 12, minDocs: 1, maxDocs: 9, qid0: 700, intFeatures: true}

func TestPredictCommand(t *testing.T) {
	dir := t.TempDir()
	d := writeLETOR(t, dir, rankLETOR)
	out := filepath.Join(dir, "scores.tsv")
	if err := runPiopt(t, "predict", "--data", d, "--model", fixtureModel, "--out", out, "--no-cache", "--max-label", "2"); err != nil {
		t.Fatal(err)
	}
	ds, err := data.Load(d, data.ReadOptions{MaxLabel: 2, NoCache: true, Features: 4})
	if err != nil {
		t.Fatal(err)
	}
	m, err := ranker.LoadModel(fixtureModel)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := m.Score(context.Background(), ds, ranker.ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for q := range ds.NumQueries() {
		lo, hi := ds.Query(q)
		for a := range hi - lo {
			for j := range min(3, hi-lo) {
				fmt.Fprintf(&want, "%s\t%d\t%d\t%s\n", ds.QIDs[q], a, j+1, strconv.FormatFloat(sc.Values[(lo+a)*3+j], 'g', -1, 64))
			}
		}
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want.String() {
		t.Errorf("predict output:\n%s\nwant:\n%s", got, want.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("left-over files: %v", entries)
	}
}

func TestRankCommand(t *testing.T) {
	dir := t.TempDir()
	d := writeLETOR(t, dir, rankLETOR)
	run, js, pq := filepath.Join(dir, "test.run"), filepath.Join(dir, "summary.json"), filepath.Join(dir, "perquery.tsv")
	args := []string{"rank", "--data", d, "--model", fixtureModel, "--out", run, "--json", js, "--per-query", pq,
		"--no-cache", "--max-label", "2", "--seed", "3"}
	if err := runPiopt(t, args...); err != nil {
		t.Fatal(err)
	}
	first := map[string]string{}
	for _, p := range []string{run, js, pq} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		first[p] = string(b)
	}
	// Run file: one line per slot of each query's slate, ranks 1..ℓ_x.
	ds, err := data.Load(d, data.ReadOptions{MaxLabel: 2, NoCache: true, Features: 4})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(first[run], "\n"), "\n")
	n := 0
	for q := range ds.NumQueries() {
		for j := range min(3, ds.QuerySize(q)) {
			f := strings.Fields(lines[n])
			if len(f) != 6 || f[0] != ds.QIDs[q] || f[1] != "Q0" || f[3] != strconv.Itoa(j+1) || f[5] != "piopt" {
				t.Fatalf("run line %d: %q", n+1, lines[n])
			}
			n++
		}
	}
	if n != len(lines) {
		t.Errorf("%d run lines, want %d", len(lines), n)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(first[js]), &sum); err != nil {
		t.Fatal(err)
	}
	if sum["slots"] != 3.0 || sum["queries"] != 12.0 || sum["ndcg@3"] == nil || sum["err@3_random_stderr"] == nil || sum["greedy_vs_exact"] == nil {
		t.Errorf("summary: %s", first[js])
	}
	if !strings.HasPrefix(first[pq], "qid\tdocs\tndcg@3:pi-opt\tndcg@3:random\terr@3:pi-opt\terr@3:random\n") {
		t.Errorf("per-query: %.80q", first[pq])
	}
	// Same flags, same bytes (one thread this time).
	if err := runPiopt(t, append(args, "--threads", "1")...); err != nil {
		t.Fatal(err)
	}
	for p, want := range first {
		if b, _ := os.ReadFile(p); string(b) != want {
			t.Errorf("%s differs on a second run", p)
		}
	}
	// Exact slates, and errors.
	if err := runPiopt(t, "rank", "--data", d, "--model", fixtureModel, "--slate", "exact", "--no-cache", "--max-label", "2"); err != nil {
		t.Error(err)
	}
	for _, bad := range [][]string{
		{"--slots", "4"}, {"--slate", "best"}, {"--metric", "map"}, {"--sup-model", fixtureModel},
	} {
		a := append([]string{"rank", "--data", d, "--model", fixtureModel, "--no-cache", "--max-label", "2"}, bad...)
		if err := runPiopt(t, a...); err == nil {
			t.Errorf("rank %v: no error", bad)
		}
	}
	// --slots 0 is not "the model's": that is --slots left out.
	err = runPiopt(t, "rank", "--data", d, "--model", fixtureModel, "--no-cache", "--max-label", "2", "--slots", "0")
	if want := "--slots must be ≥ 1, not 0"; err == nil || err.Error() != want {
		t.Errorf("rank --slots 0: %v, want %q", err, want)
	}
}
