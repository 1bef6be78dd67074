//go:build cgo

package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scrambleLabels rewrites a LETOR file with its grades shuffled across
// documents (features, qids and comments unchanged).
func scrambleLabels(t *testing.T, src, dst string, seed uint64) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(string(mustRead(t, src)), "\n"), "\n")
	labels := make([]string, len(lines))
	for i, l := range lines {
		labels[i], _, _ = strings.Cut(l, " ")
	}
	rand.New(rand.NewPCG(seed, 1)).Shuffle(len(labels), func(i, j int) { labels[i], labels[j] = labels[j], labels[i] })
	var b strings.Builder
	changed := false
	for i, l := range lines {
		old, rest, _ := strings.Cut(l, " ")
		changed = changed || old != labels[i]
		b.WriteString(labels[i] + " " + rest + "\n")
	}
	if !changed {
		t.Fatal("scrambling changed no label")
	}
	if err := os.WriteFile(dst, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSelectByValueReadsNoLabel: PI-OPT selected by value on a validation
// log is the same model, byte for byte, when the validation and training
// labels are scrambled after the logs were simulated and imputed; the
// validation loss (--select-by rmse) reads no label either, but the
// rounds it keeps differ from value's.
func TestSelectByValueReadsNoLabel(t *testing.T) {
	dir := t.TempDir()
	train, _ := trainFixture(t, dir, "train", 1)
	vali, _ := trainFixture(t, dir, "vali", 2)
	for _, f := range []struct{ data, out string }{{train, "train.t"}, {vali, "vali.t"}} {
		if err := runPiopt(t, "impute", "--data", f.data, "--no-cache", "--samples", "20000", "--slots", "3",
			"--logging", "uniform", "--metric", "ndcg", "--seed", "3", "--out", filepath.Join(dir, f.out)); err != nil {
			t.Fatal(err)
		}
	}
	scrambleLabels(t, train, filepath.Join(dir, "train-s.txt"), 5)
	scrambleLabels(t, vali, filepath.Join(dir, "vali-s.txt"), 6)
	run := func(name, trainData, valiData, by string) ([]byte, map[string]any) {
		out := filepath.Join(dir, name+".model")
		js := filepath.Join(dir, name+".json")
		if err := runPiopt(t, "train", "--data", trainData, "--targets", filepath.Join(dir, "train.t"),
			"--valid-data", valiData, "--valid-targets", filepath.Join(dir, "vali.t"), "--no-cache",
			"--select-by", by, "--base-score", "0.5", "--trees", "60", "--leaves", "7", "--early-stopping", "10",
			"--out", out, "--json", js); err != nil {
			t.Fatal(err)
		}
		var rep map[string]any
		if err := json.Unmarshal(mustRead(t, js), &rep); err != nil {
			t.Fatal(err)
		}
		return mustRead(t, out), rep
	}
	a, ra := run("a", train, vali, "value")
	b, _ := run("b", filepath.Join(dir, "train-s.txt"), filepath.Join(dir, "vali-s.txt"), "value")
	if !bytes.Equal(a, b) {
		t.Fatal("scrambled labels changed the model selected by value")
	}
	if ra["valid_metric"] != "pi-ndcg@3" || ra["train_metric"] != "rmse" {
		t.Errorf("json metrics %v, %v", ra["valid_metric"], ra["train_metric"])
	}
	rounds := ra["rounds"].([]any)
	best := int(ra["best_round"].(float64))
	if trees := int(ra["trees"].(float64)); trees != best || len(rounds) != int(ra["trained"].(float64)) {
		t.Errorf("trees %d, best round %d, %d rounds of %v trained", trees, best, len(rounds), ra["trained"])
	}
	for i, r := range rounds {
		r := r.(map[string]any)
		v, lo, hi := r["valid"].(float64), r["lo"].(float64), r["hi"].(float64)
		if !(lo < v && v < hi) || v > ra["best_valid"].(float64) {
			t.Errorf("round %d: %v [%v, %v], best %v", i+1, v, lo, hi, ra["best_valid"])
		}
	}
	// Value selection needs PI-OPT validation targets.
	if err := runPiopt(t, "train", "--data", train, "--targets", filepath.Join(dir, "train.t"), "--no-cache",
		"--select-by", "value", "--out", filepath.Join(dir, "c.model")); err == nil || !strings.Contains(err.Error(), "--select-by value") {
		t.Errorf("value without validation: %v", err)
	}
}
