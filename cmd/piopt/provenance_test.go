//go:build cgo

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/piopt/piopt/data/synth"
)

// withArgs runs the CLI on args with os.Args set to them, as a shell
// would, so that the recorded command line is args.
func withArgs(t *testing.T, args ...string) {
	t.Helper()
	saved := os.Args
	defer func() { os.Args = saved }()
	os.Args = append([]string{"/usr/local/bin/piopt"}, args...)
	if err := newApp().RunContext(context.Background(), os.Args); err != nil {
		t.Fatal(err)
	}
}

type provenanceJSON struct {
	Command        string `json:"command"`
	PioptVersion   string `json:"piopt_version"`
	XGBoostVersion string `json:"xgboost_version"`
	Inputs         []struct {
		Path   string `json:"path"`
		SHA256 string `json:"sha256"`
		Bytes  int64  `json:"bytes"`
	} `json:"inputs"`
}

// checkInputs: the provenance lists paths with their SHA-256 and sizes.
func checkInputs(t *testing.T, p provenanceJSON, paths ...string) {
	t.Helper()
	if len(p.Inputs) != len(paths) {
		t.Fatalf("inputs %+v, want %v", p.Inputs, paths)
	}
	for i, in := range p.Inputs {
		b := mustRead(t, paths[i])
		sum := sha256.Sum256(b)
		if in.Path != paths[i] || in.SHA256 != hex.EncodeToString(sum[:]) || in.Bytes != int64(len(b)) {
			t.Errorf("input %+v, want %s %x %d", in, paths[i], sum, len(b))
		}
	}
	if p.PioptVersion == "" || !strings.HasPrefix(p.XGBoostVersion, "1.") {
		t.Errorf("versions %q, %q", p.PioptVersion, p.XGBoostVersion)
	}
}

// sameRunRecords: two run records have the same keys, and the same values
// but for the start and the wall times.
func sameRunRecords(t *testing.T, a, b []byte, keys ...string) {
	t.Helper()
	var ra, rb map[string]any
	if err := json.Unmarshal(a, &ra); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rb); err != nil {
		t.Fatal(err)
	}
	var got []string
	for k := range ra {
		got = append(got, k)
	}
	slices.Sort(got)
	if !slices.Equal(got, keys) {
		t.Errorf("run record keys %v, want %v", got, keys)
	}
	for _, r := range []map[string]any{ra, rb} {
		delete(r, "start")
		delete(r, "seconds")
		if folds, ok := r["folds"].([]any); ok {
			for _, f := range folds {
				delete(f.(map[string]any), "seconds")
			}
		}
	}
	ja, _ := json.Marshal(ra)
	jb, _ := json.Marshal(rb)
	if !bytes.Equal(ja, jb) {
		t.Errorf("run records differ beyond start and wall times:\n%s\n%s", ja, jb)
	}
}

// Two fresh runs of the same experiment command write the same
// summary.json and report.html, which record the command, the versions
// and the fold files' hashes; run.json beside them holds what varies.
func TestExperimentProvenance(t *testing.T) {
	if testing.Short() {
		t.Skip("trains XGBoost models")
	}
	dir := t.TempDir()
	if _, err := synth.Generate(context.Background(), dir, synth.Config{Queries: 30, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "e")
	args := []string{"experiment", "--folds", dir, "--only-folds", "2", "--out", out, "--no-cache",
		"--samples", "2000", "--metrics", "ndcg", "--trees", "3", "--leaves", "4", "--threads", "1"}
	var sums, reports, runs [][]byte
	for range 2 {
		if err := os.RemoveAll(out); err != nil {
			t.Fatal(err)
		}
		withArgs(t, args...)
		sums = append(sums, mustRead(t, filepath.Join(out, "summary.json")))
		reports = append(reports, mustRead(t, filepath.Join(out, "report.html")))
		runs = append(runs, mustRead(t, filepath.Join(out, "run.json")))
	}
	if !bytes.Equal(sums[0], sums[1]) || !bytes.Equal(reports[0], reports[1]) {
		t.Error("two fresh runs of the same command wrote different summary.json or report.html")
	}
	sameRunRecords(t, runs[0], runs[1], "cores", "folds", "gomaxprocs", "hostname", "seconds", "start")
	var s struct {
		Provenance provenanceJSON `json:"provenance"`
	}
	if err := json.Unmarshal(sums[0], &s); err != nil {
		t.Fatal(err)
	}
	if want := "piopt " + strings.Join(args, " "); s.Provenance.Command != want {
		t.Errorf("command %q, want %q", s.Provenance.Command, want)
	}
	fold := filepath.Join(dir, "Fold2")
	checkInputs(t, s.Provenance, filepath.Join(fold, "train.txt"), filepath.Join(fold, "vali.txt"), filepath.Join(fold, "test.txt"))
	for _, want := range []string{s.Provenance.Inputs[0].SHA256, "Provenance", "Test-fold values of fold 2."} {
		if !bytes.Contains(reports[0], []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// Two runs of the same evaluate-sweep command write the same JSON and
// HTML, which record the data file's hash; NAME.run.json beside the JSON
// holds the start, wall times and machine.
func TestSweepProvenance(t *testing.T) {
	dir, common := letorCommand(t, opeLETOR)
	js, html := filepath.Join(dir, "sweep.json"), filepath.Join(dir, "sweep.html")
	args := append([]string{"evaluate-sweep", "--slots", "3", "--candidates", "8", "--target", "feature:3", "--samples", "2000",
		"--runs", "2", "--estimators", "pi,ips", "--json", js, "--html", html}, common...)
	var jsons, htmls, runs [][]byte
	for range 2 {
		withArgs(t, args...)
		jsons = append(jsons, mustRead(t, js))
		htmls = append(htmls, mustRead(t, html))
		runs = append(runs, mustRead(t, filepath.Join(dir, "sweep.run.json")))
	}
	if !bytes.Equal(jsons[0], jsons[1]) || !bytes.Equal(htmls[0], htmls[1]) {
		t.Error("two runs of the same sweep wrote different JSON or HTML")
	}
	sameRunRecords(t, runs[0], runs[1], "cores", "gomaxprocs", "hostname", "seconds", "start", "threads")
	var s struct {
		Provenance provenanceJSON `json:"provenance"`
	}
	if err := json.Unmarshal(jsons[0], &s); err != nil {
		t.Fatal(err)
	}
	if want := "piopt " + strings.Join(args, " "); s.Provenance.Command != want {
		t.Errorf("command %q, want %q", s.Provenance.Command, want)
	}
	checkInputs(t, s.Provenance, common[1])
	if !bytes.Contains(htmls[0], []byte(s.Provenance.Inputs[0].SHA256)) {
		t.Error("sweep HTML lacks the data's hash")
	}
}
