package ranker

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/features"
)

// Test helpers: hand-made XGBoost models written in XGBoost 1.7's own
// layouts (legacy binary with "binf" and num_output_group 0, and JSON), so
// that the reader is tested on the same bytes XGBoost writes without needing
// XGBoost.

// tb builds one tree node by node.
type tb struct{ nodes []xgbNode }

// leaf adds a leaf and returns its index.
func (t *tb) leaf(parent int32, v float32) int32 {
	t.nodes = append(t.nodes, xgbNode{parent: parent, left: -1, right: -1, value: v})
	return int32(len(t.nodes) - 1)
}

// split turns node i into a split on feature f at threshold thr; rows with
// x < thr go to the new left child.
func (t *tb) split(i int32, f uint32, thr float32, defaultLeft bool, lv, rv float32) (l, r int32) {
	l = t.leaf(i, lv)
	r = t.leaf(i, rv)
	n := &t.nodes[i]
	n.left, n.right, n.sindex, n.value = l, r, f, thr
	if defaultLeft {
		n.sindex |= 1 << 31
	}
	return l, r
}

func (t *tb) tree(numFeature int) xgbTree {
	return xgbTree{numFeature: int32(numFeature), nodes: t.nodes}
}

// stump is the tree "x[f] < thr ? lv : rv".
func stump(numFeature int, f uint32, thr, lv, rv float32) xgbTree {
	var t tb
	t.leaf(math.MaxInt32, 0)
	t.split(0, f, thr, false, lv, rv)
	return t.tree(numFeature)
}

func metaAttrs(kind string, nfeat, slots int) map[string]string {
	return features.Meta{Kind: kind, Slots: slots, Features: nfeat, Metric: "ndcg@3", Targets: "test"}.Attrs()
}

func newXGB(kind string, features, slots int, base float32, trees ...xgbTree) *xgbModel {
	return &xgbModel{
		baseScore: base, numFeature: uint32(features + slots),
		objective: "reg:squarederror", booster: "gbtree",
		trees: trees, attrs: metaAttrs(kind, features, slots),
	}
}

// xgb17Binary writes m as XGBoost 1.7.4's XGBoosterSaveModel does for a
// non-.json path.
func xgb17Binary(m *xgbModel) []byte {
	le := binary.LittleEndian
	b := []byte("binf")
	lp := make([]byte, learnerParamSize)
	le.PutUint32(lp[0:], math.Float32bits(m.baseScore))
	le.PutUint32(lp[4:], m.numFeature)
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
	str(m.objective)
	str(m.booster)
	gp := make([]byte, gbtreeParamSize)
	le.PutUint32(gp[0:], uint32(len(m.trees)))
	le.PutUint32(gp[4:], 1) // num_parallel_tree; num_output_group @24 stays 0
	b = append(b, gp...)
	for _, t := range m.trees {
		tp := make([]byte, treeParamSize)
		le.PutUint32(tp[0:], 1)
		le.PutUint32(tp[4:], uint32(len(t.nodes)))
		le.PutUint32(tp[16:], uint32(t.numFeature))
		b = append(b, tp...)
		for _, n := range t.nodes {
			b = le.AppendUint32(b, uint32(n.parent))
			b = le.AppendUint32(b, uint32(n.left))
			b = le.AppendUint32(b, uint32(n.right))
			b = le.AppendUint32(b, n.sindex)
			b = le.AppendUint32(b, math.Float32bits(n.value))
		}
		for range t.nodes {
			b = le.AppendUint32(b, math.Float32bits(1)) // loss_chg
			b = le.AppendUint32(b, math.Float32bits(1)) // sum_hess
			b = le.AppendUint32(b, 0)                   // base_weight
			b = le.AppendUint32(b, 0)                   // leaf_child_cnt
		}
	}
	for range m.trees {
		b = le.AppendUint32(b, 0)
	}
	attrs := map[string]string{"objective": `{"name":"` + m.objective + `","reg_loss_param":{"scale_pos_weight":"1"}}`}
	for k, v := range m.attrs {
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

// xgb17JSON writes m as XGBoost 1.7.4's XGBoosterSaveModel does for a .json
// path (the fields inference reads, in XGBoost's key order).
func xgb17JSON(m *xgbModel) []byte {
	f32s := func(v float32) string { return strconv.FormatFloat(float64(v), 'E', -1, 32) }
	var s strings.Builder
	s.WriteString(`{"learner":{"attributes":{`)
	keys := make([]string, 0, len(m.attrs))
	for k := range m.attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		if i > 0 {
			s.WriteByte(',')
		}
		fmt.Fprintf(&s, "%q:%q", k, m.attrs[k])
	}
	fmt.Fprintf(&s, `},"feature_names":[],"feature_types":[],"gradient_booster":{"model":{"gbtree_model_param":{"num_parallel_tree":"1","num_trees":"%d","size_leaf_vector":"0"},"tree_info":[`, len(m.trees))
	for i := range m.trees {
		if i > 0 {
			s.WriteByte(',')
		}
		s.WriteByte('0')
	}
	s.WriteString(`],"trees":[`)
	for i, t := range m.trees {
		if i > 0 {
			s.WriteByte(',')
		}
		arr := func(name string, f func(n xgbNode) string) {
			fmt.Fprintf(&s, "%q:[", name)
			for j, n := range t.nodes {
				if j > 0 {
					s.WriteByte(',')
				}
				s.WriteString(f(n))
			}
			s.WriteString("],")
		}
		s.WriteByte('{')
		arr("base_weights", func(n xgbNode) string { return "0E0" })
		s.WriteString(`"categories":[],"categories_nodes":[],"categories_segments":[],"categories_sizes":[],`)
		arr("default_left", func(n xgbNode) string { return strconv.Itoa(int(n.sindex >> 31)) })
		fmt.Fprintf(&s, `"id":%d,`, i)
		arr("left_children", func(n xgbNode) string { return strconv.Itoa(int(n.left)) })
		arr("loss_changes", func(n xgbNode) string { return "0E0" })
		arr("parents", func(n xgbNode) string { return strconv.Itoa(int(n.parent)) })
		arr("right_children", func(n xgbNode) string { return strconv.Itoa(int(n.right)) })
		arr("split_conditions", func(n xgbNode) string { return f32s(n.value) })
		arr("split_indices", func(n xgbNode) string { return strconv.Itoa(int(n.feature())) })
		arr("split_type", func(n xgbNode) string { return "0" })
		arr("sum_hessian", func(n xgbNode) string { return "1E0" })
		fmt.Fprintf(&s, `"tree_param":{"num_deleted":"0","num_feature":"%d","num_nodes":"%d","size_leaf_vector":"0"}}`, t.numFeature, len(t.nodes))
	}
	fmt.Fprintf(&s, `]},"name":%q},"learner_model_param":{"base_score":"%s","num_class":"0","num_feature":"%d","num_target":"1"},"objective":{"name":%q,"reg_loss_param":{"scale_pos_weight":"1"}}},"version":[1,7,4]}`,
		m.booster, f32s(m.baseScore), m.numFeature, m.objective)
	return []byte(s.String())
}

// xgbPredict is XGBoost's prediction rule for one float32 row: start from the
// base score and add each tree's leaf, in float32 as XGBoost does, sending a
// row left when x < threshold (or when x is NaN and the default is left).
func xgbPredict(m *xgbModel, row []float32) float32 {
	s := m.baseScore
	for _, t := range m.trees {
		i := int32(0)
		for !t.nodes[i].isLeaf() {
			n := t.nodes[i]
			x := row[n.feature()]
			left := x < n.value
			if math.IsNaN(float64(x)) {
				left = n.sindex>>31 == 1
			}
			if left {
				i = n.left
			} else {
				i = n.right
			}
		}
		s += t.nodes[i].value
	}
	return s
}

// randomTree grows a tree as lossguide does, splitting a random leaf until it
// has the given number of leaves, on random columns with thresholds drawn
// from values (so that rows land exactly on thresholds).
func randomTree(rng *rand.Rand, cols, leaves int, values []float32) xgbTree {
	var t tb
	t.leaf(math.MaxInt32, 0)
	open := []int32{0}
	for len(open) < leaves {
		k := rng.IntN(len(open))
		i := open[k]
		f := uint32(rng.IntN(cols))
		thr := values[rng.IntN(len(values))]
		l, r := t.split(i, f, thr, rng.IntN(2) == 0, float32(rng.NormFloat64()*0.1), float32(rng.NormFloat64()*0.1))
		open[k] = l
		open = append(open, r)
	}
	return t.tree(cols)
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
