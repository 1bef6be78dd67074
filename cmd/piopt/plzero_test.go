package main

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestPLUnderflowCLI: a Plackett–Luce logger whose scores are far apart
// for τ (feature 4 spans 1000, τ = 0.5) used to fail impute and evaluate
// with "class 1 has 1 candidates of weight 0". It logs the top 3 by
// feature 4 with probability 1 − 1e-300: the same target's PI estimate is
// the on-policy value, and a target that shows other candidates gets a
// coverage shortfall.
func TestPLUnderflowCLI(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for q := range 4 {
		for a := range 6 {
			fmt.Fprintf(&b, "%d qid:%d 1:%d 2:0.5 3:0.5 4:%d\n", (a+q)%3, q+1, (a*5+q)%6, 1000-200*a)
		}
	}
	data := writeText(t, dir, "data.txt", b.String())
	log := filepath.Join(dir, "x.log")
	common := []string{"--data", data, "--no-cache", "--max-label", "2"}
	if err := runPiopt(t, append([]string{"simulate", "--slots", "3", "--metric", "ndcg", "--logging", "pl:0.5",
		"--rank-by", "feature:4", "--samples", "400", "--seed", "3", "--out", log}, common...)...); err != nil {
		t.Fatalf("simulate: %v", err)
	}
	if err := runPiopt(t, append([]string{"impute", "--logs", log, "--out", filepath.Join(dir, "x.tgt")}, common...)...); err != nil {
		t.Fatalf("impute: %v", err)
	}
	type est struct {
		Value    float64 `json:"value"`
		Coverage *struct {
			ContextsShort int `json:"contexts_short"`
		} `json:"coverage"`
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
	same := evaluate("feature:4")
	pi, on := same["pi"], same["onpolicy"]
	if on.Value == 0 {
		t.Fatalf("no on-policy value in %+v", same)
	}
	if math.Abs(pi.Value-on.Value) > 1e-9 {
		t.Errorf("target = logger: PI %.12g, on-policy %.12g", pi.Value, on.Value)
	}
	if pi.Coverage == nil || pi.Coverage.ContextsShort != 0 {
		t.Errorf("target = logger: coverage %+v, want none short", pi.Coverage)
	}
	other := evaluate("feature:1")["pi"]
	if other.Coverage == nil || other.Coverage.ContextsShort == 0 {
		t.Errorf("target off the logged slates: coverage %+v, want contexts_short > 0", other.Coverage)
	}
}
