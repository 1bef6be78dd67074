package policy

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
)

// twoQueries has queries a (3 docs) and b (2 docs); feature 1 ranks a's
// docs 2, 0, 1 and b's docs 1, 0.
func twoQueries() *data.Dataset {
	return &data.Dataset{NumFeatures: 1, Features: []float32{5, 1, 9, 2, 7}, Labels: []uint8{0, 1, 2, 0, 1},
		QueryOffsets: []int{0, 3, 5}, QIDs: []string{"a", "b"}, Source: "dir/two.txt"}
}

func TestParseSetup(t *testing.T) {
	s, err := ParseSetup(Flags{Slots: 2, Logging: "eps:0.5,pa:1", RankBy: "tree:url-side", Candidates: 8})
	if err != nil {
		t.Fatal(err)
	}
	// The rank source is kept in its canonical spelling.
	if s.Slots != 2 || s.Logging.String() != "eps:0.5,pa:1" || s.RankBy != "tree:url-side@6" || s.Limit != 8 {
		t.Fatalf("ParseSetup = %+v", s)
	}
	// A candidate limit needs no rank source: documents keep their order.
	if _, err := ParseSetup(Flags{Slots: 2, Logging: "uniform", Candidates: 2}); err != nil {
		t.Fatalf("limit without rank source: %v", err)
	}
	for _, tc := range []struct {
		f    Flags
		want string
	}{
		{Flags{Slots: 0, Logging: "uniform"}, "--slots 0: must be in 1.."},
		{Flags{Slots: 2, Logging: "zipf"}, "--logging: "},
		{Flags{Slots: 2, Logging: "uniform", Candidates: -1}, "--candidates -1: must be ≥ 0"},
		{Flags{Slots: 2, Logging: "pa:1"}, "--logging pa:1 ranks documents: give --rank-by"},
		{Flags{Slots: 2, Logging: "uniform", RankBy: "forest:x"}, "--rank-by: "},
	} {
		if _, err := ParseSetup(tc.f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseSetup(%+v) error %v, want %q", tc.f, err, tc.want)
		}
	}
}

// TestSetupCandidates: feature 1 orders each query's documents; the limit
// keeps the top ones (or the first by position without a rank source).
func TestSetupCandidates(t *testing.T) {
	ds := twoQueries()
	for _, tc := range []struct {
		rankBy string
		limit  int
		a, b   []int32
	}{
		{"feature:1", 2, []int32{2, 0}, []int32{1, 0}},
		{"feature:1", 0, []int32{2, 0, 1}, []int32{1, 0}},
		{"", 2, []int32{0, 1}, []int32{0, 1}},
	} {
		c, err := Setup{Slots: 2, RankBy: tc.rankBy, Limit: tc.limit}.Candidates(context.Background(), ds, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(c.Docs(0), tc.a) || !slices.Equal(c.Docs(1), tc.b) {
			t.Errorf("%q limit %d: candidates %v %v, want %v %v", tc.rankBy, tc.limit, c.Docs(0), c.Docs(1), tc.a, tc.b)
		}
	}
	// A failing rank source names where it came from.
	sourceErrors(t, ds, Flags{Slots: 2, Logging: "uniform", RankBy: "feature:3"}, "rank-by=feature:3", "--rank-by", "rank-by")
}

// sourceErrors checks that a rank source failing on ds (feature:3 of a
// dataset with fewer features), given as flags f or in a log header as
// key=value, names the flag or header key it came from.
func sourceErrors(t *testing.T, ds *data.Dataset, f Flags, header, flag, key string) {
	t.Helper()
	s, err := ParseSetup(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Candidates(context.Background(), ds, Options{}); err == nil || !strings.HasPrefix(err.Error(), flag+": rank source feature:3: ") {
		t.Errorf("%s feature:3: error %v", flag, err)
	}
	lr, err := data.NewLogReader(strings.NewReader("# piopt-log v1 slots=2 logging=uniform "+header+"\n"), "x.log", ds)
	if err != nil {
		t.Fatal(err)
	}
	if s, _, err = ReadSetup(lr, Flags{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Candidates(context.Background(), ds, Options{}); err == nil || !strings.HasPrefix(err.Error(), "x.log: header "+key+"=feature:3: rank source feature:3: ") {
		t.Errorf("header %s: error %v", header, err)
	}
}

// TestSetupHeaderRoundTrip: the header a setup writes is a log header
// ReadSetup reads back to the same setup, and its line is fixed.
func TestSetupHeaderRoundTrip(t *testing.T) {
	ds := twoQueries()
	s, err := ParseSetup(Flags{Slots: 2, Logging: "pa:1", RankBy: "feature:1", Candidates: 2})
	if err != nil {
		t.Fatal(err)
	}
	m := eval.Metric{Kind: eval.KindNDCG, K: 2, Conventions: eval.Conventions{MaxRel: 2}}
	h := s.Header(ds.Source, ds, m, 10, 7)
	const want = "# piopt-log v1 slots=2 metric=ndcg@2 logging=pa:1 rank-by=feature:1 candidates=2 samples=10 seed=7" +
		" data=two.txt queries=2 docs=5 discount=1/log2(j+1) empty-query-ndcg=0 err-maxrel=2"
	if got := h.Format(data.LogMagic); got != want {
		t.Fatalf("header\n%s\nwant\n%s", got, want)
	}
	lr, err := data.NewLogReader(strings.NewReader(h.Format(data.LogMagic)+"\n"), "x.log", ds)
	if err != nil {
		t.Fatal(err)
	}
	back, metric, err := ReadSetup(lr, Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if back.Slots != s.Slots || back.Logging != s.Logging || back.RankBy != s.RankBy || back.Limit != s.Limit || metric != "ndcg@2" {
		t.Fatalf("ReadSetup = %+v, %q; want %+v, ndcg@2", back, metric, s)
	}
}

// TestReadSetupChecksFlags: every given flag must agree with the header,
// and the error names both.
func TestReadSetupChecksFlags(t *testing.T) {
	ds := twoQueries()
	const line = "# piopt-log v1 slots=2 metric=ndcg@2 logging=pa:1 rank-by=tree:url-side@6 candidates=2\n"
	open := func(line string) *data.LogReader {
		lr, err := data.NewLogReader(strings.NewReader(line), "x.log", ds)
		if err != nil {
			t.Fatal(err)
		}
		return lr
	}
	// Flags that agree, the rank source in another spelling of the same.
	ok := Flags{Slots: 2, Logging: "pa:1", RankBy: "tree:url-side", Candidates: 2, Metric: "ndcg",
		SlotsSet: true, LoggingSet: true, RankBySet: true, CandidatesSet: true, MetricSet: true}
	if _, metric, err := ReadSetup(open(line), ok); err != nil || metric != "ndcg" {
		t.Fatalf("agreeing flags: metric %q, error %v", metric, err)
	}
	for _, tc := range []struct {
		f    Flags
		want string
	}{
		{Flags{Slots: 3, SlotsSet: true}, "x.log:1: bad header: header slots=2 but --slots 3"},
		{Flags{Logging: "uniform", LoggingSet: true}, "header logging=pa:1 but --logging uniform"},
		{Flags{RankBy: "feature:1", RankBySet: true}, "header rank-by=tree:url-side@6 but --rank-by feature:1"},
		{Flags{Candidates: 5, CandidatesSet: true}, "header candidates=2 but --candidates 5"},
		{Flags{Metric: "err", MetricSet: true}, "header metric=ndcg@2 but --metric err"},
	} {
		if _, _, err := ReadSetup(open(line), tc.f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.f, err, tc.want)
		}
	}
	for bad, want := range map[string]string{
		"# piopt-log v1 slots=2 logging=pa:1\n":                  "logging pa:1 ranks documents but the header has no rank-by=",
		"# piopt-log v1 slots=2 logging=zipf\n":                  "bad header",
		"# piopt-log v1 slots=2 logging=uniform candidates=-1\n": "candidates -1: must be ≥ 0",
		"# piopt-log v1 slots=2 logging=uniform candidates=x\n":  "bad header",
	} {
		if _, _, err := ReadSetup(open(bad), Flags{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", bad, err, want)
		}
	}
	// A slot count out of range is refused by the reader, before it is used.
	if _, err := data.NewLogReader(strings.NewReader("# piopt-log v1 slots=99999 logging=uniform candidates=0\n"), "x.log", ds); err == nil ||
		!strings.Contains(err.Error(), "slots=99999: must be in 1..255") {
		t.Errorf("slots=99999: error %v", err)
	}
}
