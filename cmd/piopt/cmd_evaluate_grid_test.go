package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piopt/piopt/trainer"
)

// TestEvaluateGridSynth runs a restricted grid (ndcg, (10, 5), the tree
// logging model and the lasso target: 3 conditions) on a small synth
// dataset with the paper's fitted rank sources, then again: the rerun
// loads every condition, says so, and writes the same grid.json.
func TestEvaluateGridSynth(t *testing.T) {
	if !trainer.Available {
		t.Skip(trainer.ErrNoCgo)
	}
	dir := t.TempDir()
	t.Setenv("PIOPT_CACHE", t.TempDir())
	if err := runPiopt(t, "synth", "--out", filepath.Join(dir, "folds"), "--queries", "50"); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "grid")
	args := []string{"evaluate-grid", "--data", filepath.Join(dir, "folds", "S1.txt"), "--out", out,
		"--metrics", "ndcg", "--spaces", "10x5", "--logging-models", "tree:url-side", "--targets", "lasso:body-side",
		"--estimators", "pi,wpi,dr,dm,onpolicy", "--samples", "1000", "--runs", "2", "--aggregate-at", "1000", "--threads", "1"}
	run := func() (string, []byte) {
		app := newApp()
		var stdout, stderr bytes.Buffer
		app.Writer, app.ErrWriter = &stdout, &stderr
		if err := app.RunContext(context.Background(), append([]string{"piopt"}, args...)); err != nil {
			t.Fatal(err)
		}
		return stderr.String(), mustRead(t, filepath.Join(out, "grid.json"))
	}
	log1, first := run()
	var g struct {
		CandidatesBy string `json:"candidates_by"`
		Conditions   []struct {
			Name   string `json:"name"`
			RankBy string `json:"rank_by"`
			Target string `json:"target"`
		} `json:"conditions"`
		Aggregates []struct {
			Normalized map[string][]*float64 `json:"normalized"`
		} `json:"aggregates"`
	}
	if err := json.Unmarshal(first, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Conditions) != 3 || g.CandidatesBy != "tree:url-side@6" || g.Conditions[1].RankBy != "tree:url-side@6" ||
		g.Conditions[1].Target != "lasso:body-side@0.01" {
		t.Fatalf("grid.json: %+v", g)
	}
	if len(g.Aggregates) != 1 || len(g.Aggregates[0].Normalized["wpi"]) != 3 || len(g.Aggregates[0].Normalized["dr"]) != 3 ||
		g.Aggregates[0].Normalized["dr"][0] == nil {
		t.Errorf("aggregates: %+v", g.Aggregates)
	}
	if svg := mustRead(t, filepath.Join(out, "aggregate-1000.svg")); !bytes.HasPrefix(svg, []byte("<svg xmlns=")) || !bytes.Contains(svg, []byte(">dr<")) {
		t.Errorf("aggregate-1000.svg: %.200s", svg)
	}
	if strings.Contains(log1, "loaded") {
		t.Errorf("first run loaded conditions:\n%s", log1)
	}
	log2, again := run()
	if n := strings.Count(log2, "loaded, finished earlier with the same settings"); n != 3 {
		t.Errorf("rerun loaded %d of 3 conditions:\n%s", n, log2)
	}
	if !bytes.Equal(first, again) {
		t.Error("the rerun wrote another grid.json")
	}
}
