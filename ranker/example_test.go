package ranker_test

import (
	"context"
	"fmt"
	"log"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/ranker"
)

// A test fold of one query with four documents (4 features each).
func exampleFold() *data.Dataset {
	return &data.Dataset{
		NumFeatures: 4,
		Features: []float32{
			5, 7, 8, 1,
			0, 2, 9, 3,
			9, 9, 1, 0,
			3, 1, 1, 8,
		},
		Labels:       []uint8{2, 0, 1, 0},
		QueryOffsets: []int{0, 4},
		QIDs:         []string{"q1"},
		Source:       "example",
	}
}

func ExampleModel_Score() {
	m, err := ranker.LoadModel("testdata/xgb174-pi-opt.model")
	if err != nil {
		log.Fatal(err)
	}
	ds := exampleFold()
	sc, err := m.Score(context.Background(), ds, ranker.ScoreOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Meta().Kind, m.Meta().Slots, "slots,", m.Trees(), "trees")
	for d := range ds.NumDocs() {
		fmt.Printf("doc %d: slot scores %.3f\n", d, sc.Values[d*sc.Stride():(d+1)*sc.Stride()])
	}
	r, err := ranker.Rank(ds, sc, 3, ranker.SlateGreedy)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("greedy slate", r.Slate(0))
	// Output:
	// pi-opt 3 slots, 20 trees
	// doc 0: slot scores [2.892 2.380 2.176]
	// doc 1: slot scores [2.374 2.011 1.802]
	// doc 2: slot scores [3.513 1.816 2.268]
	// doc 3: slot scores [5.196 3.014 2.691]
	// greedy slate [3 0 2]
}
