package xgbmodel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Sizes of the legacy binary format's fixed records (see the package doc).
const (
	learnerParamSize = 136
	gbtreeParamSize  = 160
	treeParamSize    = 148
	nodeSize         = 20
	nodeStatSize     = 16
)

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

func decodeBinary(b []byte) (*Model, error) {
	r := &binReader{b: b}
	if bytes.HasPrefix(b, []byte("CONFIG-offset:")) {
		return nil, errors.New("this is a serialised XGBoost booster (pickle/memory snapshot), not a saved model")
	}
	if bytes.HasPrefix(b, []byte("binf")) {
		r.off = 4
	}
	m := &Model{}
	numTrees, extraAttrs, err := r.header(m)
	if err != nil {
		return nil, err
	}
	m.Trees = make([]Tree, numTrees)
	for t := range m.Trees {
		if err := r.tree(t, &m.Trees[t]); err != nil {
			return nil, err
		}
	}
	if err := r.treeInfo(int(numTrees)); err != nil {
		return nil, err
	}
	if m.Attrs, err = r.attrs(extraAttrs != 0); err != nil {
		return nil, err
	}
	if r.off != len(b) {
		return nil, fmt.Errorf("byte %d: %d unexpected bytes after the model", r.off, len(b)-r.off)
	}
	return m, nil
}

// header reads the learner parameters, the objective and booster names and
// the gbtree parameters into m, and returns the tree count and the
// contain_extra_attrs flag.
func (r *binReader) header(m *Model) (numTrees, extraAttrs int32, err error) {
	p := r.next(learnerParamSize, "the learner parameters")
	if p == nil {
		return 0, 0, r.err
	}
	m.BaseScore = f32(p, 0)
	m.NumFeature = u32(p, 4)
	numClass := i32(p, 8)
	extraAttrs = i32(p, 12)
	m.Objective = r.string("the objective name")
	m.Booster = r.string("the booster name")
	if r.err != nil {
		return 0, 0, r.err
	}
	if m.Booster != "gbtree" {
		return 0, 0, fmt.Errorf("booster %q: only gbtree models are supported", m.Booster)
	}
	if numClass > 1 {
		return 0, 0, fmt.Errorf("model has %d output classes; piopt models have one output", numClass)
	}
	p = r.next(gbtreeParamSize, "the gbtree parameters")
	if p == nil {
		return 0, 0, r.err
	}
	numTrees = i32(p, 0)
	if parallel := i32(p, 4); parallel > 1 {
		return 0, 0, fmt.Errorf("model has %d parallel trees per round (random forest); not supported", parallel)
	}
	if lv := i32(p, 28); lv != 0 {
		return 0, 0, fmt.Errorf("model has leaf vectors (size %d); not supported", lv)
	}
	// Each tree takes at least a TreeParam and one node.
	if numTrees < 0 || int64(numTrees)*(treeParamSize+nodeSize+nodeStatSize) > int64(len(r.b)-r.off) {
		return 0, 0, fmt.Errorf("byte %d: tree count %d does not fit in the file", r.off-gbtreeParamSize, numTrees)
	}
	return numTrees, extraAttrs, nil
}

// tree reads tree t (its parameters, nodes and node statistics) into tr.
func (r *binReader) tree(t int, tr *Tree) error {
	tp := r.next(treeParamSize, fmt.Sprintf("tree %d's parameters", t))
	if tp == nil {
		return r.err
	}
	numNodes := i32(tp, 4)
	if lv := i32(tp, 20); lv != 0 {
		return fmt.Errorf("tree %d has leaf vectors (size %d); not supported", t, lv)
	}
	if numNodes < 1 || int64(numNodes)*(nodeSize+nodeStatSize) > int64(len(r.b)-r.off) {
		return fmt.Errorf("byte %d: tree %d: node count %d does not fit in the file", r.off-treeParamSize, t, numNodes)
	}
	tr.NumFeature = i32(tp, 16)
	np := r.next(int(numNodes)*nodeSize, fmt.Sprintf("tree %d's nodes", t))
	r.next(int(numNodes)*nodeStatSize, fmt.Sprintf("tree %d's node statistics", t))
	if r.err != nil {
		return r.err
	}
	tr.Nodes = make([]Node, numNodes)
	for i := range tr.Nodes {
		q := np[i*nodeSize:]
		tr.Nodes[i] = Node{Parent: i32(q, 0), Left: i32(q, 4), Right: i32(q, 8), SplitIndex: u32(q, 12), Value: f32(q, 16)}
	}
	return nil
}

// treeInfo reads the output group of each of the numTrees trees, which must
// all be 0.
func (r *binReader) treeInfo(numTrees int) error {
	if numTrees == 0 {
		return nil
	}
	ti := r.next(4*numTrees, "the tree info")
	if ti == nil {
		return r.err
	}
	for t := range numTrees {
		if g := i32(ti, 4*t); g != 0 {
			return fmt.Errorf("tree %d belongs to output group %d; piopt models have one output", t, g)
		}
	}
	return nil
}

// attrs reads the attributes when the file has them (present), else
// returns an empty map.
func (r *binReader) attrs(present bool) (map[string]string, error) {
	attrs := map[string]string{}
	if !present {
		return attrs, nil
	}
	p := r.next(8, "the attribute count")
	if p == nil {
		return nil, r.err
	}
	n := binary.LittleEndian.Uint64(p)
	if n > uint64(len(r.b)-r.off)/16 {
		return nil, fmt.Errorf("byte %d: attribute count %d does not fit in the file", r.off-8, n)
	}
	for range n {
		k := r.string("an attribute name")
		v := r.string("an attribute value")
		if r.err != nil {
			return nil, r.err
		}
		attrs[k] = v
	}
	return attrs, nil
}
