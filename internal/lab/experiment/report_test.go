package experiment

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/piopt/piopt/internal/pipeline"
	"github.com/piopt/piopt/ranker"
	"github.com/piopt/piopt/trainer"
)

// TestSeedNote: with --subsample 1 (the default) the table says that
// --seed moves only PI-OPT's logs and random slates; with row subsampling
// it says nothing, and summary.json never carries the note.
func TestSeedNote(t *testing.T) {
	p := trainer.Defaults()
	for _, c := range []struct {
		subsample float64
		notes     []string
	}{{1, []string{SeedNote}}, {0.8, nil}} {
		p.Subsample = c.subsample
		r := &runner{cfg: Config{Params: p}}
		s := &Summary{
			Conventions: ranker.ConventionsJSON{Text: "conv"},
			Metrics:     []string{"ndcg@3"}, Policies: []string{PIOPT, SUP},
			Mean:  map[string]map[string]float64{"ndcg@3": {PIOPT: 0.5, SUP: 0.4}},
			Std:   map[string]map[string]float64{"ndcg@3": {PIOPT: 0.01, SUP: 0.02}},
			Folds: []FoldResult{{Fold: 1}, {Fold: 2}}, Notes: r.notes(),
		}
		var out bytes.Buffer
		if err := s.WriteTable(&out); err != nil {
			t.Fatal(err)
		}
		want := "metric   PI-OPT            SUP\nNDCG@3   0.5000 ± 0.0100   0.4000 ± 0.0200\n(mean ± std over 2 folds; conv)\n"
		for _, n := range c.notes {
			want += "note: " + n + "\n"
		}
		if out.String() != want {
			t.Errorf("subsample %v: table\n%s\nwant\n%s", c.subsample, out.String(), want)
		}
		b, err := s.MarshalJSON()
		if err != nil || strings.Contains(string(b), "note") || strings.Contains(string(b), "seed") {
			t.Errorf("subsample %v: summary.json %s, %v", c.subsample, b, err)
		}
	}
	if !strings.Contains("note: "+SeedNote, "note: with --subsample 1 SUP and LambdaMART do not depend on --seed; only PI-OPT's simulated logs do") {
		t.Errorf("SeedNote %q", SeedNote)
	}
}

func TestTreesLine(t *testing.T) {
	s := &Summary{Folds: []FoldResult{
		{Fold: 1, Selection: map[string]*Selection{"pi-opt ndcg": {Criterion: "pi-ndcg@3", Trees: 17}, "pi-opt err": {Criterion: "pi-err@3", Trees: 42}}},
		{Fold: 2, Selection: map[string]*Selection{"pi-opt ndcg": {Criterion: "pi-ndcg@3", Trees: 9}, "pi-opt err": {Criterion: "pi-err@3", Trees: 13}}},
	}}
	want := "PI-OPT trees selected by pi-err@3: 42 13; by pi-ndcg@3: 17 9 (per fold)"
	if got := s.treesLine(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := (&Summary{Folds: []FoldResult{{Fold: 1}}}).treesLine(); got != "" {
		t.Errorf("without selection: %q", got)
	}
}

// With one fold the table shows the fold's values, not "± 0.0000 … over 1
// folds", and so does the report; with two it shows mean ± std.
func TestOneFoldTable(t *testing.T) {
	s := &Summary{
		Conventions: ranker.ConventionsJSON{Text: "conv"},
		Metrics:     []string{"ndcg@3", "err@3"}, Policies: []string{PIOPT, SUP, pipeline.PolicyRandom},
		Mean: map[string]map[string]float64{"ndcg@3": {PIOPT: 0.51234, SUP: 0.4, pipeline.PolicyRandom: 0.25},
			"err@3": {PIOPT: 0.3, SUP: 0.29996, pipeline.PolicyRandom: 0.1}},
		Std:   map[string]map[string]float64{"ndcg@3": {}, "err@3": {}},
		Folds: []FoldResult{{Fold: 3}},
	}
	var out bytes.Buffer
	if err := s.WriteTable(&out); err != nil {
		t.Fatal(err)
	}
	want := "metric   PI-OPT   SUP      random\n" +
		"NDCG@3   0.5123   0.4000   0.2500\n" +
		"ERR@3    0.3000   0.3000   0.1000\n" +
		"(1 fold; conv)\n"
	if out.String() != want {
		t.Errorf("one fold:\n%q\nwant\n%q", out.String(), want)
	}
	h := string(s.HTML())
	for _, bad := range []string{"±", "over 1 folds"} {
		if strings.Contains(h, bad) {
			t.Errorf("one-fold report contains %q", bad)
		}
	}
	if !strings.Contains(h, "Test-fold values of fold 3.") || !strings.Contains(h, "<td class=\"num\">0.5123</td>") {
		t.Errorf("one-fold report lacks the fold's values")
	}
	s.Folds = append(s.Folds, FoldResult{Fold: 4})
	s.Std["ndcg@3"][PIOPT] = 0.01
	out.Reset()
	if err := s.WriteTable(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "NDCG@3   0.5123 ± 0.0100   0.4000 ± 0.0000") || !strings.HasSuffix(out.String(), "(mean ± std over 2 folds; conv)\n") {
		t.Errorf("two folds:\n%s", out.String())
	}
}

// The report's per-fold table has one row per metric and policy and one
// column per fold, so it stays narrow; every number in the report's tables
// has four decimals; settings are a key/value table that wraps.
func TestReportTables(t *testing.T) {
	s := &Summary{
		Conventions: ranker.ConventionsJSON{Text: "conv"},
		Metrics:     []string{"ndcg@3", "err@3"}, Policies: []string{PIOPT, SUP},
		Mean: map[string]map[string]float64{"ndcg@3": {PIOPT: 0.5, SUP: 0.4}, "err@3": {PIOPT: 0.3, SUP: 0.2}},
		Std:  map[string]map[string]float64{"ndcg@3": {PIOPT: 0.01, SUP: 0.02}, "err@3": {PIOPT: 0.03, SUP: 0.04}},
		Folds: []FoldResult{
			{Fold: 1, Values: map[string]map[string]float64{"ndcg@3": {PIOPT: 0.51, SUP: 0.42}, "err@3": {PIOPT: 0.33, SUP: 0.24}}},
			{Fold: 2, Values: map[string]map[string]float64{"ndcg@3": {PIOPT: 0.49, SUP: 0.38}, "err@3": {PIOPT: 0.27, SUP: 0.16}}},
		},
		Config: map[string]any{"samples": int64(10000000), "params": "trees=30 leaves=70"},
	}
	h := string(s.HTML())
	for _, want := range []string{
		"<thead><tr><th>metric</th><th>policy</th><th>fold 1</th><th>fold 2</th></tr></thead>",
		`<tr><td>ndcg@3</td><td>SUP</td><td class="num">0.4200</td><td class="num">0.3800</td></tr>`,
		`<tr><td>err@3</td><td>PI-OPT</td><td class="num">0.3300</td><td class="num">0.2700</td></tr>`,
		`<tr><th>params</th><td>trees=30 leaves=70</td></tr>` + "\n" + `<tr><th>samples</th><td>10000000</td></tr>`,
	} {
		if !strings.Contains(h, want) {
			t.Errorf("report lacks %s", want)
		}
	}
	cells := regexp.MustCompile(`<td class="num">([^<]*)</td>`).FindAllStringSubmatch(h, -1)
	if len(cells) != 4+8 {
		t.Fatalf("%d numeric cells, want 12 (4 means, 8 fold values)", len(cells))
	}
	format := regexp.MustCompile(`^[0-9]\.[0-9]{4}( ± [0-9]\.[0-9]{4})?$`)
	for _, c := range cells {
		if !format.MatchString(c[1]) {
			t.Errorf("cell %q not in the tables' format", c[1])
		}
	}
}

// summary.json's config has pi_opt_params only where PI-OPT's training
// parameters differ from Params, so that the summaries of runs that train
// every model alike keep their bytes.
func TestConfigPIOPTParams(t *testing.T) {
	p := trainer.Defaults()
	p.EarlyStopping = 50
	for _, c := range []struct {
		selectBy, base string
		rate           float64
		want           string // "": no key
	}{
		{"", "", 0, ""},
		{"", "", 0.1, ""},
		{"", "", 0.05, strings.Replace(p.String(), "learning_rate=0.1 ", "learning_rate=0.05 ", 1)},
		{trainer.SelectValue, "0.5", 0.05, strings.Replace(p.String(), "learning_rate=0.1 ", "learning_rate=0.05 ", 1) + " select_by=value base_score=0.5"},
	} {
		r := &runner{cfg: Config{Params: p, SelectBy: c.selectBy, BaseScore: c.base, LearningRate: c.rate}}
		got, ok := r.configJSON()["pi_opt_params"]
		if c.want == "" && ok || c.want != "" && got != c.want {
			t.Errorf("%+v: pi_opt_params %v (%v), want %q", c, got, ok, c.want)
		}
	}
}
