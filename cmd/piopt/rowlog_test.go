package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// withoutFileNames is evaluate's JSON without what names the files and
// the command (setup's logs, policy, logging, target and command), in
// which a log and its twin differ by construction.
func withoutFileNames(t *testing.T, path string) []byte {
	t.Helper()
	var all map[string]map[string]json.RawMessage
	if err := json.Unmarshal(mustRead(t, path), &all); err != nil {
		t.Fatal(err)
	}
	for _, est := range all {
		var setup map[string]json.RawMessage
		if err := json.Unmarshal(est["setup"], &setup); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"logs", "policy", "logging", "target", "command"} {
			delete(setup, k)
		}
		est["setup"], _ = json.Marshal(setup)
	}
	out, _ := json.MarshalIndent(all, "", " ")
	return out
}

// A JSON-lines log with a policy in every row (testdata/targets/log.jsonl,
// the twin of log.txt and policy.txt written by targets.py) and its Parquet
// twin as DuckDB writes it (log.parquet, by duckdb.mjs) give, for
// targets by policy file, scores and run, with and without --data, the
// same JSON as the TSV log to the last bit, the setup's file names aside,
// and so numpy's values.
func TestRowLogTwinOfTSV(t *testing.T) {
	targets := map[string][]string{
		"policy": {"--target-policy", filepath.Join(targetsDir, "tpolicy.txt")},
		"scores": {"--target-scores", filepath.Join(targetsDir, "scores.txt")},
		"run":    {"--target", "run:" + filepath.Join(targetsDir, "run.txt")},
	}
	withData := []string{"--data", filepath.Join(targetsDir, "data.txt"), "--doc-ids", "comment", "--no-cache"}
	for name, flags := range targets {
		for _, data := range [][]string{nil, withData} {
			logs := []string{"log.txt", "log.jsonl", "log.parquet"}
			var outs [3]string
			for i, log := range logs {
				outs[i] = filepath.Join(t.TempDir(), "est.json")
				args := append([]string{"evaluate", "--logs", filepath.Join(targetsDir, log), "--estimators", "pi,wpi,ips,wips", "--json", outs[i]}, flags...)
				if _, err := runCapture(t, append(args, data...)...); err != nil {
					t.Fatalf("%s %s (data %v): %v", log, name, data != nil, err)
				}
			}
			tsv := withoutFileNames(t, outs[0])
			for i := 1; i < len(logs); i++ {
				if rows := withoutFileNames(t, outs[i]); !bytes.Equal(tsv, rows) {
					t.Errorf("%s target, data %v: JSON of %s differs from log.txt's:\n%s\n%s", name, data != nil, logs[i], rows, tsv)
				}
			}
			if !bytes.Contains(tsv, []byte(`"pi"`)) {
				t.Fatalf("no pi estimate in %s", tsv)
			}
		}
	}
}

// Rows that carry their target (tlog.jsonl: each row has its context's
// line of tpolicy.txt) are evaluated with it by default (target row), to
// the bits of --target-policy on the TSV log.
func TestRowLogRowTargets(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	if _, err := runCapture(t, "evaluate", "--logs", filepath.Join(targetsDir, "tlog.jsonl"), "--estimators", "pi,wpi,ips,wips", "--json", a); err != nil {
		t.Fatal(err)
	}
	if s := string(mustRead(t, a)); !strings.Contains(s, `"target": "row"`) || !strings.Contains(s, `"logging": "per row"`) {
		t.Errorf("setup of row targets:\n%s", s)
	}
	if _, err := runCapture(t, "evaluate", "--logs", filepath.Join(targetsDir, "log.txt"), "--target-policy", filepath.Join(targetsDir, "tpolicy.txt"),
		"--estimators", "pi,wpi,ips,wips", "--json", b); err != nil {
		t.Fatal(err)
	}
	if x, y := withoutFileNames(t, a), withoutFileNames(t, b); !bytes.Equal(x, y) {
		t.Errorf("row targets differ from the target policy file:\n%s\n%s", x, y)
	}
	// The Parquet twin (duckdb.mjs) carries the same targets.
	if _, err := runCapture(t, "evaluate", "--logs", filepath.Join(targetsDir, "tlog.parquet"), "--estimators", "pi,wpi,ips,wips", "--json", a); err != nil {
		t.Fatal(err)
	}
	if x, y := withoutFileNames(t, a), withoutFileNames(t, b); !bytes.Equal(x, y) {
		t.Errorf("tlog.parquet's row targets differ from the target policy file:\n%s\n%s", x, y)
	}
	if _, err := runCapture(t, "evaluate", "--logs", filepath.Join(targetsDir, "log.jsonl")); err == nil || !strings.Contains(err.Error(), "no row of the log carries a target") {
		t.Errorf("no target: %v", err)
	}
}

// A row log of many files (a folder of Parquet parts as DuckDB writes them,
// a list or a glob of JSON-lines files) gives the one file's JSON; its
// files are of one format, and an error in a later file names that file.
func TestRowLogParts(t *testing.T) {
	dir := t.TempDir()
	lines := strings.SplitAfter(string(mustRead(t, filepath.Join(targetsDir, "log.jsonl"))), "\n")
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	if err := os.WriteFile(a, []byte(strings.Join(lines[:150], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte(strings.Join(lines[150:], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	evaluate := func(logs string) ([]byte, error) {
		out := filepath.Join(t.TempDir(), "est.json")
		_, err := runCapture(t, "evaluate", "--logs", logs, "--target-scores", filepath.Join(targetsDir, "scores.txt"),
			"--estimators", "pi,wpi,ips,wips", "--json", out)
		if err != nil {
			return nil, err
		}
		return withoutFileNames(t, out), nil
	}
	want, err := evaluate(filepath.Join(targetsDir, "log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, logs := range []string{filepath.Join(targetsDir, "parts"), a + "," + b, filepath.Join(dir, "*.jsonl")} {
		got, err := evaluate(logs)
		if err != nil {
			t.Fatalf("%s: %v", logs, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: JSON differs from log.jsonl's:\n%s\n%s", logs, got, want)
		}
	}
	mixed := a + "," + filepath.Join(targetsDir, "log.txt")
	if _, err := evaluate(mixed); err == nil || !strings.Contains(err.Error(), "log.txt: not a log with a policy per row") {
		t.Errorf("a JSON-lines file then a TSV log: %v", err)
	}
	if err := os.WriteFile(b, []byte(strings.Join(lines[150:152], "")+`{"context": "101@a", "slate": ["D1"], "reward": "x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := evaluate(a + "," + b); err == nil || !strings.HasPrefix(err.Error(), b+":3:") {
		t.Errorf("a bad row in the second file: %v, want it named %s:3", err, b)
	}
}

// impute reads a log with a policy per row as evaluate does: on the
// JSON-lines twin it writes the TSV log's targets to the last bit (one
// unit per context and policy, averaged per query over its contexts;
// testdata/targets has two contexts of query 101), the header's policy=
// aside, which names the file the logging policies came from.
func TestImputeRowLogTwinOfTSV(t *testing.T) {
	dir := t.TempDir()
	var rows [2][]string
	for i, log := range []string{"log.txt", "log.jsonl"} {
		out := filepath.Join(dir, log+".targets")
		_, err := runCapture(t, "impute", "--data", filepath.Join(targetsDir, "data.txt"), "--doc-ids", "comment", "--no-cache",
			"--logs", filepath.Join(targetsDir, log), "--out", out)
		if err != nil {
			t.Fatalf("%s: %v", log, err)
		}
		lines := strings.Split(string(mustRead(t, out)), "\n")
		if want := "policy=" + map[int]string{0: "policy.txt", 1: "log.jsonl"}[i]; !strings.Contains(lines[0], want) {
			t.Errorf("%s: header %q lacks %s", log, lines[0], want)
		}
		rows[i] = lines[1:]
	}
	if len(rows[0]) < 90 || strings.Join(rows[0], "\n") != strings.Join(rows[1], "\n") {
		t.Errorf("targets of log.jsonl differ from log.txt's (%d and %d rows)", len(rows[1]), len(rows[0]))
	}
	if !strings.Contains(rows[0][0], "101\tD1\t1\t") {
		t.Errorf("first row %q, want query 101's D1 at slot 1", rows[0][0])
	}
	if _, err := runCapture(t, "impute", "--data", filepath.Join(targetsDir, "data.txt"), "--doc-ids", "comment", "--no-cache",
		"--logs", filepath.Join(targetsDir, "log.jsonl"), "--logging", "uniform", "--out", filepath.Join(dir, "x")); err == nil ||
		!strings.Contains(err.Error(), "--logging: a log with a policy per row gives the logging policy in its rows") {
		t.Errorf("--logging with a row log: %v", err)
	}
}

// simulate --out X.jsonl writes each impression with its context's logging
// policy inline (what --policy-out writes), documents named by their ids
// (--doc-ids comment) or positions; evaluate on it gives the JSON of the
// TSV log and policy file of the same run and seed (every query logged;
// qids in name order), gzipped or not.
func TestSimulateRowLog(t *testing.T) {
	dir := t.TempDir()
	for _, ids := range [][]string{{"--doc-ids", "comment"}, nil} {
		sim := func(out string) {
			args := append([]string{"simulate", "--data", filepath.Join(targetsDir, "data.txt"), "--no-cache", "--slots", "3", "--logging", "eps:0.2,pl:1",
				"--rank-by", "feature:1", "--samples", "300", "--seed", "7", "--out", filepath.Join(dir, out), "--policy-out", filepath.Join(dir, out+".policy")}, ids...)
			if _, err := runCapture(t, args...); err != nil {
				t.Fatal(err)
			}
		}
		scores := filepath.Join(targetsDir, "scores.txt")
		if ids == nil { // documents named by position: score them by position
			scores = positionScores(t, dir)
		}
		var jsons []string
		for _, out := range []string{"a.log", "a.jsonl", "a.jsonl.gz"} {
			sim(out)
			j := filepath.Join(dir, out+".json")
			if _, err := runCapture(t, "evaluate", "--logs", filepath.Join(dir, out), "--target-scores", scores,
				"--estimators", "pi,wpi,ips,wips", "--json", j); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			jsons = append(jsons, j)
		}
		want := withoutFileNames(t, jsons[0])
		for _, j := range jsons[1:] {
			if got := withoutFileNames(t, j); !bytes.Equal(got, want) {
				t.Errorf("ids %v: %s differs from the TSV log's:\n%s\n%s", ids, j, got, want)
			}
		}
		first := strings.SplitN(string(mustRead(t, filepath.Join(dir, "a.jsonl"))), "\n", 2)[0]
		var row struct {
			Context string
			Slate   []string
			Reward  float64
			Policy  struct {
				Spec       string
				Candidates []string
				Scores     []float64
			}
		}
		if err := json.Unmarshal([]byte(first), &row); err != nil {
			t.Fatal(err)
		}
		policy := string(mustRead(t, filepath.Join(dir, "a.jsonl.policy")))
		var line string
		for _, l := range strings.Split(policy, "\n") {
			if strings.HasPrefix(l, row.Context+"\t") {
				line = l
			}
		}
		var docs []string
		for i, ds := range strings.Split(strings.Split(line, "\t")[2], ",") {
			name, score, _ := strings.Cut(ds, ":")
			docs = append(docs, name)
			if i < len(row.Policy.Scores) && fmt.Sprint(row.Policy.Scores[i]) != fmt.Sprint(mustFloat(t, score)) {
				t.Errorf("score %d: %v, policy file %s", i, row.Policy.Scores[i], score)
			}
		}
		if row.Policy.Spec != "eps:0.2,pl:1" || len(row.Slate) != 3 || strings.Join(row.Policy.Candidates, ",") != strings.Join(docs, ",") ||
			len(row.Policy.Scores) != len(docs) || (ids != nil) != strings.HasPrefix(row.Slate[0], "D") {
			t.Errorf("ids %v: row %s\npolicy line %s", ids, first, line)
		}
	}
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// positionScores writes a scores file naming testdata/targets/data.txt's
// documents by position: score (position·7 mod 10)/10.
func positionScores(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	pos := map[string]int{}
	for _, line := range strings.Split(string(mustRead(t, filepath.Join(targetsDir, "data.txt"))), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		qid := strings.TrimPrefix(f[1], "qid:")
		fmt.Fprintf(&b, "%s\t%d\t%g\n", qid, pos[qid], float64(pos[qid]*7%10)/10)
		pos[qid]++
	}
	p := filepath.Join(dir, "positions.scores")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
