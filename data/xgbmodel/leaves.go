package xgbmodel

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/dmitryikh/leaves"
)

// Leaves returns m as a leaves ensemble, through the load-time transform
// of the package doc: its raw prediction of a row equals XGBoost's, up to
// float32 rounding of XGBoost's sum. m must have passed Check (Decode
// does); a Model with a subset of Trees (and BaseScore 0 for all but one
// part) gives a partial sum.
func (m *Model) Leaves() (*leaves.Ensemble, error) {
	ens, err := leaves.XGEnsembleFromReader(bufio.NewReader(bytes.NewReader(m.encodeLeaves())), false)
	if err != nil {
		return nil, fmt.Errorf("leaves: %w", err)
	}
	return ens, nil
}

// encodeLeaves writes m in the legacy layout leaves reads, applying the
// three fixes of the package doc.
func (m *Model) encodeLeaves() []byte {
	size := learnerParamSize + 16 + len(m.Objective) + len(m.Booster) + gbtreeParamSize + 4*len(m.Trees)
	for t := range m.Trees {
		size += treeParamSize + len(m.Trees[t].Nodes)*(nodeSize+nodeStatSize)
	}
	b := make([]byte, 0, size)
	le := binary.LittleEndian
	// Fix 1: no "binf" prefix.
	lp := make([]byte, learnerParamSize)
	le.PutUint32(lp[0:], math.Float32bits(m.BaseScore))
	le.PutUint32(lp[4:], m.NumFeature)
	b = append(b, lp...)
	for _, s := range []string{m.Objective, m.Booster} {
		b = le.AppendUint64(b, uint64(len(s)))
		b = append(b, s...)
	}
	gp := make([]byte, gbtreeParamSize)
	le.PutUint32(gp[0:], uint32(len(m.Trees)))
	le.PutUint32(gp[4:], 1)            // one root per tree (leaves checks it)
	le.PutUint32(gp[8:], m.NumFeature) // num_feature
	le.PutUint32(gp[24:], 1)           // Fix 2: one output group, not 0
	b = append(b, gp...)
	for t := range m.Trees {
		tr := &m.Trees[t]
		tp := make([]byte, treeParamSize)
		le.PutUint32(tp[0:], 1)
		le.PutUint32(tp[4:], uint32(len(tr.Nodes)))
		le.PutUint32(tp[16:], uint32(tr.NumFeature))
		b = append(b, tp...)
		for i := range tr.Nodes {
			nd := &tr.Nodes[i]
			v := nd.Value
			if !nd.IsLeaf() {
				// Fix 3: x < t (XGBoost) ⇔ x ≤ nextafter(t, −Inf) (leaves).
				v = math.Nextafter32(v, float32(math.Inf(-1)))
			}
			b = le.AppendUint32(b, uint32(nd.Parent))
			b = le.AppendUint32(b, uint32(nd.Left))
			b = le.AppendUint32(b, uint32(nd.Right))
			b = le.AppendUint32(b, nd.SplitIndex)
			b = le.AppendUint32(b, math.Float32bits(v))
		}
		b = append(b, make([]byte, len(tr.Nodes)*nodeStatSize)...)
	}
	for range m.Trees {
		b = le.AppendUint32(b, 0) // tree_info: group 0
	}
	return b
}
