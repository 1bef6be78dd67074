package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/data/xgbmodel"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/internal/xgbmodeltest"
	"github.com/piopt/piopt/ranker"
)

// exactRandomERR enumerates every ordered slate of min(k, m) documents: an
// independent check of eval.RandomERR.
func exactRandomERR(labels []uint8, k int, c eval.Conventions) float64 {
	m := len(labels)
	l := min(k, m)
	slate := make([]int32, l)
	used := make([]bool, m)
	sum, n := 0.0, 0
	var rec func(j int)
	rec = func(j int) {
		if j == l {
			sum += eval.ERR(labels, slate, k, c)
			n++
			return
		}
		for a := range m {
			if !used[a] {
				used[a] = true
				slate[j] = int32(a)
				rec(j + 1)
				used[a] = false
			}
		}
	}
	rec(0)
	return sum / float64(n)
}

func evalFixture(t *testing.T) (*ranker.Model, *ranker.Model) {
	pi := handPIOPT(t)
	// SUP: score = feature 2 ≥ 5.
	sup, err := ranker.ParseModel(xgbmodeltest.JSON(newXGB(features.KindSUP, 2, 0, 0, xgbmodeltest.Stump(2, 1, 5, 0, 1))), "sup.json")
	if err != nil {
		t.Fatal(err)
	}
	return pi, sup
}

func TestRankModels(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ds := testDataset(rng, 2, 6, 4, 2, 1, 8, 3)
	pi, sup := evalFixture(t)
	conv := eval.Conventions{MaxRel: 4}
	rep, err := RankModels(context.Background(), ds, []*ranker.Model{pi, sup}, RankOptions{Conventions: conv, Seed: 7, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Slots != 3 || rep.Queries != 6 || strings.Join(rep.Policies, ",") != "pi-opt,sup,random" {
		t.Fatalf("slots %d queries %d policies %v", rep.Slots, rep.Queries, rep.Policies)
	}
	// Model policies: the mean of eval.NDCG / eval.ERR over the slates.
	for _, p := range []string{"pi-opt", "sup"} {
		var nd, er float64
		r := rep.Rankings[p]
		for q := range ds.NumQueries() {
			nd += eval.NDCG(ds.QueryLabels(q), r.Slate(q), 3, conv)
			er += eval.ERR(ds.QueryLabels(q), r.Slate(q), 3, conv)
		}
		if got := rep.Mean["ndcg@3"][p]; math.Abs(got-nd/6) > 1e-12 {
			t.Errorf("%s ndcg@3 %v, want %v", p, got, nd/6)
		}
		if got := rep.Mean["err@3"][p]; math.Abs(got-er/6) > 1e-12 {
			t.Errorf("%s err@3 %v, want %v", p, got, er/6)
		}
	}
	// Random: exact NDCG and ERR, per query and in the mean.
	var nd, er float64
	for q := range ds.NumQueries() {
		nd += eval.RandomNDCG(ds.QueryLabels(q), 3, conv)
		e := exactRandomERR(ds.QueryLabels(q), 3, conv)
		er += e
		if got := rep.PerQuery["err@3"]["random"][q]; math.Abs(got-e) > 1e-12 {
			t.Errorf("query %d: random err@3 %v, enumeration %v", q, got, e)
		}
	}
	if got := rep.Mean["ndcg@3"]["random"]; math.Abs(got-nd/6) > 1e-12 {
		t.Errorf("random ndcg@3 %v, want %v", got, nd/6)
	}
	if got := rep.Mean["err@3"]["random"]; math.Abs(got-er/6) > 1e-12 {
		t.Errorf("random err@3 %v, enumeration %v", got, er/6)
	}
	for _, m := range []string{"ndcg@3", "err@3"} {
		if se, ok := rep.RandomStderr[m]; !ok || se != 0 {
			t.Errorf("random %s is exact: stderr %v (present %v), want 0", m, se, ok)
		}
	}
	if rep.Seed != 7 {
		t.Errorf("seed %d: not recorded", rep.Seed)
	}
	if rep.GreedyVsExact == nil || rep.GreedyVsExact.Queries != 6 {
		t.Fatalf("greedy vs exact: %+v", rep.GreedyVsExact)
	}

	// Same seed, same report.
	rep2, err := RankModels(context.Background(), ds, []*ranker.Model{pi, sup}, RankOptions{Conventions: conv, Seed: 7, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	j1, _ := json.Marshal(rep)
	j2, _ := json.Marshal(rep2)
	if !bytes.Equal(j1, j2) {
		t.Error("same seed, different summaries")
	}

	// Seed is only recorded: random values do not move.
	rep3, err := RankModels(context.Background(), ds, []*ranker.Model{pi, sup}, RankOptions{Conventions: conv, Seed: 99, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep3.Seed != 99 {
		t.Errorf("seed %d", rep3.Seed)
	}
	for _, m := range []string{"ndcg@3", "err@3"} {
		if !slices.Equal(rep3.PerQuery[m]["random"], rep.PerQuery[m]["random"]) || rep3.Mean[m]["random"] != rep.Mean[m]["random"] {
			t.Errorf("%s: random values depend on the seed", m)
		}
	}
}

func TestRankReportJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ds := testDataset(rng, 2, 6, 4, 2)
	pi, sup := evalFixture(t)
	rep, err := RankModels(context.Background(), ds, []*ranker.Model{pi, sup}, RankOptions{Conventions: eval.Conventions{MaxRel: 4}, Slate: ranker.SlateExact})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"conventions", "slots", "queries", "slate", "models", "ndcg@3", "err@3", "err@3_random_stderr", "greedy_vs_exact"} {
		if _, ok := got[k]; !ok {
			t.Errorf("summary lacks %q: %s", k, b)
		}
	}
	if got["slate"] != "exact" || got["slots"] != 3.0 || got["queries"] != 3.0 {
		t.Errorf("summary: %s", b)
	}
	for _, m := range []string{"ndcg@3", "err@3"} {
		v := got[m].(map[string]any)
		for _, p := range []string{"pi-opt", "sup", "random"} {
			if _, ok := v[p].(float64); !ok {
				t.Errorf("%s lacks %s: %s", m, p, b)
			}
		}
	}
	if got["err@3_random_stderr"] != 0.0 || got["random_samples"] != 1000.0 || got["seed"] != 0.0 {
		t.Errorf("random ERR is exact: stderr %v, random_samples %v, seed %v", got["err@3_random_stderr"], got["random_samples"], got["seed"])
	}
	c := got["conventions"].(map[string]any)
	if c["discount"] != "1/log2(j+1)" || c["empty-query-ndcg"] != 0.0 || c["err-maxrel"] != 4.0 {
		t.Errorf("conventions: %v", c)
	}
	if !strings.HasPrefix(string(b), `{"data":"test","conventions":`) {
		t.Errorf("key order: %.60s", b)
	}

	var tsv bytes.Buffer
	if err := rep.WritePerQuery(&tsv, ds); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(tsv.String(), "\n"), "\n")
	if len(lines) != 4 || lines[0] != "qid\tdocs\tndcg@3:pi-opt\tndcg@3:sup\tndcg@3:random\terr@3:pi-opt\terr@3:sup\terr@3:random" {
		t.Errorf("per-query:\n%s", tsv.String())
	}
	if f := strings.Split(lines[2], "\t"); len(f) != 8 || f[0] != "101" || f[1] != "4" || f[2] != fmt.Sprint(rep.PerQuery["ndcg@3"]["pi-opt"][1]) {
		t.Errorf("per-query line: %q", lines[2])
	}

	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "discount=1/log2(j+1) empty-query-ndcg=0 err-maxrel=4") || !strings.Contains(table.String(), "greedy vs exact") || strings.Contains(table.String(), "±") {
		t.Errorf("table:\n%s", table.String())
	}
}

func TestRankModelsErrors(t *testing.T) {
	ds := testDataset(rand.New(rand.NewPCG(1, 2)), 2, 3)
	pi, _ := evalFixture(t)
	if _, err := RankModels(context.Background(), ds, []*ranker.Model{pi, pi}, RankOptions{}); err == nil {
		t.Error("two pi-opt models: no error")
	}
	if _, err := RankModels(context.Background(), ds, []*ranker.Model{pi}, RankOptions{Slots: 4}); err == nil {
		t.Error("4 slots from a 3-slot model: no error")
	}
}

func TestRankModelsNames(t *testing.T) {
	ds := testDataset(rand.New(rand.NewPCG(1, 2)), 2, 3, 5)
	pi, _ := evalFixture(t)
	rep, err := RankModels(context.Background(), ds, []*ranker.Model{pi, pi}, RankOptions{Names: []string{"pi-opt-ndcg", "pi-opt-err"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Policies, ",") != "pi-opt-ndcg,pi-opt-err,random" || rep.Mean["ndcg@3"]["pi-opt-ndcg"] != rep.Mean["ndcg@3"]["pi-opt-err"] {
		t.Errorf("policies %v, means %v", rep.Policies, rep.Mean)
	}
	if _, err := RankModels(context.Background(), ds, []*ranker.Model{pi}, RankOptions{Names: []string{"random"}}); err == nil {
		t.Error("a model named random: no error")
	}
}

// Test helpers, as ranker's: hand-made XGBoost models (written in XGBoost
// 1.7's own layouts by xgbmodeltest) carrying piopt's metadata, and
// datasets.

// newXGB returns a regression model of the given trees with piopt's
// metadata for kind, features and slots.
func newXGB(kind string, nfeat, slots int, base float32, trees ...xgbmodel.Tree) *xgbmodel.Model {
	return &xgbmodel.Model{
		BaseScore: base, NumFeature: uint32(nfeat + slots),
		Objective: "reg:squarederror", Booster: "gbtree", Trees: trees,
		Attrs: features.Meta{Kind: kind, Slots: slots, Features: nfeat, Metric: "ndcg@3", Targets: "test"}.Attrs(),
	}
}

// handPIOPT is a PI-OPT model whose score is known by hand: 10 in slot 1,
// 20 in slot 2, plus 1 when feature 1 ≥ 5, plus the base score 0.5.
func handPIOPT(t *testing.T) *ranker.Model {
	F, L := 2, 3
	xm := newXGB(features.KindPIOPT, F, L, 0.5,
		xgbmodeltest.Stump(F+L, uint32(F+0), 0.5, 0, 10),
		xgbmodeltest.Stump(F+L, uint32(F+1), 0.5, 0, 20),
		xgbmodeltest.Stump(F+L, 0, 5, 0, 1),
	)
	m, err := ranker.ParseModel(xgbmodeltest.Binary(xm), "hand-binary")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// testDataset builds a dataset with the given query sizes, integer-valued
// features in 0..9 and labels in 0..4.
func testDataset(rng *rand.Rand, nfeat int, sizes ...int) *data.Dataset {
	ds := &data.Dataset{NumFeatures: nfeat, QueryOffsets: []int{0}, Source: "test"}
	for q, m := range sizes {
		ds.QIDs = append(ds.QIDs, strconv.Itoa(100+q))
		for range m {
			ds.Labels = append(ds.Labels, uint8(rng.IntN(5)))
			for range nfeat {
				ds.Features = append(ds.Features, float32(rng.IntN(10)))
			}
		}
		ds.QueryOffsets = append(ds.QueryOffsets, len(ds.Labels))
	}
	return ds
}
