package xgbmodeltest

import (
	"fmt"
	"math"

	"github.com/piopt/piopt/data/xgbmodel"
)

// Corruption is one way to spoil a valid model that the decoder must
// refuse, with a substring of its error.
type Corruption struct {
	Name string
	Edit func(m *xgbmodel.Model)
	Want string
	// BinaryOnly marks a model that only the binary format can hold (JSON
	// has no spelling for Inf).
	BinaryOnly bool
}

// Corruptions returns the decoder's refusals for a model whose first tree
// is a stump (node 0 splits, nodes 1 and 2 are leaves) on cols input
// columns. Both xgbmodel and ranker check them, so that a model file
// the decoder refuses also fails to load as a ranker.
func Corruptions(cols int) []Corruption {
	return []Corruption{
		{Name: "logistic", Edit: func(m *xgbmodel.Model) { m.Objective = "binary:logistic" }, Want: "output transform"},
		{Name: "dart", Edit: func(m *xgbmodel.Model) { m.Booster = "dart" }, Want: "only gbtree"},
		{Name: "split column out of range", Edit: func(m *xgbmodel.Model) { m.Trees[0].Nodes[0].SplitIndex = uint32(cols) },
			Want: fmt.Sprintf("splits on column %d", cols)},
		{Name: "cycle", Edit: func(m *xgbmodel.Model) { m.Trees[0].Nodes[0].Left = 0 }, Want: "corrupt tree"},
		{Name: "shared child", Edit: func(m *xgbmodel.Model) { m.Trees[0].Nodes[0].Left = 2 }, Want: "corrupt tree"},
		{Name: "infinite leaf", Edit: func(m *xgbmodel.Model) { m.Trees[0].Nodes[1].Value = float32(math.Inf(1)) }, Want: "not finite",
			BinaryOnly: true},
		{Name: "no trees", Edit: func(m *xgbmodel.Model) { m.Trees = nil }, Want: "no trees"},
	}
}

// Encode returns m in format "binary" or "json".
func Encode(m *xgbmodel.Model, format string) []byte {
	if format == "json" {
		return JSON(m)
	}
	return Binary(m)
}
