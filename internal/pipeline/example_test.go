package pipeline_test

import (
	"context"
	"fmt"
	"log"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/internal/pipeline"
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

func ExampleRankModels() {
	m, err := ranker.LoadModel("../../ranker/testdata/xgb174-pi-opt.json")
	if err != nil {
		log.Fatal(err)
	}
	rep, err := pipeline.RankModels(context.Background(), exampleFold(), []*ranker.Model{m},
		pipeline.RankOptions{Conventions: eval.Conventions{MaxRel: 2}, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("ndcg@3: pi-opt %.3f, random %.3f\n", rep.Mean["ndcg@3"]["pi-opt"], rep.Mean["ndcg@3"]["random"])
	// Output: ndcg@3: pi-opt 0.659, random 0.587
}
