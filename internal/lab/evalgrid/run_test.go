package evalgrid

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/piopt/piopt/internal/lab/sweep"
	"github.com/piopt/piopt/internal/provenance"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/ope"
)

// handMade is a dataset of queries with the given document counts, three
// features that rank documents differently, and grades 0..4.
func handMade(sizes ...int) *data.Dataset {
	ds := &data.Dataset{NumFeatures: 3, QueryOffsets: []int{0}, Source: "hand-made"}
	i := 0
	for q, n := range sizes {
		for d := range n {
			ds.Features = append(ds.Features, float32((d*7+q)%11), float32((d*5+3)%13), float32(n-d))
			ds.Labels = append(ds.Labels, uint8((d*3+q)%5))
			i++
		}
		ds.QIDs = append(ds.QIDs, string(rune('a'+q)))
		ds.QueryOffsets = append(ds.QueryOffsets, i)
	}
	return ds
}

// TestKeep: queries with fewer than m documents are dropped, the others
// copied whole.
func TestKeep(t *testing.T) {
	ds := handMade(3, 1, 2)
	sub, keep := Keep(ds, 2)
	if !slices.Equal(keep, []int{0, 2}) || !slices.Equal(sub.QIDs, []string{"a", "c"}) || !slices.Equal(sub.QueryOffsets, []int{0, 3, 5}) {
		t.Fatalf("Keep(2): queries %v %v offsets %v", keep, sub.QIDs, sub.QueryOffsets)
	}
	wantLabels := append(slices.Clone(ds.Labels[0:3]), ds.Labels[4:6]...)
	wantFeat := append(slices.Clone(ds.Features[0:9]), ds.Features[12:18]...)
	if !slices.Equal(sub.Labels, wantLabels) || !slices.Equal(sub.Features, wantFeat) {
		t.Errorf("Keep(2): labels %v features %v", sub.Labels, sub.Features)
	}
	if all, keep := Keep(ds, 1); all != ds || keep != nil {
		t.Error("Keep(1) copied a dataset that keeps every query")
	}
}

// TestCandidateOrderMatchesSetup: the candidates built from scores are
// those policy.Setup builds from the same rank sources, with and without a
// logging-side order.
func TestCandidateOrderMatchesSetup(t *testing.T) {
	ds := handMade(6, 4, 9, 5)
	ctx := context.Background()
	scores := func(spec string) []float64 {
		src, err := policy.Resolve(spec, policy.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := src.Scores(ctx, ds)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, rankBy := range []string{"", "feature:2", "feature:1"} {
		for _, m := range []int{3, 5} {
			s := policy.Setup{Slots: 2, Limit: m, CandidatesBy: "feature:1", RankBy: rankBy}
			want, err := s.Candidates(ctx, ds, policy.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var rank []float64
			if rankBy != "" {
				rank = scores(rankBy)
			}
			got, err := impute.NewCandidates(ds, policy.CandidateOrder(ds, scores("feature:1"), rank, m), m)
			if err != nil {
				t.Fatal(err)
			}
			for q := range ds.NumQueries() {
				if !slices.Equal(got.Docs(q), want.Docs(q)) {
					t.Errorf("rank-by %q m %d query %d: candidates %v, Setup's %v", rankBy, m, q, got.Docs(q), want.Docs(q))
				}
			}
		}
	}
}

// tinyConfig is a grid of two conditions on hand-made data with feature
// rank sources (nothing to fit) and the streaming estimators (no DM).
func tinyConfig(t *testing.T, ds *data.Dataset, out string, seed uint64) Config {
	est, err := ope.ParseEstimators("pi,wpi,ips,onpolicy")
	if err != nil {
		t.Fatal(err)
	}
	def := Definition{Metrics: []string{"ndcg"}, Spaces: []Space{{M: 4, L: 2, Alphas: []float64{1}}},
		LoggingModels: []string{"feature:2"}, Targets: []string{"feature:1"}, CandidatesBy: "feature:3"}
	return Config{Data: ds, Conventions: eval.Conventions{MaxRel: 4}, Grid: def, Samples: 2000, Runs: 2, Seed: seed,
		MinSamples: 100, PointsPerDecade: 2, AggregateAt: []int64{500, 2000}, Estimators: est, Threads: 1, Out: out,
		Command: "test", Inputs: []provenance.Input{{Path: "hand-made", SHA256: "00", Bytes: 1}}}
}

// runGrid runs cfg and writes its files, and returns grid.json and the
// run record.
func runGrid(t *testing.T, cfg Config) ([]byte, *Report) {
	t.Helper()
	var lines []string
	cfg.Log = func(l string) { lines = append(lines, l) }
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteFiles(cfg.Out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(cfg.Out, "grid.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b, rep
}

func loadedCount(rep *Report) int {
	n := 0
	for _, c := range rep.Run.Conditions {
		if c.Loaded {
			n++
		}
	}
	return n
}

// TestRunResume: a rerun with the same settings loads every condition and
// writes the same bytes as the first run and as a fresh run elsewhere; a
// changed seed reruns them, with other results.
func TestRunResume(t *testing.T) {
	ds := handMade(6, 4, 9, 3, 5)
	out := t.TempDir()
	first, rep := runGrid(t, tinyConfig(t, ds, out, 1))
	if len(rep.Conditions) != 2 || loadedCount(rep) != 0 {
		t.Fatalf("first run: %d conditions, %d loaded", len(rep.Conditions), loadedCount(rep))
	}
	for _, c := range tinyConfig(t, ds, out, 1).Grid.Conditions() {
		if _, err := os.Stat(filepath.Join(out, "conditions", c.Name()+".json")); err != nil {
			t.Error(err)
		}
	}
	html1, _ := os.ReadFile(filepath.Join(out, "grid.html"))
	again, rep2 := runGrid(t, tinyConfig(t, ds, out, 1))
	if loadedCount(rep2) != 2 {
		t.Errorf("rerun loaded %d of 2 conditions", loadedCount(rep2))
	}
	html2, _ := os.ReadFile(filepath.Join(out, "grid.html"))
	if !bytes.Equal(first, again) || !bytes.Equal(html1, html2) {
		t.Error("a resumed run wrote other bytes than the first")
	}
	fresh, _ := runGrid(t, tinyConfig(t, ds, t.TempDir(), 1))
	if !bytes.Equal(first, fresh) {
		t.Error("two fresh runs with the same seed wrote other bytes")
	}
	other, rep3 := runGrid(t, tinyConfig(t, ds, out, 2))
	if loadedCount(rep3) != 0 {
		t.Errorf("changed seed: %d conditions loaded, want 0", loadedCount(rep3))
	}
	if bytes.Equal(first, other) || slices.Equal(rep.Conditions[0].RMSE["pi"], rep3.Conditions[0].RMSE["pi"]) {
		t.Error("changed seed: same results")
	}
}

// TestSkippedQueries: a query with fewer than m documents is left out of
// the space, counted in the JSON and the report, and the condition's true
// value is over the other queries only.
func TestSkippedQueries(t *testing.T) {
	ds := handMade(6, 4, 9, 3, 5, 2)
	cfg := tinyConfig(t, ds, t.TempDir(), 1)
	b, rep := runGrid(t, cfg)
	var got struct {
		Spaces []SpaceInfo `json:"spaces"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Spaces) != 1 || got.Spaces[0].Skipped != 2 || got.Spaces[0].Queries != 4 {
		t.Errorf("spaces %+v, want 2 skipped, 4 kept", got.Spaces)
	}
	if l := rep.SkippedLines(); len(l) != 1 || l[0] != "2 of 6 queries skipped for (4,2): fewer than 4 documents" {
		t.Errorf("SkippedLines = %q", l)
	}
	if html, _ := os.ReadFile(filepath.Join(cfg.Out, "grid.html")); !strings.Contains(string(html), "2 of 6 queries skipped for (4,2)") {
		t.Error("grid.html does not say how many queries were skipped")
	}
	// The same condition on the kept queries alone skips none and gives
	// the same numbers.
	kept, _ := Keep(ds, 4)
	_, rep2 := runGrid(t, tinyConfig(t, kept, t.TempDir(), 1))
	for i := range rep.Conditions {
		a, b := rep.Conditions[i], rep2.Conditions[i]
		if a.TrueValue != b.TrueValue || !slices.Equal(a.RMSE["wpi"], b.RMSE["wpi"]) {
			t.Errorf("%s: V %v RMSE %v, on the kept queries %v %v", a.Name, a.TrueValue, a.RMSE["wpi"], b.TrueValue, b.RMSE["wpi"])
		}
	}
}

// TestConditionIsEvaluateSweep: a condition's sweep equals the one
// evaluate-sweep's path builds from the same specs (policy.Setup,
// policy.ResolveTarget, ope.Prepare and sweep.Sweep).
func TestConditionIsEvaluateSweep(t *testing.T) {
	ds := handMade(6, 4, 9, 5)
	cfg := tinyConfig(t, ds, t.TempDir(), 3)
	_, rep := runGrid(t, cfg)
	c := rep.Conditions[1] // pa:1 feature:2 → feature:1
	if c.Logging != "pa:1" || c.RankBy != "feature:2" {
		t.Fatalf("condition %+v", c)
	}
	ctx := context.Background()
	lg, _ := impute.ParseLogging("pa:1")
	s := policy.Setup{Slots: 2, Logging: lg, RankBy: "feature:2", Limit: 4, CandidatesBy: "feature:3"}
	cands, gammas, err := s.Policies(ctx, ds, policy.Options{}, impute.GammaOptions{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	target, err := policy.ResolveTarget(ctx, "feature:1", cands, 2, 0, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := eval.Metric{Kind: eval.KindNDCG, K: 2, Conventions: cfg.Conventions}
	plan, err := ope.Prepare(ctx, ope.Setup{Candidates: cands, Gammas: gammas, Slots: 2, Target: target,
		Scorer: eval.NewScorer(m, cands.Labels(), cands.Offsets()), Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	grid, _ := cfg.SweepGrid()
	res, err := sweep.Sweep(ctx, plan, sweep.Config{Samples: cfg.Samples, Runs: cfg.Runs, Seed: 3, Grid: grid, Estimators: cfg.Estimators, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if float64(c.TrueValue) != res.TrueValue {
		t.Errorf("V = %v, evaluate-sweep's %v", c.TrueValue, res.TrueValue)
	}
	for _, name := range res.Names {
		for g, x := range res.RMSE[name] {
			if float64(c.RMSE[name][g]) != x {
				t.Errorf("%s at n = %d: RMSE %v, evaluate-sweep's %v", name, grid[g], c.RMSE[name][g], x)
			}
		}
	}
}

// TestAggregateAtOnGrid: the aggregate sizes are grid points, and a size
// outside the sweep is refused.
func TestAggregateAtOnGrid(t *testing.T) {
	cfg := tinyConfig(t, handMade(5), "", 1)
	cfg.AggregateAt = []int64{700, 2000}
	g, err := cfg.SweepGrid()
	if err != nil || !slices.Equal(g, []int64{100, 316, 700, 1000, 2000}) {
		t.Errorf("SweepGrid = %v, %v", g, err)
	}
	cfg.AggregateAt = []int64{3000}
	if err := cfg.Check(); err == nil {
		t.Error("aggregate size above --samples: no error")
	}
}
