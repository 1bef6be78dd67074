package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --candidates-by: simulate records candidates-by= in the log's header;
// impute and evaluate read it from there (a log, its policy file and the
// fused simulation give the same targets), and evaluate-sweep simulates the
// same log.
func TestCandidatesByRoundTrip(t *testing.T) {
	dir, common := letorCommand(t, opeLETOR)
	setup := []string{"--slots", "3", "--logging", "pa:1", "--rank-by", "feature:2", "--candidates", "6", "--candidates-by", "feature:1"}
	// The same log twice: named by its header, and through the policy file
	// --policy-out writes (whose log's header names it).
	log, polLog, pol := filepath.Join(dir, "c.log"), filepath.Join(dir, "p.log"), filepath.Join(dir, "c.policy")
	sim := append(append([]string{"simulate", "--metric", "ndcg", "--samples", "3000", "--seed", "5"}, common...), setup...)
	for _, out := range [][]string{{"--out", log}, {"--out", polLog, "--policy-out", pol}} {
		if err := runPiopt(t, append(sim, out...)...); err != nil {
			t.Fatal(err)
		}
	}
	head, _, _ := strings.Cut(string(mustRead(t, log)), "\n")
	if !strings.Contains(head, " rank-by=feature:2 candidates=6 ") || !strings.HasSuffix(head, " candidates-by=feature:1") {
		t.Fatalf("log header %q lacks candidates-by=feature:1", head)
	}
	// The candidates differ from the top 6 by --rank-by: so does the log.
	plain := filepath.Join(dir, "plain.log")
	if err := runPiopt(t, append(append([]string{"simulate", "--metric", "ndcg", "--samples", "3000", "--seed", "5", "--out", plain}, common...), setup[:8]...)...); err != nil {
		t.Fatal(err)
	}
	if _, body, _ := bytes.Cut(mustRead(t, log), []byte{'\n'}); bytes.Equal(body, targetRows(mustRead(t, plain))) {
		t.Fatal("--candidates-by feature:1 logged the same slates as the top 6 by feature:2")
	}

	fromLog, agreeing, viaPolicy, fused := filepath.Join(dir, "l.t"), filepath.Join(dir, "a.t"), filepath.Join(dir, "p.t"), filepath.Join(dir, "f.t")
	for _, args := range [][]string{
		{"impute", "--logs", log, "--out", fromLog},
		{"impute", "--logs", log, "--candidates-by", "feature:1", "--candidates", "6", "--out", agreeing},
		{"impute", "--logs", polLog, "--out", viaPolicy},
		append([]string{"impute", "--samples", "3000", "--metric", "ndcg", "--seed", "5", "--out", fused}, setup...),
	} {
		if err := runPiopt(t, append(args, common...)...); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	want := mustRead(t, fused)
	if !bytes.Contains(want[:bytes.IndexByte(want, '\n')], []byte(" candidates-by=feature:1")) {
		t.Errorf("fused targets header lacks candidates-by=: %.300s", want)
	}
	if !bytes.Equal(mustRead(t, fromLog), want) || !bytes.Equal(mustRead(t, agreeing), want) {
		t.Error("targets from the log differ from the fused simulation's")
	}
	if !bytes.Equal(targetRows(mustRead(t, viaPolicy)), targetRows(want)) {
		t.Error("targets through the policy file differ from the fused simulation's")
	}

	// evaluate reads the setup from the header; evaluate-sweep's run 1
	// simulates the same log, so their estimates at n = 3000 agree.
	est, sweep := filepath.Join(dir, "est.json"), filepath.Join(dir, "sweep.json")
	if err := runPiopt(t, append([]string{"evaluate", "--logs", log, "--target", "feature:3", "--estimators", "pi,ips",
		"--bootstrap", "0", "--json", est}, common...)...); err != nil {
		t.Fatal(err)
	}
	if err := runPiopt(t, append(append([]string{"evaluate-sweep", "--metric", "ndcg", "--target", "feature:3", "--samples", "3000",
		"--min-samples", "3000", "--runs", "1", "--seed", "5", "--estimators", "pi,ips", "--json", sweep}, common...), setup...)...); err != nil {
		t.Fatal(err)
	}
	var e map[string]struct {
		Value float64
		Setup struct {
			RankBy string `json:"rank_by"`
		}
	}
	var sw struct {
		CandidatesBy string                 `json:"candidates_by"`
		Values       map[string][][]float64 `json:"values"`
	}
	if err := json.Unmarshal(mustRead(t, est), &e); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(mustRead(t, sweep), &sw); err != nil {
		t.Fatal(err)
	}
	if sw.CandidatesBy != "feature:1" {
		t.Errorf("sweep JSON candidates_by %q, want feature:1", sw.CandidatesBy)
	}
	for _, name := range []string{"pi", "ips"} {
		if got := sw.Values[name][0][0]; got != e[name].Value {
			t.Errorf("%s: evaluate %.17g, evaluate-sweep %.17g", name, e[name].Value, got)
		}
	}
}

// --candidates-by needs --candidates (refused before any work), must agree
// with a log's header, and is refused with a policy file.
func TestCandidatesByRefused(t *testing.T) {
	dir, common := letorCommand(t, opeLETOR)
	log, pol, plain := filepath.Join(dir, "c.log"), filepath.Join(dir, "c.policy"), filepath.Join(dir, "plain.log")
	for _, args := range [][]string{
		{"simulate", "--slots", "2", "--logging", "uniform", "--candidates", "5", "--candidates-by", "feature:1",
			"--samples", "200", "--out", log},
		{"simulate", "--slots", "2", "--logging", "uniform", "--candidates", "5", "--candidates-by", "feature:1",
			"--samples", "200", "--out", filepath.Join(dir, "p.log"), "--policy-out", pol},
		{"simulate", "--slots", "2", "--logging", "uniform", "--candidates", "5", "--samples", "200", "--out", plain},
	} {
		if err := runPiopt(t, append(args, common...)...); err != nil {
			t.Fatal(err)
		}
	}
	none := filepath.Join(t.TempDir(), "none.txt") // work would fail on it
	folds := t.TempDir()
	fold1 := filepath.Join(folds, "Fold1")
	if err := os.Mkdir(fold1, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"train.txt", "vali.txt", "test.txt"} {
		writeText(t, fold1, f, "0 qid:1 1:1\n")
	}
	out := filepath.Join(dir, "out")
	noData := []string{"--data", none, "--no-cache"}
	for _, tc := range []struct {
		args []string
		data []string // the common flags, or noData when refused before the data is read
		want string
	}{
		{[]string{"impute", "--logs", log, "--candidates-by", "feature:3", "--out", out}, common,
			"c.log:1: bad header: header candidates-by=feature:1 but --candidates-by feature:3"},
		{[]string{"impute", "--logs", plain, "--candidates-by", "feature:1", "--out", out}, common,
			"header candidates-by= but --candidates-by feature:1"},
		{[]string{"evaluate", "--logs", log, "--target", "feature:3", "--candidates-by", "feature:2"}, common,
			"header candidates-by=feature:1 but --candidates-by feature:2"},
		{[]string{"impute", "--logs", log, "--policy", pol, "--candidates-by", "feature:1", "--out", out}, common,
			"--candidates-by: the log's policy file gives the logging policy; leave --candidates-by out"},
		{[]string{"evaluate", "--logs", log, "--policy", pol, "--target", "feature:3", "--candidates-by", "feature:1"}, common,
			"--candidates-by: the log's policy file gives the logging policy"},
		{[]string{"simulate", "--slots", "2", "--logging", "uniform", "--candidates-by", "feature:1", "--samples", "5", "--out", out}, noData,
			"--candidates-by needs --candidates M"},
		{[]string{"simulate", "--slots", "2", "--logging", "uniform", "--candidates-by", "forest:1", "--candidates", "3", "--samples", "5", "--out", out}, noData,
			"--candidates-by: "},
		{[]string{"impute", "--samples", "5", "--slots", "2", "--logging", "uniform", "--candidates-by", "feature:1", "--out", out}, common,
			"--candidates-by needs --candidates M"},
		{[]string{"evaluate-sweep", "--candidates", "0", "--candidates-by", "feature:1", "--target", "feature:3"}, noData,
			"--candidates-by needs --candidates M"},
	} {
		_, err := runCapture(t, append(tc.args, tc.data...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("output exists after an error")
	}
	if _, err := os.Stat(filepath.Join(folds, "e")); err == nil {
		t.Error("experiment created its output folder")
	}
}
