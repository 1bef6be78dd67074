package selection

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piopt/piopt/internal/evalreport"
	"github.com/piopt/piopt/ope"
)

// selectModel is a model whose estimator est has the given value and
// Bernstein interval (nil: none).
func selectModel(name, est string, v float64, iv *ope.Interval) Model {
	return Model{Name: name, Setup: &evalreport.EvaluateSetup{Target: name},
		Result: &ope.Result{Estimates: map[string]*ope.Estimate{est: {Value: ope.Float(v), Bernstein: iv}}}}
}

// TestRank: highest estimate first, ties in the given order, NaN last;
// a model is marked when its interval meets the best's (touching counts).
func TestRank(t *testing.T) {
	models := []Model{
		selectModel("a", ope.WPI, 0.5, &ope.Interval{Lo: 0.4, Hi: 0.6}),
		selectModel("nan", ope.WPI, math.NaN(), nil),
		selectModel("b", ope.WPI, 0.7, &ope.Interval{Lo: 0.65, Hi: 0.75}),
		selectModel("d", ope.WPI, 0.5, &ope.Interval{Lo: 0.61, Hi: 0.66}),
		selectModel("e", ope.WPI, 0.3, &ope.Interval{Lo: 0.1, Hi: 0.65}),
		selectModel("f", ope.WPI, 0.2, nil),
	}
	s, err := Rank(models, ope.WPI, IntervalBernstein, 0.05, "x.log")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, m := range s.Models {
		got = append(got, fmt.Sprintf("%s:%d:%v", m.Name, m.Rank, m.NotSeparable))
		if m.Rank != i+1 {
			t.Errorf("%s at %d has rank %d", m.Name, i, m.Rank)
		}
	}
	want := "b:1:false a:2:false d:3:true e:4:true f:5:false nan:6:false"
	if strings.Join(got, " ") != want || s.Best() != "b" {
		t.Errorf("ranked %s, best %s; want %s, best b", strings.Join(got, " "), s.Best(), want)
	}
	if _, err := Rank(models, ope.DM, IntervalBernstein, 0.05, "x.log"); err == nil {
		t.Error("DM ranked models")
	}
	if _, err := Rank(models, ope.PI, IntervalBernstein, 0.05, "x.log"); err == nil || !strings.Contains(err.Error(), "model a: no pi estimate") {
		t.Errorf("missing estimate: %v", err)
	}
}

// TestSelectionTable pins the table's layout.
func TestSelectionTable(t *testing.T) {
	models := []Model{
		selectModel("feature:3", ope.PI, 0.25, &ope.Interval{Lo: 0.1, Hi: 0.4}),
		selectModel("best", ope.PI, 0.5, &ope.Interval{Lo: 0.35, Hi: 0.65}),
		selectModel("worst", ope.PI, 0.125, &ope.Interval{Lo: 0, Hi: 0.3}),
	}
	for _, m := range models {
		*m.Setup = evalreport.EvaluateSetup{Samples: 1000, LoggedQueries: 9, Queries: 10, Slots: 3, Logging: "pa:1", RankBy: "feature:1", Candidates: 8}
	}
	models[2].Result.Estimates[ope.PI].Warnings = []string{"few samples"}
	s, err := Rank(models, ope.PI, IntervalBernstein, 0.1, "x.log")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	s.WriteTable(&b)
	want := `x.log: 1000 impressions over 9 of 10 queries; 3 slots, logging pa:1 by feature:1, top 8 candidates
models ranked by pi, best first; bernstein 90% intervals; *: interval overlaps the best's (not separable from the best)
rank  model             pi  bernstein 90%
   1  best             0.5  [0.3500, 0.6500]
   2  feature:3       0.25  [0.1000, 0.4000]      *
   3  worst          0.125  [0.0000, 0.3000]
best: best
warning: worst: pi: few samples
`
	if b.String() != want {
		t.Errorf("table\n%s\nwant\n%s", b.String(), want)
	}
}

// fakePolicies resolves feature:K and tree:S (fitted) to a canonical
// spelling, for the parsing tests.
type fakePolicies struct{}

func (fakePolicies) Resolve(spec string) (string, bool, error) {
	kind, arg, _ := strings.Cut(spec, ":")
	switch kind {
	case "feature":
		return "feature:" + strings.TrimLeft(arg, "0"), false, nil
	case "tree":
		return spec + "@6", true, nil
	}
	return "", false, fmt.Errorf("unknown source %q", spec)
}

func TestParseModels(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("x=y", []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir("folder", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		list     string
		labelled bool
		want     string // name|spec per model, or the error's text
	}{
		{"feature:03, best=feature:2", false, "feature:03|feature:3 best|feature:2"},
		{"tree:body", true, "tree:body|tree:body@6"},
		{"tree:body", false, "--models tree:body: tree:body@6 is fitted to relevance labels and select reads no label of --data: give the labelled file to fit it on as --policy-data FILE"},
		{"feature:1,", false, "--models : empty entry"},
		{"a=feature:1,a=feature:2", false, `--models: two models named "a" (a=feature:1 and a=feature:2; name them NAME=SPEC)`},
		{"feature:1,one=feature:01", false, "--models: feature:1 and one=feature:01 are the same ranker"},
		{"model:", false, "--models model:: missing model path"},
		{"m.model", false, "--models m.model: no model file m.model"},
		{"n=model:m.model", false, "--models n=model:m.model: no model file m.model"},
		{"folder", false, "--models folder: folder is a folder, not a model file"},
		{"lasso:x", false, `--models lasso:x: unknown source "lasso:x"`},
	} {
		specs, err := ParseModels(tc.list, fakePolicies{}, tc.labelled)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			var parts []string
			for _, s := range specs {
				parts = append(parts, s.Name+"|"+s.Spec)
			}
			got = strings.Join(parts, " ")
		}
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.list, got, tc.want)
		}
	}
	// An existing file named x=y is a model file, not NAME=SPEC.
	if _, err := ParseModels("x=y", fakePolicies{}, false); err == nil || !strings.HasPrefix(err.Error(), "--models x=y: ") || strings.Contains(err.Error(), "no model file") {
		t.Errorf("x=y: %v", err)
	}
}

func TestConfigCheck(t *testing.T) {
	base := Config{Models: []Spec{{Name: "a"}}, Estimator: " WPI", Interval: "Bootstrap", Intervals: ope.Intervals{Bootstrap: 10}}
	c := base
	if err := c.check(); err != nil || c.Estimator != ope.WPI || c.Interval != IntervalBootstrap {
		t.Errorf("check: %v, estimator %q, interval %q", err, c.Estimator, c.Interval)
	}
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Models = nil }, "--models: no model to rank"},
		{func(c *Config) { c.Estimator = "dm" }, `--estimator "dm": want pi, wpi, ips, wips`},
		{func(c *Config) { c.Interval = "normal" }, "--interval: unknown interval"},
		{func(c *Config) { c.Intervals.Bootstrap = 0 }, "--interval bootstrap needs --bootstrap > 0"},
	} {
		c := base
		tc.edit(&c)
		if err := c.check(); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func TestReadLogHeader(t *testing.T) {
	dir := t.TempDir()
	const header = "# piopt-log v1 slots=3 logging=pa:1 rank-by=feature:2\n0\t1,2,3\t0.5\n"
	plain := filepath.Join(dir, "plain.log")
	if err := os.WriteFile(plain, []byte(header), 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(header))
	zw.Close()
	zipped := filepath.Join(dir, "zipped.log.gz")
	if err := os.WriteFile(zipped, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{plain, zipped} {
		h, err := readLogHeader(p, nil)
		if err != nil || h["slots"] != "3" || h["logging"] != "pa:1" || h["rank-by"] != "feature:2" {
			t.Errorf("%s: header %v, %v", p, h, err)
		}
	}
	empty := filepath.Join(dir, "empty.log")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readLogHeader(empty, nil); err == nil || err.Error() != empty+":1: no `# piopt-log v1 key=value ...` header line" {
		t.Errorf("empty log: %v", err)
	}
	if _, err := readLogHeader(filepath.Join(dir, "none.log"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing log: %v", err)
	}
}
