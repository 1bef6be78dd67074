package ranker

import (
	"math/rand/v2"
	"strconv"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/ranker/xgbmodel"
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
