package experiment

import (
	"bytes"
	"strings"
	"testing"

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
