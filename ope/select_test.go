package ope

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/ranker"
)

// selectModel is a model whose estimator est has the given value and
// Bernstein interval (nil: none).
func selectModel(name, est string, v float64, iv *Interval) SelectModel {
	return SelectModel{Name: name, Setup: &EvaluateSetup{Target: name},
		Result: &Result{Estimates: map[string]*Estimate{est: {Value: Float(v), Bernstein: iv}}}}
}

// TestRank: highest estimate first, ties in the given order, NaN last;
// a model is marked when its interval meets the best's (touching counts).
func TestRank(t *testing.T) {
	models := []SelectModel{
		selectModel("a", WPI, 0.5, &Interval{Lo: 0.4, Hi: 0.6}),
		selectModel("nan", WPI, math.NaN(), nil),
		selectModel("b", WPI, 0.7, &Interval{Lo: 0.65, Hi: 0.75}),
		selectModel("d", WPI, 0.5, &Interval{Lo: 0.61, Hi: 0.66}),
		selectModel("e", WPI, 0.3, &Interval{Lo: 0.1, Hi: 0.65}),
		selectModel("f", WPI, 0.2, nil),
	}
	s, err := Rank(models, WPI, IntervalBernstein, 0.05, "x.log")
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
	if _, err := Rank(models, DM, IntervalBernstein, 0.05, "x.log"); err == nil {
		t.Error("DM ranked models")
	}
	if _, err := Rank(models, PI, IntervalBernstein, 0.05, "x.log"); err == nil || !strings.Contains(err.Error(), "model a: no pi estimate") {
		t.Errorf("missing estimate: %v", err)
	}
}

// TestSelectionTable pins the table's layout.
func TestSelectionTable(t *testing.T) {
	models := []SelectModel{
		selectModel("feature:3", PI, 0.25, &Interval{Lo: 0.1, Hi: 0.4}),
		selectModel("best", PI, 0.5, &Interval{Lo: 0.35, Hi: 0.65}),
		selectModel("worst", PI, 0.125, &Interval{Lo: 0, Hi: 0.3}),
	}
	for _, m := range models {
		*m.Setup = EvaluateSetup{Samples: 1000, LoggedQueries: 9, Queries: 10, Slots: 3, Logging: "pa:1", RankBy: "feature:1", Candidates: 8}
	}
	models[2].Result.Estimates[PI].Warnings = []string{"few samples"}
	s, err := Rank(models, PI, IntervalBernstein, 0.1, "x.log")
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

func (fakePolicies) Logging(context.Context, *data.LogReader, *data.Dataset) (*SelectLogging, error) {
	return nil, errors.New("not used")
}

func (fakePolicies) Target(context.Context, string, *SelectLogging) (*Target, error) {
	return nil, errors.New("not used")
}

func TestParseSelectModels(t *testing.T) {
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
		specs, err := ParseSelectModels(tc.list, fakePolicies{}, tc.labelled)
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
	if _, err := ParseSelectModels("x=y", fakePolicies{}, false); err == nil || !strings.HasPrefix(err.Error(), "--models x=y: ") || strings.Contains(err.Error(), "no model file") {
		t.Errorf("x=y: %v", err)
	}
}

func TestSelectConfigCheck(t *testing.T) {
	base := SelectConfig{Models: []SelectSpec{{Name: "a"}}, Estimator: " WPI", Interval: "Bootstrap", Intervals: Intervals{Bootstrap: 10}}
	c := base
	if err := c.check(); err != nil || c.Estimator != WPI || c.Interval != IntervalBootstrap {
		t.Errorf("check: %v, estimator %q, interval %q", err, c.Estimator, c.Interval)
	}
	for _, tc := range []struct {
		edit func(*SelectConfig)
		want string
	}{
		{func(c *SelectConfig) { c.Models = nil }, "--models: no model to rank"},
		{func(c *SelectConfig) { c.Estimator = "dm" }, `--estimator "dm": want pi, wpi, ips, wips`},
		{func(c *SelectConfig) { c.Interval = "normal" }, "--interval: unknown interval"},
		{func(c *SelectConfig) { c.Intervals.Bootstrap = 0 }, "--interval bootstrap needs --bootstrap > 0"},
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
	if _, err := readLogHeader(empty, nil); err == nil || !strings.HasPrefix(err.Error(), empty+": empty file") {
		t.Errorf("empty log: %v", err)
	}
	if _, err := readLogHeader(filepath.Join(dir, "none.log"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing log: %v", err)
	}
}

// TestEvaluateLogsMatchesEvaluateLog: two targets evaluated in one pass,
// with one thread or three, give each exactly its own EvaluateLog result.
func TestEvaluateLogsMatchesEvaluateLog(t *testing.T) {
	ds := testData([]int{3, 5, 8, 4, 6, 7}, 3, 4)
	s := setup(t, ds, 5, 2, "pa:1")
	sc3, _ := ranker.FeatureSource(3).Scores(context.Background(), ds)
	t3, err := TopTarget("feature:3", s.Candidates, 2, sc3)
	if err != nil {
		t.Fatal(err)
	}
	s3 := s
	s3.Target = t3
	// A log of random candidate slates (batchRecords+ records, so that
	// more than one batch is handed to the evaluators).
	rng := rand.New(rand.NewPCG(9, 9))
	var b bytes.Buffer
	lw, err := data.NewLogWriter(&b, data.Header{"slots": "2", "logging": "pa:1"}, ds)
	if err != nil {
		t.Fatal(err)
	}
	for range batchRecords + 500 {
		q := rng.IntN(ds.NumQueries())
		docs, perm := s.Candidates.Docs(q), rng.Perm(s.Candidates.Size(q))
		slate := []int32{docs[perm[0]], docs[perm[1]]}
		if err := lw.Write(ds.QIDs[q], q, slate, rng.Float64()); err != nil {
			t.Fatal(err)
		}
	}
	open := func() *data.LogReader {
		lr, err := data.NewLogReader(bytes.NewReader(b.Bytes()), "x.log", ds)
		if err != nil {
			t.Fatal(err)
		}
		return lr
	}
	opt := EvalOptions{Estimators: Estimators{PI: true, WPI: true, IPS: true, WIPS: true},
		Intervals: Intervals{Delta: 0.05, Bootstrap: 20, Seed: 3, RewardLo: 0, RewardHi: 1}}
	var alone []*Result
	for _, st := range []Setup{s, s3} {
		res, err := prepare(t, st).EvaluateLog(context.Background(), open(), LogEvaluation{Options: opt})
		if err != nil {
			t.Fatal(err)
		}
		alone = append(alone, res)
	}
	if alone[0].Estimates[PI].Value == alone[1].Estimates[PI].Value {
		t.Fatal("the two targets have the same PI estimate: the test would not tell them apart")
	}
	for _, threads := range []int{1, 3} {
		s.Threads, s3.Threads = threads, threads
		both, err := EvaluateLogs(context.Background(), []*Plan{prepare(t, s), prepare(t, s3)}, open(), LogEvaluation{Options: opt})
		if err != nil {
			t.Fatal(err)
		}
		for i := range both {
			if !reflect.DeepEqual(both[i], alone[i]) {
				t.Errorf("threads %d, target %d: one pass %+v, alone %+v", threads, i, both[i].Estimates[PI], alone[i].Estimates[PI])
			}
		}
	}
}
