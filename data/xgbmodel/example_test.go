package xgbmodel_test

import (
	"fmt"
	"log"
	"slices"

	"github.com/piopt/piopt/data/xgbmodel"
	"github.com/piopt/piopt/internal/xgbmodeltest"
)

// Decode a two-stump model written in XGBoost 1.7's legacy binary layout,
// list its attributes and trees, and score one row with the pure-Go leaves
// ensemble.
func ExampleDecode() {
	// f(x) = 0.5 + (x1 < 0.5 ? 0 : 1) + (x3 < 0.5 ? 2 : 3), saved as
	// XGBoost 1.7.4 would save it (with the "binf" prefix and XGBoost's own
	// "objective" attribute).
	file := xgbmodeltest.Binary(&xgbmodel.Model{
		BaseScore: 0.5, NumFeature: 5, Objective: "reg:squarederror", Booster: "gbtree",
		Trees: []xgbmodel.Tree{
			xgbmodeltest.Stump(5, 1, 0.5, 0, 1),
			xgbmodeltest.Stump(5, 3, 0.5, 2, 3),
		},
		Attrs: map[string]string{"piopt_kind": "pi-opt"},
	})

	m, err := xgbmodel.Decode(file)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s/%s, %d features, base score %g, %d trees\n",
		m.Booster, m.Objective, m.NumFeature, m.BaseScore, len(m.Trees))
	keys := make([]string, 0, len(m.Attrs))
	for k := range m.Attrs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Println("attributes:", keys, "kind:", m.Attrs["piopt_kind"])

	ens, err := m.Leaves()
	if err != nil {
		log.Fatal(err)
	}
	for _, row := range [][]float64{
		{0, 0, 0, 0, 0},   // left, left:  0.5 + 0 + 2
		{0, 0.5, 0, 1, 0}, // x1 = 0.5 is not < 0.5, so right, right: 0.5 + 1 + 3
	} {
		fmt.Println(row, "→", ens.PredictSingle(row, 0))
	}
	// Output:
	// gbtree/reg:squarederror, 5 features, base score 0.5, 2 trees
	// attributes: [objective piopt_kind] kind: pi-opt
	// [0 0 0 0 0] → 2.5
	// [0 0.5 0 1 0] → 4.5
}
