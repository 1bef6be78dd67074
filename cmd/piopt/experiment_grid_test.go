//go:build cgo

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piopt/piopt/data/synth"
)

// --grid is refused at start, naming the flag, when it is not a grid or
// PI-OPT does not select by value: no output folder is made.
func TestExperimentGridFlagRefused(t *testing.T) {
	folds := t.TempDir()
	fold1 := filepath.Join(folds, "Fold1")
	if err := os.Mkdir(fold1, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"train.txt", "vali.txt", "test.txt"} {
		writeText(t, fold1, f, "0 qid:1 1:1\n")
	}
	out := filepath.Join(t.TempDir(), "e")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--grid", ""}, `--grid "": empty grid`},
		{[]string{"--grid", "depth=3"}, `--grid "depth=3": unknown key "depth": want trees, leaves, lr`},
		{[]string{"--grid", "leaves=31;lr="}, `--grid "leaves=31;lr=": lr: empty value`},
		{[]string{"--grid", "leaves=31,x"}, `--grid "leaves=31,x": leaves "x": want a whole number ≥ 2`},
		{[]string{"--grid", "lr=0.1;lr=0.2"}, `--grid "lr=0.1;lr=0.2": key lr given twice`},
		{[]string{"--grid", "leaves=31,70", "--select-by", "rmse"}, "--grid chooses by the estimated value on the validation log: it needs --select-by value and --early-stopping > 0"},
		{[]string{"--grid", "leaves=31,70", "--early-stopping", "0"}, "--grid chooses by the estimated value"},
	} {
		args := append([]string{"experiment", "--folds", folds, "--out", out, "--no-cache"}, tc.args...)
		_, err := runCapture(t, args...)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("experiment made its output folder")
	}
}

// gridSummary is the part of summary.json a grid adds.
type gridSummary struct {
	Config map[string]any `json:"config"`
	Folds  []struct {
		NDCG      map[string]float64 `json:"ndcg@3"`
		Selection map[string]struct {
			Trees int `json:"trees"`
		} `json:"selection"`
		Grid map[string]struct {
			Criterion string `json:"criterion"`
			Points    []struct {
				Setting  string  `json:"setting"`
				MaxTrees int     `json:"max_trees"`
				Leaves   int     `json:"leaves"`
				LR       float64 `json:"lr"`
				Trees    int     `json:"trees"`
				Valid    float64 `json:"valid"`
				Lo       float64 `json:"valid_lo"`
				Hi       float64 `json:"valid_hi"`
				Test     float64 `json:"test"`
			} `json:"points"`
			Chosen   string `json:"chosen"`
			TestBest string `json:"test_best_reference_only"`
		} `json:"grid"`
	} `json:"folds"`
}

// A 2-point grid on a few-query synth: PI-OPT is the point with the higher
// validation estimate, the test-label best is reported beside it, and the
// point with the experiment's own settings is the model a run without
// --grid trained (same key, reused), whose summary has no trace of a grid.
func TestExperimentGridChoosesByValidation(t *testing.T) {
	if testing.Short() {
		t.Skip("trains XGBoost models")
	}
	dir := t.TempDir()
	if _, err := synth.Generate(context.Background(), dir, synth.Config{Queries: 40, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	common := []string{"experiment", "--folds", dir, "--only-folds", "1", "--out", out, "--no-cache",
		"--samples", "20000", "--trees", "40", "--leaves", "7", "--threads", "1"}
	if err := runPiopt(t, common...); err != nil {
		t.Fatal(err)
	}
	plain := mustRead(t, filepath.Join(out, "summary.json"))
	if strings.Contains(string(plain), "grid") {
		t.Errorf("summary without --grid mentions a grid: %s", plain)
	}
	models := func() []string {
		m, _ := filepath.Glob(filepath.Join(out, "fold1", "pi-opt-ndcg-*.model"))
		return m
	}
	if len(models()) != 1 {
		t.Fatalf("PI-OPT ndcg models without --grid: %v", models())
	}

	if err := runPiopt(t, append(common, "--grid", "lr=0.05,0.4")...); err != nil {
		t.Fatal(err)
	}
	if m := models(); len(m) != 2 {
		t.Errorf("PI-OPT ndcg models after a 2-point grid with PI-OPT's default lr=0.05: %v (want the default's reused and one more)", m)
	}
	var s gridSummary
	if err := json.Unmarshal(mustRead(t, filepath.Join(out, "summary.json")), &s); err != nil {
		t.Fatal(err)
	}
	if s.Config["grid"] != "lr=0.05,0.4" {
		t.Errorf("config grid %v", s.Config["grid"])
	}
	f := s.Folds[0]
	for _, m := range []string{"ndcg@3", "err@3"} {
		g := f.Grid[m]
		if len(g.Points) != 2 || g.Points[0].Setting != "lr=0.05" || g.Points[1].Setting != "lr=0.4" ||
			g.Points[0].LR != 0.05 || g.Points[1].LR != 0.4 || g.Points[0].Leaves != 7 || g.Points[0].MaxTrees != 40 {
			t.Fatalf("%s grid %+v", m, g)
		}
		if g.Criterion != "pi-"+m {
			t.Errorf("%s criterion %q", m, g.Criterion)
		}
		a, b := g.Points[0], g.Points[1]
		if a.Valid == b.Valid {
			t.Fatalf("%s: both points estimate %v: the test cannot tell the choice", m, a.Valid)
		}
		want, testBest := a, a
		if b.Valid > a.Valid {
			want = b
		}
		if b.Test > a.Test {
			testBest = b
		}
		if g.Chosen != want.Setting || g.TestBest != testBest.Setting {
			t.Errorf("%s: chose %s, test best %s; points %+v", m, g.Chosen, g.TestBest, g.Points)
		}
		for _, p := range g.Points {
			if !(p.Lo <= p.Valid && p.Valid <= p.Hi) || p.Trees < 1 || p.Trees > 40 {
				t.Errorf("%s point %+v", m, p)
			}
		}
		if m == "ndcg@3" {
			if f.NDCG["pi-opt"] != want.Test {
				t.Errorf("table's PI-OPT %v is not the chosen point's test value %v", f.NDCG["pi-opt"], want.Test)
			}
			if f.Selection["pi-opt ndcg"].Trees != want.Trees {
				t.Errorf("selection of pi-opt ndcg: %d trees, chosen point %d", f.Selection["pi-opt ndcg"].Trees, want.Trees)
			}
		}
		t.Logf("%s: %+v chosen %s, test best %s", m, g.Points, g.Chosen, g.TestBest)
	}

	// The run without --grid again: its result is reused, byte for byte.
	if err := runPiopt(t, common...); err != nil {
		t.Fatal(err)
	}
	if again := mustRead(t, filepath.Join(out, "summary.json")); string(again) != string(plain) {
		t.Errorf("summary without --grid changed after a grid run:\n%s\n%s", plain, again)
	}
}

// The grid's choice never reads a test label: with the test file's labels
// shifted by one line (the same grades, so the same ERR maxrel), a fresh
// run of the same grid (issue 15's comma form) chooses the same points on
// the same validation estimates, while the test values, and so the
// reference, move.
func TestExperimentGridIgnoresTestLabels(t *testing.T) {
	if testing.Short() {
		t.Skip("trains XGBoost models")
	}
	dir := t.TempDir()
	if _, err := synth.Generate(context.Background(), dir, synth.Config{Queries: 40, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	run := func(name string, scramble bool) gridSummary {
		fold := filepath.Join(dir, name, "Fold1")
		if err := os.MkdirAll(fold, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"train.txt", "vali.txt", "test.txt"} {
			text := string(mustRead(t, filepath.Join(dir, "Fold1", f)))
			if f == "test.txt" && scramble {
				text = shiftLabels(t, text)
			}
			writeText(t, fold, f, text)
		}
		out := filepath.Join(dir, name, "out")
		if err := runPiopt(t, "experiment", "--folds", filepath.Join(dir, name), "--out", out, "--no-cache", "--samples", "20000",
			"--trees", "30", "--threads", "1", "--grid", "leaves=3,7,lr=0.1,0.4"); err != nil {
			t.Fatal(err)
		}
		var s gridSummary
		if err := json.Unmarshal(mustRead(t, filepath.Join(out, "summary.json")), &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b := run("plain", false), run("scrambled", true)
	moved := false
	for _, m := range []string{"ndcg@3", "err@3"} {
		ga, gb := a.Folds[0].Grid[m], b.Folds[0].Grid[m]
		if len(ga.Points) != 4 || len(gb.Points) != 4 {
			t.Fatalf("%s: points %+v and %+v", m, ga.Points, gb.Points)
		}
		if ga.Chosen != gb.Chosen {
			t.Errorf("%s: chose %s, with scrambled test labels %s", m, ga.Chosen, gb.Chosen)
		}
		for i, pa := range ga.Points {
			pb := gb.Points[i]
			if pa.Setting != pb.Setting || pa.Valid != pb.Valid || pa.Lo != pb.Lo || pa.Hi != pb.Hi || pa.Trees != pb.Trees {
				t.Errorf("%s point %d: %+v, with scrambled test labels %+v", m, i, pa, pb)
			}
			moved = moved || pa.Test != pb.Test
		}
	}
	if !moved {
		t.Error("scrambling the test labels changed no test value: the test cannot show the choice ignores them")
	}
}

// shiftLabels gives every line of a LETOR text the label of the next line
// (the last takes the first's): the same grades, on other documents.
func shiftLabels(t *testing.T, text string) string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	labels := make([]string, len(lines))
	rest := make([]string, len(lines))
	for i, l := range lines {
		var ok bool
		if labels[i], rest[i], ok = strings.Cut(l, " "); !ok {
			t.Fatalf("line %d: %q", i+1, l)
		}
	}
	var sb strings.Builder
	for i := range lines {
		sb.WriteString(labels[(i+1)%len(lines)] + " " + rest[i] + "\n")
	}
	return sb.String()
}
