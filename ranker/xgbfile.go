package ranker

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// This file reads XGBoost model files without XGBoost and rewrites them into
// the input that leaves (github.com/dmitryikh/leaves) reads.
//
// leaves reads only XGBoost's legacy binary format, as written before 1.0,
// and gets a 1.7 model wrong in three ways; the load-time transform of
// encodeLeaves fixes all three:
//
//  1. 1.x writes a 4-byte "binf" prefix before the learner parameters;
//     leaves reads it as part of a length and tries to allocate 64 GiB.
//     The prefix is dropped.
//  2. 1.x writes GBTreeModelParam's num_output_group (offset 24) as 0, a
//     deprecated field; leaves divides by it. It is written as 1 (piopt
//     models have one output: num_class must be 0 or 1).
//  3. XGBoost sends a row left when x < t (x and t float32); leaves when
//     x ≤ t. Every split threshold t becomes math.Nextafter32(t, −Inf): for
//     float32 x, x < t ⇔ x ≤ nextafter(t, −Inf), and leaves compares float64
//     copies of float32 features with float64(nextafter(t, −Inf)), which is
//     exact. (Without it, 84% of rows go wrong on integer-valued features.)
//
// Rather than patch bytes in place, the file is decoded into xgbModel (both
// the legacy binary and the JSON format, so .json models work too), checked
// (a corrupt file must give an error, never a panic or an endless loop inside
// leaves), and encoded again in the layout leaves expects, with the three
// fixes applied. Leaf values, split features, default directions and the
// base score are copied bit for bit.
//
// Legacy binary layout of XGBoost 1.7 (learner.cc LearnerIO::SaveModel,
// gbtree_model.cc GBTreeModel::Save, tree_model.cc RegTree::Save), all
// little-endian; a string is a uint64 length and its bytes:
//
//	"binf"                              4 bytes (absent before 1.0)
//	LearnerModelParamLegacy           136 bytes: base_score f32 @0,
//	                                  num_feature u32 @4, num_class i32 @8,
//	                                  contain_extra_attrs i32 @12,
//	                                  contain_eval_metrics i32 @16,
//	                                  major_version u32 @20, minor @24
//	objective, booster                strings
//	GBTreeModelParam                  160 bytes: num_trees i32 @0,
//	                                  num_parallel_tree i32 @4,
//	                                  num_output_group i32 @24 (0 in 1.x),
//	                                  size_leaf_vector i32 @28
//	per tree: TreeParam               148 bytes: num_roots @0, num_nodes @4,
//	                                  num_deleted @8, num_feature @16,
//	                                  size_leaf_vector @20
//	          nodes                   num_nodes × 20 bytes: parent i32,
//	                                  left i32 (−1: leaf), right i32,
//	                                  sindex u32 (bit 31: default left),
//	                                  split threshold or leaf value f32
//	          stats                   num_nodes × 16 bytes (unused here)
//	tree_info                         num_trees × i32 (output group)
//	attributes (if contain_extra_attrs) uint64 count, then (key, value)
//	                                  string pairs, sorted by key; 1.7 puts
//	                                  the booster attributes (piopt's
//	                                  metadata) and "objective" here.
const (
	learnerParamSize = 136
	gbtreeParamSize  = 160
	treeParamSize    = 148
	nodeSize         = 20
	nodeStatSize     = 16
)

// maxColumns bounds a model's input columns, so that a corrupt file cannot
// make inference allocate gigabytes per row buffer.
const maxColumns = 1 << 20

// xgbModel is the part of an XGBoost gbtree model that inference needs.
type xgbModel struct {
	baseScore  float32
	numFeature uint32 // input columns the model was trained on
	objective  string
	booster    string
	trees      []xgbTree
	attrs      map[string]string
}

type xgbTree struct {
	numFeature int32
	nodes      []xgbNode
}

type xgbNode struct {
	parent, left, right int32
	sindex              uint32 // split feature; bit 31: missing values go left
	value               float32
}

func (n *xgbNode) isLeaf() bool   { return n.left == -1 }
func (n *xgbNode) feature() int64 { return int64(n.sindex & (1<<31 - 1)) }

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

// decodeModel reads an XGBoost model in the legacy binary or the JSON
// format, deciding by content as XGBoost does ('{' starts JSON).
func decodeModel(b []byte) (*xgbModel, error) {
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

// binReader reads the legacy format; errors carry the byte offset.
type binReader struct {
	b   []byte
	off int
	err error
}

func (r *binReader) fail(format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("byte %d: %s", r.off, fmt.Sprintf(format, a...))
	}
}

// next returns the next n bytes, or nil (and sets err) when fewer remain.
func (r *binReader) next(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.off {
		r.fail("file ends inside %s (truncated or not an XGBoost model)", what)
		return nil
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

func (r *binReader) string(what string) string {
	p := r.next(8, what)
	if p == nil {
		return ""
	}
	n := binary.LittleEndian.Uint64(p)
	if n > uint64(len(r.b)-r.off) {
		r.off -= 8
		r.fail("%s: length %d exceeds the file (not an XGBoost 1.x model?)", what, n)
		return ""
	}
	return string(r.next(int(n), what))
}

func i32(p []byte, off int) int32   { return int32(binary.LittleEndian.Uint32(p[off:])) }
func u32(p []byte, off int) uint32  { return binary.LittleEndian.Uint32(p[off:]) }
func f32(p []byte, off int) float32 { return math.Float32frombits(u32(p, off)) }

func decodeBinary(b []byte) (*xgbModel, error) {
	r := &binReader{b: b}
	if bytes.HasPrefix(b, []byte("CONFIG-offset:")) {
		return nil, errors.New("this is a serialised XGBoost booster (pickle/memory snapshot), not a saved model")
	}
	if bytes.HasPrefix(b, []byte("binf")) {
		r.off = 4
	}
	m := &xgbModel{}
	p := r.next(learnerParamSize, "the learner parameters")
	if p == nil {
		return nil, r.err
	}
	m.baseScore = f32(p, 0)
	m.numFeature = u32(p, 4)
	numClass := i32(p, 8)
	extraAttrs := i32(p, 12)
	m.objective = r.string("the objective name")
	m.booster = r.string("the booster name")
	if r.err != nil {
		return nil, r.err
	}
	if m.booster != "gbtree" {
		return nil, fmt.Errorf("booster %q: only gbtree models are supported", m.booster)
	}
	if numClass > 1 {
		return nil, fmt.Errorf("model has %d output classes; piopt models have one output", numClass)
	}
	p = r.next(gbtreeParamSize, "the gbtree parameters")
	if p == nil {
		return nil, r.err
	}
	numTrees := i32(p, 0)
	if parallel := i32(p, 4); parallel > 1 {
		return nil, fmt.Errorf("model has %d parallel trees per round (random forest); not supported", parallel)
	}
	if lv := i32(p, 28); lv != 0 {
		return nil, fmt.Errorf("model has leaf vectors (size %d); not supported", lv)
	}
	// Each tree takes at least a TreeParam and one node.
	if numTrees < 0 || int64(numTrees)*(treeParamSize+nodeSize+nodeStatSize) > int64(len(b)-r.off) {
		return nil, fmt.Errorf("byte %d: tree count %d does not fit in the file", r.off-gbtreeParamSize, numTrees)
	}
	m.trees = make([]xgbTree, numTrees)
	for t := range m.trees {
		tp := r.next(treeParamSize, fmt.Sprintf("tree %d's parameters", t))
		if tp == nil {
			return nil, r.err
		}
		numNodes := i32(tp, 4)
		if lv := i32(tp, 20); lv != 0 {
			return nil, fmt.Errorf("tree %d has leaf vectors (size %d); not supported", t, lv)
		}
		if numNodes < 1 || int64(numNodes)*(nodeSize+nodeStatSize) > int64(len(b)-r.off) {
			return nil, fmt.Errorf("byte %d: tree %d: node count %d does not fit in the file", r.off-treeParamSize, t, numNodes)
		}
		tr := &m.trees[t]
		tr.numFeature = i32(tp, 16)
		np := r.next(int(numNodes)*nodeSize, fmt.Sprintf("tree %d's nodes", t))
		r.next(int(numNodes)*nodeStatSize, fmt.Sprintf("tree %d's node statistics", t))
		if r.err != nil {
			return nil, r.err
		}
		tr.nodes = make([]xgbNode, numNodes)
		for i := range tr.nodes {
			q := np[i*nodeSize:]
			tr.nodes[i] = xgbNode{parent: i32(q, 0), left: i32(q, 4), right: i32(q, 8), sindex: u32(q, 12), value: f32(q, 16)}
		}
	}
	if numTrees > 0 {
		ti := r.next(4*int(numTrees), "the tree info")
		if ti == nil {
			return nil, r.err
		}
		for t := range int(numTrees) {
			if g := i32(ti, 4*t); g != 0 {
				return nil, fmt.Errorf("tree %d belongs to output group %d; piopt models have one output", t, g)
			}
		}
	}
	m.attrs = map[string]string{}
	if extraAttrs != 0 {
		p := r.next(8, "the attribute count")
		if p == nil {
			return nil, r.err
		}
		n := binary.LittleEndian.Uint64(p)
		if n > uint64(len(b)-r.off)/16 {
			return nil, fmt.Errorf("byte %d: attribute count %d does not fit in the file", r.off-8, n)
		}
		for range n {
			k := r.string("an attribute name")
			v := r.string("an attribute value")
			if r.err != nil {
				return nil, r.err
			}
			m.attrs[k] = v
		}
	}
	if r.off != len(b) {
		return nil, fmt.Errorf("byte %d: %d unexpected bytes after the model", r.off, len(b)-r.off)
	}
	return m, nil
}

// JSON model (XGBoost ≥ 1.0 "save_model" to a .json path). Numbers that are
// float32 in XGBoost are read as json.Number and parsed at 32 bits, so that
// a threshold is the same float32 as in the binary file (decimal → float64 →
// float32 could round twice).
type jsonModel struct {
	Learner struct {
		Attributes        map[string]string `json:"attributes"`
		LearnerModelParam struct {
			BaseScore  string `json:"base_score"`
			NumClass   string `json:"num_class"`
			NumFeature string `json:"num_feature"`
		} `json:"learner_model_param"`
		Objective struct {
			Name string `json:"name"`
		} `json:"objective"`
		GradientBooster struct {
			Name  string `json:"name"`
			Model struct {
				Param struct {
					NumTrees        string `json:"num_trees"`
					NumParallelTree string `json:"num_parallel_tree"`
					SizeLeafVector  string `json:"size_leaf_vector"`
				} `json:"gbtree_model_param"`
				Trees    []jsonTree `json:"trees"`
				TreeInfo []int      `json:"tree_info"`
			} `json:"model"`
		} `json:"gradient_booster"`
	} `json:"learner"`
}

type jsonTree struct {
	Param struct {
		NumNodes       string `json:"num_nodes"`
		NumFeature     string `json:"num_feature"`
		SizeLeafVector string `json:"size_leaf_vector"`
	} `json:"tree_param"`
	Left       []int32       `json:"left_children"`
	Right      []int32       `json:"right_children"`
	Parents    []int32       `json:"parents"`
	Indices    []uint32      `json:"split_indices"`
	Conditions []json.Number `json:"split_conditions"`
	Default    []jsonBool    `json:"default_left"`
	SplitType  []int         `json:"split_type"`
}

// jsonBool reads default_left entries, integers 0/1 in 1.7 and booleans in some
// other versions.
type jsonBool bool

func (f *jsonBool) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "1", "true":
		*f = true
	case "0", "false":
		*f = false
	default:
		return fmt.Errorf("default_left entry %s: want 0, 1, true or false", b)
	}
	return nil
}

func atoiField(s, name string) (int, error) {
	if s == "" {
		return 0, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%s = %q: not an integer", name, s)
	}
	return v, nil
}

func decodeJSON(b []byte) (*xgbModel, error) {
	var j jsonModel
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&j); err != nil {
		return nil, fmt.Errorf("JSON model: %w (UBJSON models are not supported: save to a .json or a binary path)", err)
	}
	l := &j.Learner
	m := &xgbModel{objective: l.Objective.Name, booster: l.GradientBooster.Name, attrs: l.Attributes}
	if m.attrs == nil {
		m.attrs = map[string]string{}
	}
	if m.booster != "gbtree" {
		return nil, fmt.Errorf("booster %q: only gbtree models are supported", m.booster)
	}
	bs, err := strconv.ParseFloat(l.LearnerModelParam.BaseScore, 32)
	if err != nil {
		return nil, fmt.Errorf("learner_model_param.base_score = %q: not a number", l.LearnerModelParam.BaseScore)
	}
	m.baseScore = float32(bs)
	nf, err := atoiField(l.LearnerModelParam.NumFeature, "learner_model_param.num_feature")
	if err != nil {
		return nil, err
	}
	if nf < 0 || nf > math.MaxInt32 {
		return nil, fmt.Errorf("learner_model_param.num_feature = %d: out of range", nf)
	}
	m.numFeature = uint32(nf)
	nc, err := atoiField(l.LearnerModelParam.NumClass, "learner_model_param.num_class")
	if err != nil {
		return nil, err
	}
	if nc > 1 {
		return nil, fmt.Errorf("model has %d output classes; piopt models have one output", nc)
	}
	gm := &l.GradientBooster.Model
	nt, err := atoiField(gm.Param.NumTrees, "gbtree_model_param.num_trees")
	if err != nil {
		return nil, err
	}
	if nt != len(gm.Trees) {
		return nil, fmt.Errorf("gbtree_model_param.num_trees = %d but %d trees stored", nt, len(gm.Trees))
	}
	if p, _ := atoiField(gm.Param.NumParallelTree, ""); p > 1 {
		return nil, fmt.Errorf("model has %d parallel trees per round (random forest); not supported", p)
	}
	if lv, _ := atoiField(gm.Param.SizeLeafVector, ""); lv != 0 {
		return nil, fmt.Errorf("model has leaf vectors (size %d); not supported", lv)
	}
	if len(gm.TreeInfo) != nt {
		return nil, fmt.Errorf("tree_info has %d entries for %d trees", len(gm.TreeInfo), nt)
	}
	for t, g := range gm.TreeInfo {
		if g != 0 {
			return nil, fmt.Errorf("tree %d belongs to output group %d; piopt models have one output", t, g)
		}
	}
	m.trees = make([]xgbTree, nt)
	for t := range gm.Trees {
		jt := &gm.Trees[t]
		n, err := atoiField(jt.Param.NumNodes, fmt.Sprintf("tree %d: tree_param.num_nodes", t))
		if err != nil {
			return nil, err
		}
		if lv, _ := atoiField(jt.Param.SizeLeafVector, ""); lv != 0 {
			return nil, fmt.Errorf("tree %d has leaf vectors (size %d); not supported", t, lv)
		}
		if n < 1 || len(jt.Left) != n || len(jt.Right) != n || len(jt.Parents) != n ||
			len(jt.Indices) != n || len(jt.Conditions) != n || len(jt.Default) != n {
			return nil, fmt.Errorf("tree %d: node arrays do not all have num_nodes = %d entries", t, n)
		}
		for _, st := range jt.SplitType {
			if st != 0 {
				return nil, fmt.Errorf("tree %d has categorical splits; not supported", t)
			}
		}
		tf, err := atoiField(jt.Param.NumFeature, fmt.Sprintf("tree %d: tree_param.num_feature", t))
		if err != nil {
			return nil, err
		}
		tr := &m.trees[t]
		tr.numFeature = int32(tf)
		tr.nodes = make([]xgbNode, n)
		for i := range tr.nodes {
			c, err := strconv.ParseFloat(string(jt.Conditions[i]), 32)
			if err != nil {
				return nil, fmt.Errorf("tree %d node %d: split_conditions entry %q: not a float32", t, i, jt.Conditions[i])
			}
			if jt.Indices[i] >= 1<<31 {
				return nil, fmt.Errorf("tree %d node %d: split index %d out of range", t, i, jt.Indices[i])
			}
			sindex := jt.Indices[i]
			if jt.Default[i] {
				sindex |= 1 << 31
			}
			tr.nodes[i] = xgbNode{parent: jt.Parents[i], left: jt.Left[i], right: jt.Right[i], sindex: sindex, value: float32(c)}
		}
	}
	return m, nil
}

// check verifies what leaves relies on without checking: an objective whose
// output is the raw sum, every tree a proper binary tree reachable from its
// root (no cycles, no shared or out-of-range children), split features
// inside the input columns, and finite leaf values.
func (m *xgbModel) check() error {
	if !identityObjectives[m.objective] {
		return fmt.Errorf("objective %q: piopt inference supports regression and ranking objectives without an output transform", m.objective)
	}
	if m.numFeature == 0 || m.numFeature > maxColumns {
		return fmt.Errorf("model has %d input columns (piopt supports 1..%d)", m.numFeature, maxColumns)
	}
	if len(m.trees) == 0 {
		return errors.New("model has no trees")
	}
	if f := m.baseScore; math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return fmt.Errorf("base score %v is not finite", f)
	}
	var seen []bool
	var stack []int32
	for t := range m.trees {
		tr := &m.trees[t]
		if tr.numFeature < 0 || uint32(tr.numFeature) > m.numFeature {
			return fmt.Errorf("tree %d uses %d columns, the model %d", t, tr.numFeature, m.numFeature)
		}
		n := int32(len(tr.nodes))
		seen = append(seen[:0], make([]bool, n)...)
		stack = append(stack[:0], 0)
		seen[0] = true
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			nd := &tr.nodes[i]
			if nd.isLeaf() {
				if v := float64(nd.value); math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("tree %d node %d: leaf value %v is not finite", t, i, nd.value)
				}
				continue
			}
			if nd.feature() >= int64(m.numFeature) {
				return fmt.Errorf("tree %d node %d splits on column %d of %d", t, i, nd.feature(), m.numFeature)
			}
			if math.IsNaN(float64(nd.value)) {
				return fmt.Errorf("tree %d node %d: split threshold is NaN", t, i)
			}
			for _, c := range [2]int32{nd.left, nd.right} {
				if c <= 0 || c >= n || seen[c] {
					return fmt.Errorf("tree %d node %d: child %d is out of range or shared (corrupt tree)", t, i, c)
				}
				seen[c] = true
				stack = append(stack, c)
			}
		}
	}
	return nil
}

// encodeLeaves writes m in the legacy layout leaves reads, applying the
// three fixes described at the top of this file.
func (m *xgbModel) encodeLeaves() []byte {
	size := learnerParamSize + 16 + len(m.objective) + len(m.booster) + gbtreeParamSize + 4*len(m.trees)
	for t := range m.trees {
		size += treeParamSize + len(m.trees[t].nodes)*(nodeSize+nodeStatSize)
	}
	b := make([]byte, 0, size)
	le := binary.LittleEndian
	// Fix 1: no "binf" prefix.
	lp := make([]byte, learnerParamSize)
	le.PutUint32(lp[0:], math.Float32bits(m.baseScore))
	le.PutUint32(lp[4:], m.numFeature)
	b = append(b, lp...)
	for _, s := range []string{m.objective, m.booster} {
		b = le.AppendUint64(b, uint64(len(s)))
		b = append(b, s...)
	}
	gp := make([]byte, gbtreeParamSize)
	le.PutUint32(gp[0:], uint32(len(m.trees)))
	le.PutUint32(gp[4:], 1)            // one root per tree (leaves checks it)
	le.PutUint32(gp[8:], m.numFeature) // num_feature
	le.PutUint32(gp[24:], 1)           // Fix 2: one output group, not 0
	b = append(b, gp...)
	for t := range m.trees {
		tr := &m.trees[t]
		tp := make([]byte, treeParamSize)
		le.PutUint32(tp[0:], 1)
		le.PutUint32(tp[4:], uint32(len(tr.nodes)))
		le.PutUint32(tp[16:], uint32(tr.numFeature))
		b = append(b, tp...)
		for i := range tr.nodes {
			nd := &tr.nodes[i]
			v := nd.value
			if !nd.isLeaf() {
				// Fix 3: x < t (XGBoost) ⇔ x ≤ nextafter(t, −Inf) (leaves).
				v = math.Nextafter32(v, float32(math.Inf(-1)))
			}
			b = le.AppendUint32(b, uint32(nd.parent))
			b = le.AppendUint32(b, uint32(nd.left))
			b = le.AppendUint32(b, uint32(nd.right))
			b = le.AppendUint32(b, nd.sindex)
			b = le.AppendUint32(b, math.Float32bits(v))
		}
		b = append(b, make([]byte, len(tr.nodes)*nodeStatSize)...)
	}
	for range m.trees {
		b = le.AppendUint32(b, 0) // tree_info: group 0
	}
	return b
}
