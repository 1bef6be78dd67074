package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
)

func TestSynthAndStatsCommands(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "folds")
	out, err := runCapture(t, "synth", "--out", dir, "--queries", "15", "--seed", "3")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"S1.txt", "S5.txt", "Fold1/train.txt", "Fold5/test.txt"} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, fmt.Sprintf("%s %13d bytes", fmt.Sprintf("%-16s", f), st.Size())) {
			t.Errorf("synth output does not give %s's %d bytes:\n%s", f, st.Size(), out)
		}
	}
	if !strings.Contains(out, "wrote 15 queries") {
		t.Errorf("synth output: %s", out)
	}

	train := filepath.Join(dir, "Fold1", "train.txt")
	ds, err := data.Load(train, data.ReadOptions{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	s := ds.Summary()
	out, err = runCapture(t, "stats", "--json", "--no-cache", train, filepath.Join(dir, "S2.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one JSON object per file, got:\n%s", out)
	}
	var j struct {
		File         string         `json:"file"`
		Queries      int            `json:"queries"`
		Docs         int            `json:"docs"`
		Features     int            `json:"features"`
		Labels       map[string]int `json:"labels"`
		DocsPerQuery struct {
			Min  int     `json:"min"`
			Mean float64 `json:"mean"`
			Max  int     `json:"max"`
		} `json:"docs_per_query"`
		NoRelevant *int `json:"queries_without_relevant"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &j); err != nil {
		t.Fatal(err)
	}
	if j.File != train || j.Queries != 9 || j.Docs != ds.NumDocs() || j.Features != 136 ||
		j.DocsPerQuery.Min != s.MinDocs || j.DocsPerQuery.Max != s.MaxDocs || j.DocsPerQuery.Mean != s.MeanDocs ||
		j.NoRelevant == nil || *j.NoRelevant != s.NoRelevant {
		t.Errorf("stats --json: %s", lines[0])
	}
	total := 0
	for g := 0; g <= 4; g++ {
		n, ok := j.Labels[fmt.Sprint(g)]
		if !ok {
			t.Errorf(`labels has no key "%d": %s`, g, lines[0])
		}
		if g < len(s.Labels) && n != s.Labels[g] {
			t.Errorf("grade %d: %d documents, want %d", g, n, s.Labels[g])
		}
		total += n
	}
	if total != ds.NumDocs() || len(j.Labels) != 5 {
		t.Errorf("labels %v do not sum to %d documents", j.Labels, ds.NumDocs())
	}

	out, err = runCapture(t, "stats", "--no-cache", train)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"queries                   9", "features                  136", fmt.Sprintf("documents                 %d", ds.NumDocs())} {
		if !strings.Contains(out, want) {
			t.Errorf("stats output lacks %q:\n%s", want, out)
		}
	}
}

func TestStatsErrors(t *testing.T) {
	if _, err := runCapture(t, "stats"); err == nil {
		t.Error("stats without files succeeded")
	}
	bad := writeText(t, t.TempDir(), "bad.txt", "1 qid:1 1:0\n7 qid:1 1:0\n")
	_, err := runCapture(t, "stats", "--no-cache", bad)
	if err == nil || !strings.Contains(err.Error(), "bad.txt:2: field 1 (\"7\"): label 7 outside 0..4") {
		t.Errorf("got %v", err)
	}
	if _, err := runCapture(t, "stats", "--no-cache", "--max-label", "7", bad); err != nil {
		t.Errorf("--max-label 7: %v", err)
	}
	if _, err := runCapture(t, "synth", "--out", t.TempDir(), "--queries", "3"); err == nil {
		t.Error("synth with 3 queries succeeded")
	}
}
