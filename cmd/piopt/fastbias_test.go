package main

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestFastPathBiasCLI: a peaked Plackett–Luce logger (τ = 0.1, m = 20
// documents whose feature 4 steps by 0.2, ℓ = 3) and a target of its three
// least likely documents (feature 5 reverses feature 4). Keeping Γ's full
// rank there gave PI −0.987 against an on-policy 0.478 with coverage
// complete (the moments' rounding, magnified by weights of 1e16, biased
// it); now the target gets the eigenvalue cut-off and the JSON's coverage
// reports the shortfall with a bound that contains the bias. The logger's
// own ranking keeps the fast path: coverage complete.
func TestFastPathBiasCLI(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for q := range 2 {
		for a := range 20 {
			fmt.Fprintf(&b, "%d qid:%d 1:%d 2:0.5 3:0.5 4:%.2f 5:%.2f\n", (a+q)%3, q+1, a, 2-0.2*float64(a), 0.2*float64(a))
		}
	}
	data := writeText(t, dir, "data.txt", b.String())
	log := filepath.Join(dir, "x.log")
	common := []string{"--data", data, "--no-cache", "--max-label", "2"}
	if err := runPiopt(t, append([]string{"simulate", "--slots", "3", "--metric", "ndcg", "--logging", "pl:0.1",
		"--rank-by", "feature:4", "--samples", "2000", "--seed", "3", "--out", log}, common...)...); err != nil {
		t.Fatalf("simulate: %v", err)
	}
	type cov struct {
		ContextsShort     int     `json:"contexts_short"`
		ShortShare        float64 `json:"impressions_short_share"`
		MaxBiasBound      float64 `json:"max_bias_bound"`
		RankShortContexts int     `json:"rank_short_contexts"`
	}
	type est struct {
		Value    float64 `json:"value"`
		Coverage *cov    `json:"coverage"`
	}
	evaluate := func(target string) map[string]est {
		js := filepath.Join(dir, "e.json")
		if err := runPiopt(t, append([]string{"evaluate", "--logs", log, "--target", target, "--json", js}, common...)...); err != nil {
			t.Fatalf("evaluate --target %s: %v", target, err)
		}
		m := map[string]est{}
		if err := json.Unmarshal(mustRead(t, js), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	far := evaluate("feature:5")
	pi, on := far["pi"], far["onpolicy"]
	c := pi.Coverage
	if c == nil || c.ContextsShort != 2 || c.ShortShare != 1 || c.RankShortContexts != 2 {
		t.Fatalf("least likely documents: coverage %+v, want both contexts short by the cut-off", c)
	}
	// The bias of E[PI] is at most |V − E[PI]| ≤ 1 here (the cut-off's
	// E[PI] ≈ 0, V = 0.478); the estimate's own deviation is far smaller
	// than the bound.
	if bias := math.Abs(on.Value - pi.Value); !(c.MaxBiasBound >= bias) || on.Value < 0.4 {
		t.Errorf("max_bias_bound %.4g, |on-policy − PI| = |%.4g − %.4g|", c.MaxBiasBound, on.Value, pi.Value)
	}
	if own := evaluate("feature:4")["pi"].Coverage; own == nil || own.ContextsShort != 0 || own.RankShortContexts != 0 {
		t.Errorf("the logger's ranking: coverage %+v, want complete at full rank", own)
	}
}
