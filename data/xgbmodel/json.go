package xgbmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

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
			Name  string          `json:"name"`
			Model jsonGBTreeModel `json:"model"`
		} `json:"gradient_booster"`
	} `json:"learner"`
}

type jsonGBTreeModel struct {
	Param struct {
		NumTrees        string `json:"num_trees"`
		NumParallelTree string `json:"num_parallel_tree"`
		SizeLeafVector  string `json:"size_leaf_vector"`
	} `json:"gbtree_model_param"`
	Trees    []jsonTree `json:"trees"`
	TreeInfo []int      `json:"tree_info"`
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

func decodeJSON(b []byte) (*Model, error) {
	var j jsonModel
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&j); err != nil {
		return nil, fmt.Errorf("JSON model: %w (UBJSON models are not supported: save to a .json or a binary path)", err)
	}
	l := &j.Learner
	m := &Model{Objective: l.Objective.Name, Booster: l.GradientBooster.Name, Attrs: l.Attributes}
	if m.Attrs == nil {
		m.Attrs = map[string]string{}
	}
	if m.Booster != "gbtree" {
		return nil, fmt.Errorf("booster %q: only gbtree models are supported", m.Booster)
	}
	bs, err := strconv.ParseFloat(l.LearnerModelParam.BaseScore, 32)
	if err != nil {
		return nil, fmt.Errorf("learner_model_param.base_score = %q: not a number", l.LearnerModelParam.BaseScore)
	}
	m.BaseScore = float32(bs)
	nf, err := atoiField(l.LearnerModelParam.NumFeature, "learner_model_param.num_feature")
	if err != nil {
		return nil, err
	}
	if nf < 0 || nf > math.MaxInt32 {
		return nil, fmt.Errorf("learner_model_param.num_feature = %d: out of range", nf)
	}
	m.NumFeature = uint32(nf)
	nc, err := atoiField(l.LearnerModelParam.NumClass, "learner_model_param.num_class")
	if err != nil {
		return nil, err
	}
	if nc > 1 {
		return nil, fmt.Errorf("model has %d output classes; piopt models have one output", nc)
	}
	if m.Trees, err = decodeJSONTrees(&l.GradientBooster.Model); err != nil {
		return nil, err
	}
	return m, nil
}

// decodeJSONTrees checks the gbtree parameters and tree info of gm and
// converts its trees.
func decodeJSONTrees(gm *jsonGBTreeModel) ([]Tree, error) {
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
	trees := make([]Tree, nt)
	for t := range gm.Trees {
		if err := gm.Trees[t].decode(t, &trees[t]); err != nil {
			return nil, err
		}
	}
	return trees, nil
}

// decode converts tree t, checking that its node arrays agree.
func (jt *jsonTree) decode(t int, tr *Tree) error {
	n, err := atoiField(jt.Param.NumNodes, fmt.Sprintf("tree %d: tree_param.num_nodes", t))
	if err != nil {
		return err
	}
	if lv, _ := atoiField(jt.Param.SizeLeafVector, ""); lv != 0 {
		return fmt.Errorf("tree %d has leaf vectors (size %d); not supported", t, lv)
	}
	if n < 1 || len(jt.Left) != n || len(jt.Right) != n || len(jt.Parents) != n ||
		len(jt.Indices) != n || len(jt.Conditions) != n || len(jt.Default) != n {
		return fmt.Errorf("tree %d: node arrays do not all have num_nodes = %d entries", t, n)
	}
	for _, st := range jt.SplitType {
		if st != 0 {
			return fmt.Errorf("tree %d has categorical splits; not supported", t)
		}
	}
	tf, err := atoiField(jt.Param.NumFeature, fmt.Sprintf("tree %d: tree_param.num_feature", t))
	if err != nil {
		return err
	}
	tr.NumFeature = int32(tf)
	tr.Nodes = make([]Node, n)
	for i := range tr.Nodes {
		c, err := strconv.ParseFloat(string(jt.Conditions[i]), 32)
		if err != nil {
			return fmt.Errorf("tree %d node %d: split_conditions entry %q: not a float32", t, i, jt.Conditions[i])
		}
		if jt.Indices[i] >= 1<<31 {
			return fmt.Errorf("tree %d node %d: split index %d out of range", t, i, jt.Indices[i])
		}
		sindex := jt.Indices[i]
		if jt.Default[i] {
			sindex |= 1 << 31
		}
		tr.Nodes[i] = Node{Parent: jt.Parents[i], Left: jt.Left[i], Right: jt.Right[i], SplitIndex: sindex, Value: float32(c)}
	}
	return nil
}
