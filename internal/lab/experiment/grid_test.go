package experiment

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/piopt/piopt/ranker"
	"github.com/piopt/piopt/trainer"
)

func TestParseGrid(t *testing.T) {
	for _, tc := range []struct {
		in     string
		canon  string   // String() of the grid
		points []string // labels, last setting fastest
		err    string   // substring of the error
	}{
		{in: "leaves=31,70;lr=0.05,0.1", canon: "leaves=31,70;lr=0.05,0.1",
			points: []string{"leaves=31 lr=0.05", "leaves=31 lr=0.1", "leaves=70 lr=0.05", "leaves=70 lr=0.1"}},
		{in: " lr = 0.050 , 1e-1 ; trees=100 ", canon: "lr=0.05,0.1;trees=100",
			points: []string{"lr=0.05 trees=100", "lr=0.1 trees=100"}},
		{in: "trees=300", canon: "trees=300", points: []string{"trees=300"}},
		{in: "trees=10,20;leaves=2;lr=0.3", canon: "trees=10,20;leaves=2;lr=0.3",
			points: []string{"trees=10 leaves=2 lr=0.3", "trees=20 leaves=2 lr=0.3"}},
		{in: "", err: "empty grid"},
		{in: "  ", err: "empty grid"},
		{in: "leaves=31;", err: "empty setting"},
		{in: ";leaves=31", err: "empty setting"},
		{in: "leaves", err: `setting "leaves": want KEY=V1,V2,... with KEY one of trees, leaves, lr`},
		{in: "depth=3", err: `unknown key "depth": want trees, leaves, lr`},
		{in: "learning-rate=0.1", err: `unknown key "learning-rate"`},
		{in: "=3", err: `unknown key ""`},
		{in: "leaves=", err: "leaves: empty value"},
		{in: "leaves=31,,70", err: "leaves: empty value"},
		{in: "lr=0.1,", err: "lr: empty value"},
		{in: "leaves=31;leaves=70", err: "key leaves given twice"},
		{in: "leaves=31,31.0", err: `leaves "31.0": want a whole number ≥ 2`},
		{in: "leaves=31,031", err: "leaves: value 031 given twice"},
		{in: "leaves=1", err: `leaves "1": want a whole number ≥ 2`},
		{in: "trees=0", err: `trees "0": want a whole number ≥ 1`},
		{in: "trees=1e3", err: `trees "1e3": want a whole number ≥ 1`},
		{in: "lr=abc", err: `lr "abc": want a positive number`},
		{in: "lr=0", err: `lr "0": want a positive number`},
		{in: "lr=-0.1", err: `lr "-0.1": want a positive number`},
		{in: "lr=NaN", err: `lr "NaN": want a positive number`},
		{in: "lr=Inf", err: `lr "Inf": want a positive number`},
		// Settings separated by ',' (issue 15's form): a KEY= starts one.
		{in: "leaves=31,70,lr=0.1", canon: "leaves=31,70;lr=0.1",
			points: []string{"leaves=31 lr=0.1", "leaves=70 lr=0.1"}},
		{in: "trees=100,300,leaves=31,lr=0.05;  lr2=1", err: `unknown key "lr2"`},
		{in: "trees=100,300,leaves=31,lr=0.05", canon: "trees=100,300;leaves=31;lr=0.05",
			points: []string{"trees=100 leaves=31 lr=0.05", "trees=300 leaves=31 lr=0.05"}},
		{in: "leaves=31;70", err: `setting "70": want KEY=V1,V2,... with KEY one of trees, leaves, lr`},
		{in: ",leaves=31", err: `setting ",leaves=31": want KEY=V1,V2,... with KEY one of trees, leaves, lr`},
		{in: "leaves=31,lr=0.1;leaves=70", err: "key leaves given twice"},
		{in: "leaves=31,=3", err: `unknown key ""`},
		{in: "leaves=31,lr=", err: "lr: empty value"},
		{in: "leaves=31,lr=0.1,0.1", err: "lr: value 0.1 given twice"},
	} {
		g, err := ParseGrid(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if g.String() != tc.canon {
			t.Errorf("%q: String %q, want %q", tc.in, g.String(), tc.canon)
		}
		var labels []string
		for _, pt := range g.points() {
			labels = append(labels, pt.label)
		}
		if strings.Join(labels, "|") != strings.Join(tc.points, "|") {
			t.Errorf("%q: points %q, want %q", tc.in, labels, tc.points)
		}
	}
}

// Every point sets exactly its grid's settings, and the others keep the
// experiment's.
func TestGridPointsSetParams(t *testing.T) {
	g, err := ParseGrid("leaves=31,70;lr=0.05,0.1;trees=7")
	if err != nil {
		t.Fatal(err)
	}
	base := trainer.Defaults()
	base.EarlyStopping = 50
	var got []string
	for _, pt := range g.points() {
		p := base
		pt.set(&p)
		q := p
		q.Trees, q.Leaves, q.LearningRate = base.Trees, base.Leaves, base.LearningRate
		if q.String() != base.String() {
			t.Errorf("%s changed other settings: %s", pt.label, p)
		}
		got = append(got, p.String())
	}
	want := []string{"trees=7 leaves=31 learning_rate=0.05", "trees=7 leaves=31 learning_rate=0.1",
		"trees=7 leaves=70 learning_rate=0.05", "trees=7 leaves=70 learning_rate=0.1"}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("point %d: %s, want %s", i, got[i], want[i])
		}
	}
}

// A grid chooses by the value selection's estimates: other selections are
// refused, naming the flags.
func TestCheckGrid(t *testing.T) {
	g, _ := ParseGrid("leaves=31,70")
	p := trainer.Defaults()
	p.EarlyStopping = 50
	for _, tc := range []struct {
		c   Config
		err string
	}{
		{Config{Params: p, SelectBy: trainer.SelectValue, Grid: g}, ""},
		{Config{Params: p, SelectBy: trainer.SelectValue}, ""},
		{Config{Params: p}, ""},
		{Config{Params: p, SelectBy: trainer.SelectMetric, Grid: g}, "--grid chooses by the estimated value on the validation log: it needs --select-by value and --early-stopping > 0"},
		{Config{Params: trainer.Defaults(), SelectBy: trainer.SelectValue, Grid: g}, "--early-stopping > 0"},
	} {
		err := tc.c.CheckGrid()
		if (tc.err == "") != (err == nil) || err != nil && err.Error() != tc.err && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%+v: error %v, want %q", tc.c.Grid, err, tc.err)
		}
	}
}

// The table gets one line per metric with a grid: the point chosen by the
// validation estimate and, for reference only, the best by test labels;
// summary.json carries the grid per fold, and nothing without one.
func TestGridTableAndJSON(t *testing.T) {
	grid := &GridResult{Criterion: "pi-ndcg@3", Chosen: "leaves=31 lr=0.05", TestBest: "leaves=70 lr=0.1", Points: []GridPoint{
		{Setting: "leaves=31 lr=0.05", Leaves: 31, LR: 0.05, MaxTrees: 300, Trees: 40, Trained: 90, Valid: 0.4512, ValidLo: 0.4, ValidHi: 0.5, Test: 0.4},
		{Setting: "leaves=70 lr=0.1", Leaves: 70, LR: 0.1, MaxTrees: 300, Trees: 12, Trained: 62, Valid: 0.44, ValidLo: jfloat(math.NaN()), ValidHi: jfloat(math.NaN()), Test: 0.41},
	}}
	s := &Summary{
		Conventions: ranker.ConventionsJSON{Text: "conv"},
		Metrics:     []string{"ndcg@3", "err@3"}, Policies: []string{PIOPT},
		Mean:  map[string]map[string]float64{"ndcg@3": {PIOPT: 0.4}, "err@3": {PIOPT: 0.3}},
		Std:   map[string]map[string]float64{"ndcg@3": {PIOPT: 0}, "err@3": {PIOPT: 0}},
		Folds: []FoldResult{{Fold: 1, Grid: map[string]*GridResult{"ndcg@3": grid}}},
	}
	var out bytes.Buffer
	if err := s.WriteTable(&out); err != nil {
		t.Fatal(err)
	}
	line := "grid ndcg@3 fold 1: chose leaves=31 lr=0.05 (valid pi-ndcg@3 0.4512, 40 trees, test 0.4000); test-label best leaves=70 lr=0.1 0.4100 (reference only)\n"
	// One fold: its values alone and "(1 fold; …)" (TestOneFoldTable).
	if !strings.HasSuffix(out.String(), "(1 fold; conv)\n"+line) {
		t.Errorf("table:\n%s\nwant it to end with\n%s", out.String(), line)
	}
	// Two folds: a line each and one of their means, (0.4+0.5)/2 chosen
	// and (0.41+0.5)/2 best by test labels.
	grid2 := &GridResult{Criterion: "pi-ndcg@3", Chosen: "leaves=70 lr=0.1", TestBest: "leaves=70 lr=0.1", Points: []GridPoint{
		{Setting: "leaves=31 lr=0.05", Trees: 3, Valid: 0.3, Test: 0.2},
		{Setting: "leaves=70 lr=0.1", Trees: 9, Valid: 0.35, Test: 0.5},
	}}
	s.Folds = append(s.Folds, FoldResult{Fold: 2, Grid: map[string]*GridResult{"ndcg@3": grid2}})
	want2 := []string{strings.TrimSuffix(line, "\n"),
		"grid ndcg@3 fold 2: chose leaves=70 lr=0.1 (valid pi-ndcg@3 0.3500, 9 trees, test 0.5000); test-label best leaves=70 lr=0.1 0.5000 (reference only)",
		"grid ndcg@3 mean over 2 folds: chosen 0.4500; test-label best 0.4550 (reference only: an oracle reading test labels)"}
	if got := s.gridLines(); strings.Join(got, "\n") != strings.Join(want2, "\n") {
		t.Errorf("two folds:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want2, "\n"))
	}
	if h := string(s.HTML()); !strings.Contains(h, "grid ndcg@3 mean over 2 folds: chosen 0.4500") {
		t.Errorf("report.html lacks the grid lines")
	}
	b, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Folds []map[string]json.RawMessage `json:"folds"`
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	want := `{"ndcg@3":{"criterion":"pi-ndcg@3","points":[` +
		`{"setting":"leaves=31 lr=0.05","max_trees":300,"leaves":31,"lr":0.05,"trees":40,"trained":90,"valid":0.4512,"valid_lo":0.4,"valid_hi":0.5,"test":0.4},` +
		`{"setting":"leaves=70 lr=0.1","max_trees":300,"leaves":70,"lr":0.1,"trees":12,"trained":62,"valid":0.44,"valid_lo":null,"valid_hi":null,"test":0.41}],` +
		`"chosen":"leaves=31 lr=0.05","test_best_reference_only":"leaves=70 lr=0.1"}}`
	if got := string(sum.Folds[0]["grid"]); got != want {
		t.Errorf("summary grid\n%s\nwant\n%s", got, want)
	}
	// Without a grid: no line, no key.
	s.Folds = []FoldResult{{Fold: 1}}
	out.Reset()
	if err := s.WriteTable(&out); err != nil {
		t.Fatal(err)
	}
	b, _ = s.MarshalJSON()
	if strings.Contains(out.String(), "grid") || strings.Contains(string(b), "grid") || strings.Contains(string(s.HTML()), "grid ") {
		t.Errorf("without a grid:\n%s\n%s", out.String(), b)
	}
}

// The grid chooses by the validation estimate alone: the test values only
// decide the reference, and a point without an estimate loses to any
// point with one.
func TestGridChoice(t *testing.T) {
	nan := jfloat(math.NaN())
	for _, tc := range []struct {
		name           string
		valid, test    []jfloat
		chosen, oracle int
	}{
		{"argmax", []jfloat{0.30, 0.42, 0.41}, []jfloat{0.5, 0.1, 0.2}, 1, 0},
		{"same choice, other tests", []jfloat{0.30, 0.42, 0.41}, []jfloat{0.1, 0.2, 0.9}, 1, 2},
		{"first of equals", []jfloat{0.42, 0.3, 0.42}, []jfloat{0.3, 0.3, 0.3}, 0, 0},
		{"NaN first", []jfloat{nan, 0.1, 0.2}, []jfloat{0.9, 0, 0}, 2, 0},
		{"NaN between", []jfloat{0.1, nan, 0.05}, []jfloat{0, 0.9, 0}, 0, 1},
		{"all NaN", []jfloat{nan, nan}, []jfloat{0, 1}, 0, 1},
		{"one point", []jfloat{0.2}, []jfloat{0.1}, 0, 0},
	} {
		pts := make([]GridPoint, len(tc.valid))
		for i := range pts {
			pts[i] = GridPoint{Valid: tc.valid[i], Test: float64(tc.test[i])}
		}
		if got := chooseByValid(pts); got != tc.chosen {
			t.Errorf("%s: chose %d, want %d", tc.name, got, tc.chosen)
		}
		if got := bestByTest(pts); got != tc.oracle {
			t.Errorf("%s: test best %d, want %d", tc.name, got, tc.oracle)
		}
	}
}
