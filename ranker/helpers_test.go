package ranker

import (
	"math/rand/v2"
	"strconv"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/data/xgbmodel"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/internal/xgbmodeltest"
)

// Test helpers: hand-made XGBoost models (written in XGBoost 1.7's own
// layouts by xgbmodeltest) carrying piopt's metadata, and datasets.

func metaAttrs(kind string, nfeat, slots int) map[string]string {
	return features.Meta{Kind: kind, Slots: slots, Features: nfeat, Metric: "ndcg@3", Targets: "test"}.Attrs()
}

// newXGB returns a regression model of the given trees with piopt's
// metadata for kind, features and slots.
func newXGB(kind string, features, slots int, base float32, trees ...xgbmodel.Tree) *xgbmodel.Model {
	return &xgbmodel.Model{
		BaseScore: base, NumFeature: uint32(features + slots),
		Objective: "reg:squarederror", Booster: "gbtree",
		Trees: trees, Attrs: metaAttrs(kind, features, slots),
	}
}

// randomXGB draws a random model: 1..maxF features, 0..3 slots (a SUP
// model when 0), 1..maxTrees trees of 1..maxNodes nodes splitting at values,
// and a normal base score. Deep random trees reach corners (missing
// children, exact threshold hits) that hand-made models would not.
func randomXGB(rng *rand.Rand, maxF, maxTrees, maxNodes int, values []float32) (xm *xgbmodel.Model, F, L int) {
	F, L = 1+rng.IntN(maxF), rng.IntN(4)
	kind := features.KindSUP
	if L > 0 {
		kind = features.KindPIOPT
	}
	var trees []xgbmodel.Tree
	for range 1 + rng.IntN(maxTrees) {
		trees = append(trees, xgbmodeltest.RandomTree(rng, F+L, 1+rng.IntN(maxNodes), values))
	}
	return newXGB(kind, F, L, float32(rng.NormFloat64()), trees...), F, L
}

// eachPair calls f for every (doc d, slot j < ℓ_x) pair of ds in dataset
// order with row = [f(x,a); onehot(j)], the row a PI-OPT model of L slots
// scores; with L = 0 (SUP) each doc comes once, j = 0, row = f(x,a). row is
// reused between calls.
func eachPair(ds *data.Dataset, L int, f func(d, j int, row []float32)) {
	F := ds.NumFeatures
	row := make([]float32, F+L)
	for q := range ds.NumQueries() {
		lo, hi := ds.Query(q)
		lx := 1
		if L > 0 {
			lx = min(L, hi-lo)
		}
		for d := lo; d < hi; d++ {
			for j := range lx {
				copy(row, ds.Row(d))
				clear(row[F:])
				if L > 0 {
					row[F+j] = 1
				}
				f(d, j, row)
			}
		}
	}
}

// testDataset builds a dataset with the given query sizes, integer-valued
// features in 0..9 (many exact threshold hits) and labels in 0..4.
func testDataset(rng *rand.Rand, features int, sizes ...int) *data.Dataset {
	ds := &data.Dataset{NumFeatures: features, QueryOffsets: []int{0}, Source: "test"}
	for q, m := range sizes {
		ds.QIDs = append(ds.QIDs, strconv.Itoa(100+q))
		for range m {
			ds.Labels = append(ds.Labels, uint8(rng.IntN(5)))
			for range features {
				ds.Features = append(ds.Features, float32(rng.IntN(10)))
			}
		}
		ds.QueryOffsets = append(ds.QueryOffsets, len(ds.Labels))
	}
	return ds
}
