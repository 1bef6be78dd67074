package xgbmodeltest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/piopt/piopt/data/xgbmodel"
)

// Builder builds one tree node by node.
type Builder struct{ Nodes []xgbmodel.Node }

// Leaf adds a leaf and returns its index.
func (t *Builder) Leaf(parent int32, v float32) int32 {
	t.Nodes = append(t.Nodes, xgbmodel.Node{Parent: parent, Left: -1, Right: -1, Value: v})
	return int32(len(t.Nodes) - 1)
}

// Split turns node i into a split on feature f at threshold thr; rows with
// x < thr go to the new left child (value lv), the others right (rv).
func (t *Builder) Split(i int32, f uint32, thr float32, defaultLeft bool, lv, rv float32) (l, r int32) {
	l = t.Leaf(i, lv)
	r = t.Leaf(i, rv)
	n := &t.Nodes[i]
	n.Left, n.Right, n.SplitIndex, n.Value = l, r, f, thr
	if defaultLeft {
		n.SplitIndex |= 1 << 31
	}
	return l, r
}

// Tree returns the tree built so far, on numFeature columns.
func (t *Builder) Tree(numFeature int) xgbmodel.Tree {
	return xgbmodel.Tree{NumFeature: int32(numFeature), Nodes: t.Nodes}
}

// Stump is the tree "x[f] < thr ? lv : rv".
func Stump(numFeature int, f uint32, thr, lv, rv float32) xgbmodel.Tree {
	var t Builder
	t.Leaf(math.MaxInt32, 0)
	t.Split(0, f, thr, false, lv, rv)
	return t.Tree(numFeature)
}

// RandomTree grows a tree as lossguide does, splitting a random leaf until
// it has the given number of leaves, on random columns with thresholds drawn
// from values (so that rows land exactly on thresholds).
func RandomTree(rng *rand.Rand, cols, leaves int, values []float32) xgbmodel.Tree {
	var t Builder
	t.Leaf(math.MaxInt32, 0)
	open := []int32{0}
	for len(open) < leaves {
		k := rng.IntN(len(open))
		i := open[k]
		f := uint32(rng.IntN(cols))
		thr := values[rng.IntN(len(values))]
		l, r := t.Split(i, f, thr, rng.IntN(2) == 0, float32(rng.NormFloat64()*0.1), float32(rng.NormFloat64()*0.1))
		open[k] = l
		open = append(open, r)
	}
	return t.Tree(cols)
}

// Binary writes m as XGBoost 1.7.4's XGBoosterSaveModel does for a
// non-.json path.
func Binary(m *xgbmodel.Model) []byte {
	le := binary.LittleEndian
	b := []byte("binf")
	lp := make([]byte, 136)
	le.PutUint32(lp[0:], math.Float32bits(m.BaseScore))
	le.PutUint32(lp[4:], m.NumFeature)
	le.PutUint32(lp[12:], 1) // contain_extra_attrs
	le.PutUint32(lp[20:], 1) // major_version
	le.PutUint32(lp[24:], 7) // minor_version
	le.PutUint32(lp[28:], 1) // num_target
	le.PutUint32(lp[32:], 1) // boost_from_average
	b = append(b, lp...)
	str := func(s string) {
		b = le.AppendUint64(b, uint64(len(s)))
		b = append(b, s...)
	}
	str(m.Objective)
	str(m.Booster)
	gp := make([]byte, 160)
	le.PutUint32(gp[0:], uint32(len(m.Trees)))
	le.PutUint32(gp[4:], 1) // num_parallel_tree; num_output_group @24 stays 0
	b = append(b, gp...)
	for _, t := range m.Trees {
		tp := make([]byte, 148)
		le.PutUint32(tp[0:], 1)
		le.PutUint32(tp[4:], uint32(len(t.Nodes)))
		le.PutUint32(tp[16:], uint32(t.NumFeature))
		b = append(b, tp...)
		for _, n := range t.Nodes {
			b = le.AppendUint32(b, uint32(n.Parent))
			b = le.AppendUint32(b, uint32(n.Left))
			b = le.AppendUint32(b, uint32(n.Right))
			b = le.AppendUint32(b, n.SplitIndex)
			b = le.AppendUint32(b, math.Float32bits(n.Value))
		}
		for range t.Nodes {
			b = le.AppendUint32(b, math.Float32bits(1)) // loss_chg
			b = le.AppendUint32(b, math.Float32bits(1)) // sum_hess
			b = le.AppendUint32(b, 0)                   // base_weight
			b = le.AppendUint32(b, 0)                   // leaf_child_cnt
		}
	}
	for range m.Trees {
		b = le.AppendUint32(b, 0)
	}
	attrs := map[string]string{"objective": `{"name":"` + m.Objective + `","reg_loss_param":{"scale_pos_weight":"1"}}`}
	for k, v := range m.Attrs {
		attrs[k] = v
	}
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = le.AppendUint64(b, uint64(len(keys)))
	for _, k := range keys {
		str(k)
		str(attrs[k])
	}
	return b
}

// JSON writes m as XGBoost 1.7.4's XGBoosterSaveModel does for a .json
// path (the fields inference reads, in XGBoost's key order).
func JSON(m *xgbmodel.Model) []byte {
	f32s := func(v float32) string { return strconv.FormatFloat(float64(v), 'E', -1, 32) }
	var s strings.Builder
	s.WriteString(`{"learner":{"attributes":{`)
	keys := make([]string, 0, len(m.Attrs))
	for k := range m.Attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		if i > 0 {
			s.WriteByte(',')
		}
		fmt.Fprintf(&s, "%q:%q", k, m.Attrs[k])
	}
	fmt.Fprintf(&s, `},"feature_names":[],"feature_types":[],"gradient_booster":{"model":{"gbtree_model_param":{"num_parallel_tree":"1","num_trees":"%d","size_leaf_vector":"0"},"tree_info":[`, len(m.Trees))
	for i := range m.Trees {
		if i > 0 {
			s.WriteByte(',')
		}
		s.WriteByte('0')
	}
	s.WriteString(`],"trees":[`)
	for i, t := range m.Trees {
		if i > 0 {
			s.WriteByte(',')
		}
		writeJSONTree(&s, i, t, f32s)
	}
	fmt.Fprintf(&s, `]},"name":%q},"learner_model_param":{"base_score":"%s","num_class":"0","num_feature":"%d","num_target":"1"},"objective":{"name":%q,"reg_loss_param":{"scale_pos_weight":"1"}}},"version":[1,7,4]}`,
		m.Booster, f32s(m.BaseScore), m.NumFeature, m.Objective)
	return []byte(s.String())
}

func writeJSONTree(s *strings.Builder, id int, t xgbmodel.Tree, f32s func(float32) string) {
	arr := func(name string, f func(n xgbmodel.Node) string) {
		fmt.Fprintf(s, "%q:[", name)
		for j, n := range t.Nodes {
			if j > 0 {
				s.WriteByte(',')
			}
			s.WriteString(f(n))
		}
		s.WriteString("],")
	}
	s.WriteByte('{')
	arr("base_weights", func(n xgbmodel.Node) string { return "0E0" })
	s.WriteString(`"categories":[],"categories_nodes":[],"categories_segments":[],"categories_sizes":[],`)
	arr("default_left", func(n xgbmodel.Node) string { return strconv.Itoa(int(n.SplitIndex >> 31)) })
	fmt.Fprintf(s, `"id":%d,`, id)
	arr("left_children", func(n xgbmodel.Node) string { return strconv.Itoa(int(n.Left)) })
	arr("loss_changes", func(n xgbmodel.Node) string { return "0E0" })
	arr("parents", func(n xgbmodel.Node) string { return strconv.Itoa(int(n.Parent)) })
	arr("right_children", func(n xgbmodel.Node) string { return strconv.Itoa(int(n.Right)) })
	arr("split_conditions", func(n xgbmodel.Node) string { return f32s(n.Value) })
	arr("split_indices", func(n xgbmodel.Node) string { return strconv.Itoa(int(n.Feature())) })
	arr("split_type", func(n xgbmodel.Node) string { return "0" })
	arr("sum_hessian", func(n xgbmodel.Node) string { return "1E0" })
	fmt.Fprintf(s, `"tree_param":{"num_deleted":"0","num_feature":"%d","num_nodes":"%d","size_leaf_vector":"0"}}`, t.NumFeature, len(t.Nodes))
}

// Predict is XGBoost's prediction rule for one float32 row: start from the
// base score and add each tree's leaf, in float32 as XGBoost does, sending
// a row left when x < threshold (or when x is NaN and the default is left).
func Predict(m *xgbmodel.Model, row []float32) float32 {
	s := m.BaseScore
	for _, t := range m.Trees {
		i := int32(0)
		for !t.Nodes[i].IsLeaf() {
			n := t.Nodes[i]
			x := row[n.Feature()]
			left := x < n.Value
			if math.IsNaN(float64(x)) {
				left = n.SplitIndex>>31 == 1
			}
			if left {
				i = n.Left
			} else {
				i = n.Right
			}
		}
		s += t.Nodes[i].Value
	}
	return s
}
