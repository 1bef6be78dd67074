package xgboost

import (
	"encoding/binary"
	"fmt"
)

// Layout of a model saved in XGBoost 1.7's legacy binary format
// (FormatBinary), all little-endian, as XGBoost's LearnerIO::SaveModel
// writes it:
//
//	"binf"                          4 bytes, added by XGBoost ≥ 1.6 (older files lack it)
//	LearnerModelParamLegacy       136 bytes: base_score float32 @0, num_feature uint32 @4,
//	                                num_class int32 @8, contain_extra_attrs int32 @12 (1),
//	                                contain_eval_metrics int32 @16, major_version uint32 @20,
//	                                minor_version uint32 @24, reserved
//	objective name                string: uint64 length + bytes ("reg:squarederror")
//	booster name                  string ("gbtree")
//	GBTreeModelParam              160 bytes: num_trees int32 @0, num_parallel_tree int32 @4,
//	                                num_feature int32 @8, pad @12, int64 @16,
//	                                num_output_group int32 @24 (saved as 0 by 1.7),
//	                                size_leaf_vector int32 @28, reserved
//	num_trees × tree:
//	  TreeParam                   148 bytes: num_roots @0, num_nodes int32 @4, num_deleted @8,
//	                                max_depth @12, num_feature @16, size_leaf_vector int32 @20, reserved
//	  num_nodes × node             20 bytes: parent int32, left int32 (-1: leaf), right int32,
//	                                split index uint32 (bit 31: missing goes left),
//	                                leaf value or split threshold float32 (go left when x < t)
//	  num_nodes × node statistics  16 bytes: loss_chg, sum_hess, base_weight float32, leaf_child_cnt int32
//	  [leaf vector]                only when size_leaf_vector > 0: uint64 n + n float32
//	tree_info                     num_trees × int32 (no length prefix), only when num_trees > 0
//	attributes                    only when contain_extra_attrs ≠ 0: uint64 n, then n pairs of
//	                                strings (key, value), sorted by key. XGBoost adds the key
//	                                "objective" (the objective's JSON configuration) and drops
//	                                it again when it loads the file.
//
// The prediction of a row is base_score plus the leaf value reached in each
// tree.
const (
	legacyLearnerParamSize = 136
	legacyGBTreeParamSize  = 160
	legacyTreeParamSize    = 148
	legacyNodeSize         = 20
	legacyStatSize         = 16
)

type legacyReader struct {
	b   []byte
	off int
}

func (r *legacyReader) take(n int, what string) ([]byte, error) {
	if n < 0 || n > len(r.b)-r.off {
		return nil, fmt.Errorf("xgboost binary model: truncated at byte %d reading %s", r.off, what)
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p, nil
}

func (r *legacyReader) u64(what string) (int, error) {
	p, err := r.take(8, what)
	if err != nil {
		return 0, err
	}
	n := binary.LittleEndian.Uint64(p)
	if n > uint64(len(r.b)) {
		return 0, fmt.Errorf("xgboost binary model: %s length %d at byte %d exceeds the file", what, n, r.off-8)
	}
	return int(n), nil
}

func (r *legacyReader) str(what string) (string, error) {
	n, err := r.u64(what)
	if err != nil {
		return "", err
	}
	p, err := r.take(n, what)
	return string(p), err
}

func i32(p []byte, off int) int { return int(int32(binary.LittleEndian.Uint32(p[off:]))) }

// LegacyAttrs reads the attributes of a model saved in XGBoost's legacy
// binary format, in pure Go (it needs no cgo). The layout is documented
// above; a file that does not follow it is an error. The "objective" key
// that XGBoost itself adds is included.
func LegacyAttrs(model []byte) (map[string]string, error) {
	r := &legacyReader{b: model}
	if len(model) >= 4 && string(model[:4]) == "binf" {
		r.off = 4
	}
	lp, err := r.take(legacyLearnerParamSize, "learner parameters")
	if err != nil {
		return nil, err
	}
	extra := i32(lp, 12)
	if _, err := r.str("objective name"); err != nil {
		return nil, err
	}
	booster, err := r.str("booster name")
	if err != nil {
		return nil, err
	}
	if booster != "gbtree" {
		return nil, fmt.Errorf("xgboost binary model: booster %q, want gbtree", booster)
	}
	gp, err := r.take(legacyGBTreeParamSize, "gbtree parameters")
	if err != nil {
		return nil, err
	}
	trees := i32(gp, 0)
	if trees < 0 || trees > len(model) {
		return nil, fmt.Errorf("xgboost binary model: %d trees", trees)
	}
	for t := range trees {
		tp, err := r.take(legacyTreeParamSize, fmt.Sprintf("tree %d parameters", t))
		if err != nil {
			return nil, err
		}
		nodes, leafVec := i32(tp, 4), i32(tp, 20)
		if nodes <= 0 || nodes > len(model)/legacyNodeSize {
			return nil, fmt.Errorf("xgboost binary model: tree %d has %d nodes", t, nodes)
		}
		if _, err := r.take(nodes*(legacyNodeSize+legacyStatSize), fmt.Sprintf("tree %d nodes", t)); err != nil {
			return nil, err
		}
		if leafVec > 0 {
			n, err := r.u64("leaf vector")
			if err != nil {
				return nil, err
			}
			if _, err := r.take(4*n, "leaf vector"); err != nil {
				return nil, err
			}
		}
	}
	if trees > 0 {
		if _, err := r.take(4*trees, "tree info"); err != nil {
			return nil, err
		}
	}
	attrs := map[string]string{}
	if extra != 0 {
		n, err := r.u64("attribute count")
		if err != nil {
			return nil, err
		}
		for range n {
			k, err := r.str("attribute key")
			if err != nil {
				return nil, err
			}
			v, err := r.str("attribute value")
			if err != nil {
				return nil, err
			}
			attrs[k] = v
		}
	}
	if r.off != len(model) {
		return nil, fmt.Errorf("xgboost binary model: %d unexpected bytes after the attributes", len(model)-r.off)
	}
	return attrs, nil
}
