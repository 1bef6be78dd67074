package sweep

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/ranker"
)

// testData returns a dataset with queries of the given sizes, nf random
// features per document and random grades 0..2 (as package ope's tests).
func testData(sizes []int, nf int, seed uint64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, 1))
	ds := &data.Dataset{NumFeatures: nf, QueryOffsets: []int{0}, Source: "test"}
	for q, m := range sizes {
		for range m {
			for range nf {
				ds.Features = append(ds.Features, float32(rng.IntN(1000))/100)
			}
			ds.Labels = append(ds.Labels, uint8(rng.IntN(3)))
		}
		ds.QueryOffsets = append(ds.QueryOffsets, len(ds.Labels))
		ds.QIDs = append(ds.QIDs, fmt.Sprint(q+1))
	}
	return ds
}

// setup builds candidates ranked by feature 1 (limit M, 0 = all), a
// logging policy and the top-ℓ target of feature 2.
func setup(t testing.TB, ds *data.Dataset, limit, slots int, logging string) ope.Setup {
	t.Helper()
	lg, err := impute.ParseLogging(logging)
	if err != nil {
		t.Fatal(err)
	}
	sc1, _ := ranker.FeatureSource(1).Scores(context.Background(), ds)
	c, err := impute.NewCandidates(ds, ranker.Order(ds, sc1), limit)
	if err != nil {
		t.Fatal(err)
	}
	sc2, _ := ranker.FeatureSource(2).Scores(context.Background(), ds)
	tg, err := ope.TopTarget("feature:2", c, slots, sc2)
	if err != nil {
		t.Fatal(err)
	}
	metric := eval.Metric{Kind: eval.KindNDCG, K: slots, Conventions: eval.Conventions{MaxRel: 2}}
	return ope.Setup{Candidates: c, Gammas: impute.NewGammaCache(lg, impute.GammaOptions{}), Slots: slots, Target: tg,
		Scorer: eval.NewScorer(metric, c.Labels(), c.Offsets())}
}

func prepare(t testing.TB, s ope.Setup) *ope.Plan {
	t.Helper()
	p, err := ope.Prepare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }
