package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
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
