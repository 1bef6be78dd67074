package xgbmodel

import (
	"bytes"
	"errors"
	"fmt"
	"math"
)

// Model is the part of an XGBoost gbtree model that inference needs.
type Model struct {
	BaseScore  float32
	NumFeature uint32 // input columns the model was trained on
	Objective  string // e.g. "reg:squarederror"
	Booster    string // "gbtree"
	Trees      []Tree
	// Attrs are the booster attributes (never nil). In a legacy binary
	// file they include XGBoost's own "objective" key.
	Attrs map[string]string
}

// Tree is one regression tree; node 0 is the root.
type Tree struct {
	NumFeature int32
	Nodes      []Node
}

// Node is a split or a leaf, as in XGBoost's RegTree.
type Node struct {
	Parent, Left, Right int32  // Left = −1 for a leaf
	SplitIndex          uint32 // split feature; bit 31: missing values go left
	Value               float32
}

// IsLeaf reports whether n is a leaf (its Value is the leaf value, not a
// split threshold).
func (n *Node) IsLeaf() bool { return n.Left == -1 }

// Feature returns the column n splits on.
func (n *Node) Feature() int64 { return int64(n.SplitIndex & (1<<31 - 1)) }

// defaultLeft reports whether a row missing n's feature goes left.
func (n *Node) defaultLeft() bool { return n.SplitIndex>>31 != 0 }

// Leaf returns the value of the leaf that a row reaches in t, where value(c)
// is the row's value in column c. It walks as XGBoost's CPU predictor does
// (predict_fn.h GetNextNode): a missing value (NaN) takes the default
// direction, any other x goes left when x < the threshold, both float32;
// so XGBoost's prediction of the row is its base score plus Leaf of each
// tree, added one tree at a time in float32. t must be checked (Decode).
func (t *Tree) Leaf(value func(c int) float32) float32 {
	n := &t.Nodes[0]
	for !n.IsLeaf() {
		x := value(int(n.Feature()))
		next := n.Right
		if x != x { // NaN: missing
			if n.defaultLeft() {
				next = n.Left
			}
		} else if x < n.Value {
			next = n.Left
		}
		n = &t.Nodes[next]
	}
	return n.Value
}

// maxColumns bounds a model's input columns, so that a corrupt file cannot
// make inference allocate gigabytes per row buffer.
const maxColumns = 1 << 20

// identityObjectives are the objectives whose prediction is the raw margin
// base_score + Σ trees (no link function), so leaves' raw output equals
// XGBoost's prediction.
var identityObjectives = map[string]bool{
	"reg:squarederror":     true,
	"reg:linear":           true,
	"reg:absoluteerror":    true,
	"reg:pseudohubererror": true,
	"rank:pairwise":        true,
	"rank:ndcg":            true,
	"rank:map":             true,
}

// Decode reads an XGBoost model in the legacy binary or the JSON format,
// deciding by content as XGBoost does ('{' starts JSON), and checks it (see
// Check): a Model it returns can be encoded for leaves and predicts like
// XGBoost.
func Decode(b []byte) (*Model, error) {
	m, err := decode(b)
	if err != nil {
		return nil, err
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return m, nil
}

func decode(b []byte) (*Model, error) {
	if len(b) > 0 && b[0] == '{' {
		return decodeJSON(b)
	}
	m, err := decodeBinary(b)
	if err != nil && !bytes.HasPrefix(b, []byte("binf")) {
		// Files before 1.0 lack the prefix, so its absence alone is no
		// proof; but a failure then most likely means "not a model".
		return nil, fmt.Errorf("not an XGBoost model (no \"binf\" header, not JSON): %w", err)
	}
	return m, err
}

// check verifies what leaves relies on without checking: an objective whose
// output is the raw sum, every tree a proper binary tree reachable from its
// root (no cycles, no shared or out-of-range children), split features
// inside the input columns, and finite leaf values.
func (m *Model) check() error {
	if !identityObjectives[m.Objective] {
		return fmt.Errorf("objective %q: piopt inference supports regression and ranking objectives without an output transform", m.Objective)
	}
	if m.NumFeature == 0 || m.NumFeature > maxColumns {
		return fmt.Errorf("model has %d input columns (piopt supports 1..%d)", m.NumFeature, maxColumns)
	}
	if len(m.Trees) == 0 {
		return errors.New("model has no trees")
	}
	if f := m.BaseScore; math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return fmt.Errorf("base score %v is not finite", f)
	}
	var seen []bool
	var stack []int32
	for t := range m.Trees {
		if err := m.checkTree(t, &seen, &stack); err != nil {
			return err
		}
	}
	return nil
}

// checkTree checks tree t by a walk from its root; seen and stack are
// scratch space reused across trees.
func (m *Model) checkTree(t int, seen *[]bool, stack *[]int32) error {
	tr := &m.Trees[t]
	if tr.NumFeature < 0 || uint32(tr.NumFeature) > m.NumFeature {
		return fmt.Errorf("tree %d uses %d columns, the model %d", t, tr.NumFeature, m.NumFeature)
	}
	n := int32(len(tr.Nodes))
	if n == 0 {
		return fmt.Errorf("tree %d has no nodes", t)
	}
	*seen = append((*seen)[:0], make([]bool, n)...)
	*stack = append((*stack)[:0], 0)
	(*seen)[0] = true
	for len(*stack) > 0 {
		s := *stack
		i := s[len(s)-1]
		*stack = s[:len(s)-1]
		nd := &tr.Nodes[i]
		if nd.IsLeaf() {
			if v := float64(nd.Value); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("tree %d node %d: leaf value %v is not finite", t, i, nd.Value)
			}
			continue
		}
		if nd.Feature() >= int64(m.NumFeature) {
			return fmt.Errorf("tree %d node %d splits on column %d of %d", t, i, nd.Feature(), m.NumFeature)
		}
		if math.IsNaN(float64(nd.Value)) {
			return fmt.Errorf("tree %d node %d: split threshold is NaN", t, i)
		}
		for _, c := range [2]int32{nd.Left, nd.Right} {
			if c <= 0 || c >= n || (*seen)[c] {
				return fmt.Errorf("tree %d node %d: child %d is out of range or shared (corrupt tree)", t, i, c)
			}
			(*seen)[c] = true
			*stack = append(*stack, c)
		}
	}
	return nil
}
