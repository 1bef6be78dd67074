package data_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/piopt/piopt/data"
)

func ExampleRead() {
	text := `2 qid:1 1:3 2:0.5 #docid = GX001
0 qid:1 2:1.25
1 qid:7 1:1 3:4
`
	ds, err := data.Read(strings.NewReader(text), "example.txt", data.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ds.NumQueries(), "queries,", ds.NumDocs(), "documents,", ds.NumFeatures, "features")
	for q := range ds.NumQueries() {
		lo, hi := ds.Query(q)
		fmt.Printf("qid %s: labels %v\n", ds.QIDs[q], ds.QueryLabels(q))
		for d := lo; d < hi; d++ {
			fmt.Println("  ", ds.Row(d))
		}
	}
	// Output:
	// 2 queries, 3 documents, 3 features
	// qid 1: labels [2 0]
	//    [3 0.5 0]
	//    [0 1.25 0]
	// qid 7: labels [1]
	//    [1 0 4]
}

func ExampleParseError() {
	text := "1 qid:1 1:0.5\n0 qid:1 1:abc\n"
	_, err := data.Read(strings.NewReader(text), "train.txt", data.ReadOptions{})
	fmt.Println(err)
	var pe *data.ParseError
	if errors.As(err, &pe) {
		fmt.Println(pe.File, pe.Line, pe.Field, errors.Is(err, data.ErrValue))
	}
	// Output:
	// train.txt:2: field 3 ("1:abc"): value not a finite number
	// train.txt 2 3 true
}

func ExampleLoad() {
	// testdata/nogroups.txt has no qid:; its queries come from
	// testdata/nogroups.txt.query, LightGBM's group-size file.
	ds, err := data.Load("testdata/nogroups.txt", data.ReadOptions{NoCache: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := ds.Summary()
	fmt.Println(ds.QIDs, ds.QueryOffsets, s.Labels)
	// Output:
	// [1 2] [0 2 5] [2 2 1]
}

func ExampleDataset_Summary() {
	text := "0 qid:a 1:1\n0 qid:a 1:2\n3 qid:b 1:1\n1 qid:b 1:0\n0 qid:b 1:5\n"
	ds, _ := data.Read(strings.NewReader(text), "x", data.ReadOptions{})
	s := ds.Summary()
	fmt.Printf("%d queries, %d..%d docs (mean %.1f), grades %v, %d without a relevant doc\n",
		s.Queries, s.MinDocs, s.MaxDocs, s.MeanDocs, s.Labels, s.NoRelevant)
	// Output:
	// 2 queries, 2..3 docs (mean 2.5), grades [3 1 0 1], 1 without a relevant doc
}

func ExampleReadPolicy() {
	text := "1 qid:7 1:1 # A\n0 qid:7 1:2 # B\n2 qid:7 1:3 # C\n"
	ds, err := data.Read(strings.NewReader(text), "d.txt", data.ReadOptions{DocIDs: data.DocComment})
	if err != nil {
		fmt.Println(err)
		return
	}
	policy := "# piopt-policy v1 slots=2\n" +
		"7@morning\tpl:0.5\tA:1.5,C:0.2,B:-1\n" +
		"7@evening\tslates\tC A=0.75,A B=0.25\n"
	pf, err := data.ReadPolicy(strings.NewReader(policy), "p.policy", ds)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range pf.Entries {
		fmt.Printf("%s %s: candidates %v scores %v slates %v probabilities %v\n", e.Context, e.Spec, e.Docs, e.Scores, e.Slates, e.Probs)
	}
	// Output:
	// 7@morning pl:0.5: candidates [0 2 1] scores [1.5 0.2 -1] slates [] probabilities []
	// 7@evening slates: candidates [2 0 1] scores [] slates [0 1 1 2] probabilities [0.75 0.25]
}
