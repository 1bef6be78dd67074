package ranker

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
)

func TestRankPairScores(t *testing.T) {
	ds := testDataset(rand.New(rand.NewPCG(1, 1)), 1, 3, 2)
	sc := &Scores{Slots: 2, Values: []float64{
		10, 9, // query 0, doc 0
		9, 0, //  query 0, doc 1
		1, 1, //  query 0, doc 2
		5, 6, //  query 1, doc 0
		4, 7, //  query 1, doc 1
	}}
	for _, c := range []struct {
		method SlateMethod
		want   []int32
		scores []float64
	}{
		{SlateGreedy, []int32{0, 2, 0, 1}, []float64{10, 1, 5, 7}},
		{SlateExact, []int32{1, 0, 0, 1}, []float64{9, 9, 5, 7}},
	} {
		r, err := Rank(ds, sc, 2, c.method)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Offsets, []int{0, 2, 4}) || !slices.Equal(r.Docs, c.want) || !slices.Equal(r.Scores, c.scores) {
			t.Errorf("%s: offsets %v docs %v scores %v, want docs %v scores %v", c.method, r.Offsets, r.Docs, r.Scores, c.want, c.scores)
		}
	}
	// One slot of a two-slot model: only slot 1's column is used.
	r, err := Rank(ds, sc, 1, SlateGreedy)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Docs, []int32{0, 0}) {
		t.Errorf("one slot: %v", r.Docs)
	}
	if _, err := Rank(ds, sc, 3, SlateGreedy); err == nil {
		t.Error("3 slots from a 2-slot model: no error")
	}
}

func TestRankDocScores(t *testing.T) {
	ds := testDataset(rand.New(rand.NewPCG(1, 1)), 1, 4, 1)
	sc := &Scores{Values: []float64{0.5, 2, 0.5, 2, 3}}
	r, err := Rank(ds, sc, 3, SlateExact)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Docs, []int32{1, 3, 0, 0}) || !slices.Equal(r.Offsets, []int{0, 3, 4}) || !slices.Equal(r.Scores, []float64{2, 2, 0.5, 3}) {
		t.Errorf("docs %v offsets %v scores %v", r.Docs, r.Offsets, r.Scores)
	}
}

func TestRandomRanking(t *testing.T) {
	ds := testDataset(rand.New(rand.NewPCG(1, 1)), 1, 5, 2, 9, 1)
	a, b := randomRanking(ds, 3, 42), randomRanking(ds, 3, 42)
	if !slices.Equal(a.Docs, b.Docs) {
		t.Error("same seed, different slates")
	}
	if c := randomRanking(ds, 3, 43); slices.Equal(a.Docs, c.Docs) {
		t.Error("different seeds, same slates")
	}
	for q := range ds.NumQueries() {
		s := a.Slate(q)
		if len(s) != min(3, ds.QuerySize(q)) {
			t.Errorf("query %d: %d entries", q, len(s))
		}
		validSlate(t, s, ds.QuerySize(q))
	}
}

func TestWriteRun(t *testing.T) {
	ds := testDataset(rand.New(rand.NewPCG(1, 1)), 1, 3, 1)
	r := &Ranking{Slots: 2, Offsets: []int{0, 2, 3}, Docs: []int32{2, 0, 0}, Scores: []float64{1.5, -0.25, 3}}
	var b bytes.Buffer
	if err := WriteRun(&b, ds, r, "piopt"); err != nil {
		t.Fatal(err)
	}
	want := "100 Q0 2 1 1.5 piopt\n100 Q0 0 2 -0.25 piopt\n101 Q0 0 1 3 piopt\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	if strings.Count(b.String(), "\n") != len(r.Docs) {
		t.Error("one line per slate entry")
	}
}

// With --doc-ids comment a run names each document by its comment id.
func TestWriteRunDocIDs(t *testing.T) {
	text := "2 qid:100 1:1 #docid = GX-a inc = 1\n0 qid:100 1:2 #docid = GX-b\n1 qid:100 1:3 # GX-c\n0 qid:101 1:4 #only\n"
	for _, tc := range []struct {
		mode data.DocIDs
		want string
	}{
		{data.DocPosition, "100 Q0 2 1 1.5 piopt\n100 Q0 0 2 -0.25 piopt\n101 Q0 0 1 3 piopt\n"},
		{data.DocComment, "100 Q0 GX-c 1 1.5 piopt\n100 Q0 GX-a 2 -0.25 piopt\n101 Q0 only 1 3 piopt\n"},
	} {
		ds, err := data.Read(strings.NewReader(text), "run.txt", data.ReadOptions{NoCache: true, DocIDs: tc.mode})
		if err != nil {
			t.Fatal(err)
		}
		r := &Ranking{Slots: 2, Offsets: []int{0, 2, 3}, Docs: []int32{2, 0, 0}, Scores: []float64{1.5, -0.25, 3}}
		var b bytes.Buffer
		if err := WriteRun(&b, ds, r, "piopt"); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("%v: got\n%s\nwant\n%s", tc.mode, b.String(), tc.want)
		}
	}
}
