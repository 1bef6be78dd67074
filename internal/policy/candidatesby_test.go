package policy

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/ranker"
)

// twoFeatures has query a (5 docs) and query b (2 docs), two features:
//
//	a: feature 1 = 3 9 1 7 5  → order 1 3 4 0 2
//	   feature 2 = 10 2 8 6 4 → order 0 2 3 4 1
//	b: feature 1 = 1 2 → order 1 0;  feature 2 = 5 0 → order 0 1
func twoFeatures() *data.Dataset {
	return &data.Dataset{NumFeatures: 2,
		Features: []float32{3, 10, 9, 2, 1, 8, 7, 6, 5, 4, 1, 5, 2, 0},
		Labels:   []uint8{0, 1, 2, 0, 1, 2, 0}, QueryOffsets: []int{0, 5, 7}, QIDs: []string{"a", "b"}, Source: "dir/x.txt"}
}

// TestSetupCandidatesBy: CandidatesBy picks each query's top Limit
// documents, RankBy orders them (CandidatesBy's order without RankBy); a
// query with fewer documents keeps them all.
func TestSetupCandidatesBy(t *testing.T) {
	ds := twoFeatures()
	for _, tc := range []struct {
		candidatesBy, rankBy string
		limit                int
		a, b                 []int32
	}{
		// Top 3 by feature 1 are {1, 3, 4}; feature 2 ranks them 3, 4, 1.
		{"feature:1", "feature:2", 3, []int32{3, 4, 1}, []int32{0, 1}},
		{"feature:1", "", 3, []int32{1, 3, 4}, []int32{1, 0}},
		// Top 3 by feature 2 are {0, 2, 3}; feature 1 ranks them 3, 0, 2.
		{"feature:2", "feature:1", 3, []int32{3, 0, 2}, []int32{1, 0}},
		{"feature:1", "feature:1", 3, []int32{1, 3, 4}, []int32{1, 0}},
		{"feature:1", "feature:2", 1, []int32{1}, []int32{1}},
		{"feature:2", "feature:1", 5, []int32{1, 3, 4, 0, 2}, []int32{1, 0}},
		// Without CandidatesBy, RankBy both picks and orders.
		{"", "feature:2", 3, []int32{0, 2, 3}, []int32{0, 1}},
		{"", "feature:1", 3, []int32{1, 3, 4}, []int32{1, 0}},
		{"", "", 3, []int32{0, 1, 2}, []int32{0, 1}},
	} {
		s := Setup{Slots: 2, RankBy: tc.rankBy, CandidatesBy: tc.candidatesBy, Limit: tc.limit}
		c, err := s.Candidates(context.Background(), ds, Options{})
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if !slices.Equal(c.Docs(0), tc.a) || !slices.Equal(c.Docs(1), tc.b) {
			t.Errorf("candidates by %q, rank by %q, limit %d: %v %v, want %v %v",
				tc.candidatesBy, tc.rankBy, tc.limit, c.Docs(0), c.Docs(1), tc.a, tc.b)
		}
	}
}

// TestSetupCandidatesByEmptyUnchanged: without CandidatesBy the candidates
// are exactly those of RankBy's order cut at Limit, as before it existed.
func TestSetupCandidatesByEmptyUnchanged(t *testing.T) {
	ds := twoFeatures()
	for _, rankBy := range []string{"", "feature:1", "feature:2"} {
		for _, limit := range []int{0, 1, 3, 9} {
			var order []int32
			if rankBy != "" {
				src, err := Resolve(rankBy, Options{})
				if err != nil {
					t.Fatal(err)
				}
				scores, err := src.Scores(context.Background(), ds)
				if err != nil {
					t.Fatal(err)
				}
				order = ranker.Order(ds, scores)
			}
			want, err := impute.NewCandidates(ds, order, limit)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Setup{Slots: 2, RankBy: rankBy, Limit: limit}.Candidates(context.Background(), ds, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for q := range ds.NumQueries() {
				if !slices.Equal(got.Docs(q), want.Docs(q)) {
					t.Errorf("rank by %q, limit %d, query %d: %v, want %v", rankBy, limit, q, got.Docs(q), want.Docs(q))
				}
			}
		}
	}
}

// TestSetupCandidatesByScores: a Plackett–Luce policy draws by RankBy's
// scores of the candidates CandidatesBy picked, in RankBy's order.
func TestSetupCandidatesByScores(t *testing.T) {
	ds := twoFeatures()
	lg, err := impute.ParseLogging("pl:1")
	if err != nil {
		t.Fatal(err)
	}
	s := Setup{Slots: 2, Logging: lg, RankBy: "feature:2", CandidatesBy: "feature:1", Limit: 3}
	c, gc, err := s.Policies(context.Background(), ds, Options{}, impute.GammaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Docs(0), []int32{3, 4, 1}) || !slices.Equal(gc.Dist(0).Scores(), []float64{6, 4, 2}) {
		t.Errorf("pl candidates %v scores %v, want [3 4 1] [6 4 2]", c.Docs(0), gc.Dist(0).Scores())
	}
	if !slices.Equal(c.Docs(1), []int32{0, 1}) || !slices.Equal(gc.Dist(1).Scores(), []float64{5, 0}) {
		t.Errorf("pl candidates %v scores %v, want [0 1] [5 0]", c.Docs(1), gc.Dist(1).Scores())
	}
}

func TestParseSetupCandidatesBy(t *testing.T) {
	s, err := ParseSetup(Flags{Slots: 2, Logging: "pa:1", RankBy: "lasso:title", Candidates: 4, CandidatesBy: "tree:title"})
	if err != nil {
		t.Fatal(err)
	}
	// Both rank sources are kept in their canonical spelling.
	if s.RankBy != "lasso:title@0.01" || s.CandidatesBy != "tree:title@6" || s.Limit != 4 {
		t.Fatalf("ParseSetup = %+v", s)
	}
	// Uniform logging needs no --rank-by: the candidates keep CandidatesBy's order.
	if s, err = ParseSetup(Flags{Slots: 2, Logging: "uniform", Candidates: 4, CandidatesBy: "feature:1"}); err != nil || s.RankBy != "" || s.CandidatesBy != "feature:1" {
		t.Fatalf("uniform: %+v, %v", s, err)
	}
	for _, tc := range []struct {
		f    Flags
		want string
	}{
		{Flags{Slots: 2, Logging: "uniform", CandidatesBy: "feature:1"}, "--candidates-by needs --candidates M"},
		{Flags{Slots: 2, Logging: "uniform", Candidates: 0, CandidatesBy: "tree:title", CandidatesSet: true}, "--candidates-by needs --candidates M"},
		{Flags{Slots: 2, Logging: "uniform", Candidates: 3, CandidatesBy: "forest:x"}, "--candidates-by: "},
		{Flags{Slots: 2, Logging: "uniform", Candidates: 3, CandidatesBy: "tree:title@0"}, "--candidates-by: "},
		// --logging pa still needs --rank-by: --candidates-by does not order.
		{Flags{Slots: 2, Logging: "pa:1", Candidates: 3, CandidatesBy: "feature:1"}, "--logging pa:1 ranks documents: give --rank-by"},
	} {
		if _, err := ParseSetup(tc.f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseSetup(%+v) error %v, want %q", tc.f, err, tc.want)
		}
	}
}

// TestSetupCandidatesByErrors: a failing CandidatesBy names its flag or
// header key, and a Setup built without a limit is refused.
func TestSetupCandidatesByErrors(t *testing.T) {
	ds := twoFeatures()
	sourceErrors(t, ds, Flags{Slots: 2, Logging: "uniform", Candidates: 2, CandidatesBy: "feature:3"},
		"candidates=2 candidates-by=feature:3", "--candidates-by", "candidates-by")
	if _, err := (Setup{Slots: 2, CandidatesBy: "feature:1"}).Candidates(context.Background(), ds, Options{}); err == nil || !strings.Contains(err.Error(), "needs a limit") {
		t.Errorf("no limit: error %v", err)
	}
}

// TestSetupCandidatesByHeader: the header records candidates-by=, ReadSetup
// reads it back to the same candidates and checks --candidates-by against it.
func TestSetupCandidatesByHeader(t *testing.T) {
	ds := twoFeatures()
	s, err := ParseSetup(Flags{Slots: 2, Logging: "pa:1", RankBy: "feature:2", Candidates: 3, CandidatesBy: "feature:1"})
	if err != nil {
		t.Fatal(err)
	}
	m := eval.Metric{Kind: eval.KindNDCG, K: 2, Conventions: eval.Conventions{MaxRel: 2}}
	h := s.Header(ds.Source, ds, m, 10, 7)
	const want = "# piopt-log v1 slots=2 metric=ndcg@2 logging=pa:1 rank-by=feature:2 candidates=3 samples=10 seed=7" +
		" data=x.txt queries=2 docs=7 discount=1/log2(j+1) empty-query-ndcg=0 err-maxrel=2 candidates-by=feature:1"
	if got := h.Format(data.LogMagic); got != want {
		t.Fatalf("header\n%s\nwant\n%s", got, want)
	}
	// Without CandidatesBy the header has no candidates-by= key.
	if _, ok := (Setup{Slots: 2, RankBy: "feature:2", Limit: 3}).Header(ds.Source, ds, m, 10, 7)["candidates-by"]; ok {
		t.Fatal("candidates-by= written without CandidatesBy")
	}
	open := func(line string) *data.LogReader {
		lr, err := data.NewLogReader(strings.NewReader(line+"\n"), "x.log", ds)
		if err != nil {
			t.Fatal(err)
		}
		return lr
	}
	back, _, err := ReadSetup(open(want), Flags{CandidatesBy: "feature:1", CandidatesBySet: true, Candidates: 3, CandidatesSet: true})
	if err != nil {
		t.Fatal(err)
	}
	if back.CandidatesBy != "feature:1" || back.RankBy != "feature:2" || back.Limit != 3 {
		t.Fatalf("ReadSetup = %+v", back)
	}
	c, err := back.Candidates(context.Background(), ds, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Docs(0), []int32{3, 4, 1}) {
		t.Errorf("candidates read back %v, want [3 4 1]", c.Docs(0))
	}
	const tree = "# piopt-log v1 slots=2 logging=uniform candidates=3 candidates-by=tree:title@6"
	if _, _, err := ReadSetup(open(tree), Flags{CandidatesBy: "tree:title", CandidatesBySet: true}); err != nil {
		t.Errorf("another spelling of the same source: %v", err)
	}
	for _, tc := range []struct {
		line string
		f    Flags
		want string
	}{
		{tree, Flags{CandidatesBy: "feature:1", CandidatesBySet: true}, "x.log:1: bad header: header candidates-by=tree:title@6 but --candidates-by feature:1"},
		{"# piopt-log v1 slots=2 logging=uniform candidates=3", Flags{CandidatesBy: "feature:1", CandidatesBySet: true}, "header candidates-by= but --candidates-by feature:1"},
		{"# piopt-log v1 slots=2 logging=uniform candidates-by=feature:1", Flags{}, "candidates-by=feature:1 needs candidates= > 0"},
		// A log whose policy file gives the logging policy takes no --candidates-by.
		{"# piopt-log v1 slots=2 policy=p.policy", Flags{CandidatesBy: "feature:1", CandidatesBySet: true}, "--candidates-by: the log's policy file gives the logging policy; leave --candidates-by out"},
		{"# piopt-log v1 slots=2 logging=uniform", Flags{Policy: "p.policy", CandidatesBy: "feature:1", CandidatesBySet: true}, "--candidates-by: the log's policy file gives the logging policy"},
	} {
		if _, _, err := ReadSetup(open(tc.line), tc.f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q %+v: error %v, want %q", tc.line, tc.f, err, tc.want)
		}
	}
}
