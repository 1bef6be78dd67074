package sweep_test

import (
	"context"
	"fmt"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/lab/sweep"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/ranker"
)

// exampleData is two queries of 4 documents with 2 features.
func exampleData() *data.Dataset {
	return &data.Dataset{
		NumFeatures: 2,
		Features: []float32{
			4, 1, 3, 4, 2, 2, 1, 3, // query a: feature 1 ranks 0,1,2,3; feature 2 ranks 1,3,2,0
			1, 2, 2, 1, 3, 4, 4, 3,
		},
		Labels:       []uint8{0, 2, 1, 0, 1, 0, 2, 0},
		QueryOffsets: []int{0, 4, 8},
		QIDs:         []string{"a", "b"},
		Source:       "example",
	}
}

// Run the paper's protocol: RMSE of PI and wPI against the true value on
// log prefixes of 100, 1000 and 10000 samples over 20 runs.
func ExampleSweep() {
	ds := exampleData()
	cands, _ := impute.NewCandidates(ds, nil, 0)
	scores, _ := ranker.FeatureSource(2).Scores(context.Background(), ds)
	target, _ := ope.TopTarget("feature:2", cands, 2, scores)
	metric := eval.Metric{Kind: eval.KindNDCG, K: 2, Conventions: eval.Conventions{MaxRel: 2}}
	plan, _ := ope.Prepare(context.Background(), ope.Setup{
		Candidates: cands, Gammas: impute.NewGammaCache(impute.Uniform(), impute.GammaOptions{}),
		Slots: 2, Target: target, Scorer: eval.NewScorer(metric, cands.Labels(), cands.Offsets())})
	est, _ := ope.ParseEstimators("pi,wpi")
	res, _ := sweep.Sweep(context.Background(), plan, sweep.Config{
		Samples: 10000, Runs: 20, Seed: 1, Grid: []int64{100, 1000, 10000}, Estimators: est})
	for g, n := range res.Grid {
		fmt.Printf("n=%-5d RMSE pi %.4f wpi %.4f\n", n, res.RMSE["pi"][g], res.RMSE["wpi"][g])
	}
	// Output:
	// n=100   RMSE pi 0.1359 wpi 0.1698
	// n=1000  RMSE pi 0.0489 wpi 0.0201
	// n=10000 RMSE pi 0.0161 wpi 0.0107
}
