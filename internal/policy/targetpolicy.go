package policy

import (
	"math"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/ope"
)

// entryTarget is one target policy-file entry over its own candidates
// (EntryOrder): its slot marginals, exact from the machinery of μ's (Γ's
// marginals), or its one slate (rank).
type entryTarget struct {
	docs []int32      // the entry's candidates, EntryOrder
	l    int          // slots it fills: min(ℓ, len(docs))
	marg []float64    // l·len(docs), index j·len(docs) + i
	dist *impute.Dist // nil for rank
}

// newEntryTarget computes an entry's marginals over l slots.
func newEntryTarget(e *data.PolicyEntry, slots int, gopt impute.GammaOptions) (*entryTarget, error) {
	docs, scores := EntryOrder(e)
	t := &entryTarget{docs: docs, l: min(slots, len(docs))}
	n := len(docs)
	if e.Spec == "rank" {
		t.marg = make([]float64, t.l*n)
		for j := range t.l {
			t.marg[j*n+j] = 1
		}
		return t, nil
	}
	d, err := entryDist(e, scores, t.l)
	if err != nil {
		return nil, err
	}
	g, err := impute.NewGamma(d, gopt)
	if err != nil {
		return nil, err
	}
	t.dist, t.marg = d, g.Marginals(nil)
	return t, nil
}

// policyTarget is the target a policy file gives per context: the entry of
// the unit's context, else of its qid. Deterministic when every entry used
// is rank; otherwise stochastic with exact marginals (rank's are 0/1). The
// mass on documents that are not the unit's candidates is unseen mass.
func policyTarget(spec string, pf *data.PolicyFile, c *impute.Candidates, slots int, gopt impute.GammaOptions) (*ope.Target, error) {
	if pf.Slots != slots {
		return nil, &data.ParseError{File: pf.Name, Line: 1, Err: data.Errorf(data.ErrHeader, "slots=%d but the log has slots=%d", pf.Slots, slots)}
	}
	byCtx := make(map[string]int, len(pf.Entries))
	for i := range pf.Entries {
		byCtx[pf.Entries[i].Context] = i
	}
	nq := c.NumQueries()
	units := make([]*entryTarget, nq)
	cache := map[int]*entryTarget{}
	deterministic := true
	for q := range nq {
		i, ok := byCtx[c.Name(q)]
		if !ok {
			qid, _, _ := strings.Cut(c.Name(q), "@")
			if i, ok = byCtx[qid]; !ok {
				return nil, noLine(pf.Name, "line", c, q)
			}
		}
		if cache[i] == nil {
			e := &pf.Entries[i]
			t, err := newEntryTarget(e, slots, gopt)
			if err != nil {
				return nil, &data.ParseError{File: pf.Name, Line: e.Line, Field: 2, Token: e.Spec, Err: data.Errorf(data.ErrPolicy, "%v", err)}
			}
			cache[i] = t
		}
		units[q] = cache[i]
		deterministic = deterministic && units[q].dist == nil
	}
	maps := make([][]int32, nq) // per unit: the entry's candidate i → candidate index or Unseen
	for q, t := range units {
		maps[q] = make([]int32, len(t.docs))
		for i, d := range t.docs {
			maps[q][i] = candidateIndex(c, q, d)
		}
	}
	if deterministic {
		return ope.NewSlateTarget(spec, c, slots, func(q int) []int32 {
			s := make([]int32, c.Slots(q, slots))
			for j := range s {
				s[j] = ope.Unseen
				if j < units[q].l {
					s[j] = maps[q][j]
				}
			}
			return s
		})
	}
	marg, unseen := make([][]float64, nq), make([][]float64, nq)
	for q, t := range units {
		marg[q], unseen[q] = t.unitMarginals(maps[q], c.Size(q), c.Slots(q, slots))
	}
	return ope.NewPartialStochasticTarget(spec, c, slots, marg, unseen, policyProb(c, units, maps))
}

// unitMarginals maps the entry's marginals onto a unit's lx slots and mx
// candidates (m maps the entry's candidates): the mass of documents that
// are not candidates, and of the slots the entry does not fill, is unseen.
func (t *entryTarget) unitMarginals(m []int32, mx, lx int) (marg, unseen []float64) {
	marg, unseen = make([]float64, lx*mx), make([]float64, lx)
	n := len(t.docs)
	for j := range lx {
		if j >= t.l {
			unseen[j] = 1
			continue
		}
		for i, a := range m {
			p := t.marg[j*n+i]
			if a == ope.Unseen {
				unseen[j] += p
			} else {
				marg[j*mx+int(a)] += p
			}
		}
	}
	return marg, unseen
}

// policyProb returns π(s|x) of the policy target for a slate of candidate
// indices: the entry's probability of the same documents in the same
// slots (0 when one is not among its candidates; NaN when the entry fills
// a different number of slots than the log's slate has).
func policyProb(c *impute.Candidates, units []*entryTarget, maps [][]int32) func(q int, s []int32) float64 {
	var buf []int32
	return func(q int, s []int32) float64 {
		t := units[q]
		if t.l != len(s) {
			return math.NaN()
		}
		buf = buf[:0]
		for _, a := range s {
			i := -1
			for k, b := range maps[q] {
				if b == a {
					i = k
					break
				}
			}
			if i < 0 {
				return 0
			}
			buf = append(buf, int32(i))
		}
		if t.dist == nil { // rank: its one slate is the first l
			for j, i := range buf {
				if int(i) != j {
					return 0
				}
			}
			return 1
		}
		return t.dist.Prob(buf)
	}
}
