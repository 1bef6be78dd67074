package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 30, class 5: a flag given twice took its last value without a
// word; it is refused, naming the flag and both values. List flags
// (urfave/cli's slices) are meant to repeat and still do.
func TestLesser_RepeatedFlag(t *testing.T) {
	dir := t.TempDir()
	none := filepath.Join(dir, "none")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--seed", "1", "--data", none, "--seed", "2", "--slots", "3", "--out", none + ".log"},
			`--seed given twice ("1" and "2")`},
		{[]string{"stats", "--no-cache", "--max-label=2", "--max-label", "4", none}, `--max-label given twice ("2" and "4")`},
		{[]string{"train", "--sup", "--sup", "--data", none, "--out", none + ".model"}, `--sup given twice ("true" and "true")`},
	} {
		_, err := runCapture(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", strings.Join(tc.args, " "), err, tc.want)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: the refusal is not one line: %q", strings.Join(tc.args, " "), err)
		}
	}
	// A list flag given twice adds to its list: the run gets past the flags
	// and fails on the missing data instead.
	_, err := runCapture(t, "evaluate-grid", "--metrics", "ndcg", "--metrics", "err", "--data", none, "--out", filepath.Join(dir, "g"))
	if err == nil || strings.Contains(err.Error(), "given twice") {
		t.Errorf("evaluate-grid --metrics twice: got %v, want the missing data's error", err)
	}
}

// Issue 30, class 2: the output-collision check covered the flags' files,
// not those piopt reads or writes by itself. Each command line below
// would overwrite such a file: the policy file a log's header names, the
// data's FILE.query, a run record beside --json, a file under
// evaluate-grid's OUT, a binary-cache entry. Each is refused before any
// work, naming both sides, and the file is left as it was.
func TestInputsOverwritten_ImpliedFiles(t *testing.T) {
	dir, common := letorCommand(t, letorSpec{file: "d.txt", seed: 7, queries: 6, minDocs: 3, maxDocs: 6})
	data := common[1]
	log, pol := filepath.Join(dir, "x.log"), filepath.Join(dir, "base.policy")
	if err := runPiopt(t, append([]string{"simulate", "--slots", "2", "--logging", "pl:0.5", "--rank-by", "feature:1",
		"--samples", "50", "--seed", "3", "--out", log, "--policy-out", pol}, common...)...); err != nil {
		t.Fatal(err)
	}
	query := writeText(t, dir, "d.txt.query", "keep\n")
	grid := filepath.Join(dir, "g")
	if err := os.MkdirAll(filepath.Join(grid, "conditions"), 0o755); err != nil {
		t.Fatal(err)
	}
	gridData := writeText(t, grid, "grid.json", string(mustRead(t, data)))
	condData := writeText(t, grid, "conditions/c.json", string(mustRead(t, data)))
	html := writeText(t, dir, "s.run.json", "keep\n")
	cache := filepath.Join(dir, "cache")
	entry := filepath.Join(cache, strings.Repeat("ab", 16)+".dataset")
	policyBytes := string(mustRead(t, pol))
	for _, tc := range []struct {
		args      []string
		file, was string
		want      string
	}{
		{append([]string{"impute", "--logs", log, "--out", pol}, common...), pol, policyBytes,
			"--out and --logs's policy file (its header's policy=) name the same file"},
		{append([]string{"evaluate", "--logs", log, "--target", "feature:2", "--json", pol}, common...), pol, policyBytes,
			"--json and --logs's policy file (its header's policy=) name the same file"},
		{[]string{"impute", "--logs", log, "--data", data, "--max-label", "2", "--out", query}, query, "keep\n",
			"--out and --data's query file name the same file"},
		{append([]string{"evaluate-sweep", "--target", "feature:2", "--json", filepath.Join(dir, "s.json"), "--html", html}, common...), html, "keep\n",
			"--json's run record and --html name the same file"},
		{[]string{"evaluate-grid", "--data", gridData, "--no-cache", "--out", grid}, gridData, string(mustRead(t, data)),
			"--data is g/grid.json, a file --out writes"},
		{[]string{"evaluate-grid", "--data", condData, "--no-cache", "--out", grid}, condData, string(mustRead(t, data)),
			"--data is g/conditions/*.json, a file --out writes"},
		{[]string{"impute", "--logs", log, "--data", data, "--max-label", "2", "--query-file", query, "--cache-dir", cache, "--out", entry}, entry, "",
			"--out names an entry of piopt's binary cache"},
	} {
		_, err := runCapture(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", strings.Join(tc.args, " "), err, tc.want)
		}
		if b, _ := os.ReadFile(tc.file); string(b) != tc.was {
			t.Errorf("%s: %s changed", strings.Join(tc.args, " "), tc.file)
		}
	}
	// The same commands with outputs elsewhere are not refused.
	if err := os.Remove(query); err != nil {
		t.Fatal(err)
	}
	if _, err := runCapture(t, append([]string{"impute", "--logs", log, "--out", filepath.Join(dir, "x.targets")}, common...)...); err != nil {
		t.Errorf("impute to another file: %v", err)
	}
}

// Issue 30, class 5: a log's data= named a file of the same shape (queries=
// and docs= agree) but other labels, and nothing was said: the log was
// imputed or evaluated against labels it was not made with. A log piopt
// simulated (seed= in its header) now has its rewards recomputed under the
// labels read, and the first that differs is refused with file, line and
// field; the same log read against its own labels, or one another program
// wrote (no seed=), is read as before.
func TestSilentWrongResults_DataOtherLabels(t *testing.T) {
	for _, tc := range []struct {
		name string
		sim  []string
	}{
		{"ndcg-uniform", []string{"--metric", "ndcg", "--logging", "uniform"}},
		{"err-pa-candidates", []string{"--metric", "err", "--logging", "pa:1", "--rank-by", "feature:2", "--candidates", "5"}},
		{"ndcg-pl-policy-file", []string{"--metric", "ndcg", "--logging", "pl:1", "--rank-by", "feature:1", "--policy-out", "POLICY"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, common := letorCommand(t, letorSpec{file: "a.txt", seed: 3, queries: 20, minDocs: 4, maxDocs: 9})
			log := filepath.Join(dir, "a.log")
			sim := slicesReplace(tc.sim, "POLICY", filepath.Join(dir, "a.policy"))
			if err := runPiopt(t, append(append([]string{"simulate", "--slots", "3", "--samples", "300", "--seed", "2", "--out", log}, sim...), common...)...); err != nil {
				t.Fatal(err)
			}
			impute := append([]string{"impute", "--logs", log, "--out", filepath.Join(dir, "a.targets")}, common...)
			evaluate := append([]string{"evaluate", "--logs", log, "--target", "feature:3", "--estimators", "pi,ips", "--json", filepath.Join(dir, "e.json")}, common...)
			for _, args := range [][]string{impute, evaluate} {
				if _, err := runCapture(t, args...); err != nil {
					t.Fatalf("%s on the log's own labels: %v", args[0], err)
				}
			}
			data := common[1]
			relabel(t, data)
			for _, args := range [][]string{impute, evaluate} {
				_, err := runCapture(t, args...)
				if err == nil || !strings.Contains(err.Error(), "a.log:") || !strings.Contains(err.Error(), "field 3") ||
					!strings.Contains(err.Error(), "data=a.txt, whose labels differ") || strings.Contains(err.Error(), "\n") {
					t.Errorf("%s on other labels: got %v, want a one-line refusal naming a.log's line, field 3 and data=a.txt", args[0], err)
				}
			}
			header, rest, _ := strings.Cut(string(mustRead(t, log)), "\n")
			header = strings.Replace(header, " seed=2", "", 1)
			writeText(t, dir, "a.log", header+"\n"+rest)
			if _, err := runCapture(t, impute...); err != nil {
				t.Errorf("a log without seed= (another program's) on other labels: %v", err)
			}
		})
	}
}

// relabel rewrites a LETOR file's grades g → (g+1) mod 3, keeping its
// shape and features.
func relabel(t *testing.T, path string) {
	t.Helper()
	var b strings.Builder
	for _, l := range strings.SplitAfter(string(mustRead(t, path)), "\n") {
		if l == "" {
			continue
		}
		g, rest, _ := strings.Cut(l, " ")
		b.WriteString(string(rune('0'+(int(g[0]-'0')+1)%3)) + " " + rest)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// slicesReplace returns args with every old replaced by new.
func slicesReplace(args []string, old, new string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == old {
			out[i] = new
		}
	}
	return out
}

// experiment --targets-kind takes one kind or a list of distinct kinds
// (the curve once per kind); anything else is refused before any work.
func TestExperimentTargetsKinds(t *testing.T) {
	none := filepath.Join(t.TempDir(), "none")
	for _, tc := range []struct{ kinds, want string }{
		{"pi,pi", `--targets-kind "pi,pi": want a list of distinct kinds, each pi or dr`},
		{"pi,ips", `--targets-kind "pi,ips": want a list of distinct kinds`},
		{"ips", `--targets-kind "ips": want pi or dr`},
		{"dr,pi", "--folds: open " + none}, // accepted: the run gets to the folds
	} {
		_, err := runCapture(t, "experiment", "--folds", none, "--targets-kind", tc.kinds, "--out", none+".out")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--targets-kind %s: got %v, want %q", tc.kinds, err, tc.want)
		}
	}
}
