package ope

import (
	"fmt"
	"math"
	"slices"

	"github.com/piopt/piopt/impute"
)

// Target is a target policy π on the candidates of every query (the one
// type for a target; package internal/policy of piopt builds it from a rank
// source or a PI-OPT model): either
// deterministic (one slate s*(x) per query, q_π = 1_{s*}) or stochastic
// (per-query slot marginals q_π(j, a) = P_π(s_j = a), and optionally the
// slate probabilities π(s|x) that IPS needs).
type Target struct {
	name  string
	slots int
	// Deterministic: query q's slate is slates[off[q]:off[q+1]].
	off    []int
	slates []int32
	// Stochastic: query q's ℓ_x·m_x marginals, and π(s|x) when known.
	marg [][]float64
	prob func(q int, s []int32) float64
	// unseen, when not nil, is per query U_x = Σ_j u_j: the target's slot
	// mass on documents the logging policy never shows there (Coverage).
	unseen []float64
}

// Unseen marks, in a slate given to NewSlateTarget, a slot that shows a
// document the logging policy never shows on that context (not among its
// candidates): PI gives it no weight, and Coverage reports it.
const Unseen int32 = -1

// Name returns the target's name (its spelling on the command line).
func (t *Target) Name() string { return t.name }

// Deterministic reports whether π shows one slate per query.
func (t *Target) Deterministic() bool { return t.slates != nil }

// slate returns query q's target slate (candidate indices) of a
// deterministic target, nil otherwise.
func (t *Target) slate(q int) []int32 {
	if t.slates == nil {
		return nil
	}
	return t.slates[t.off[q]:t.off[q+1]:t.off[q+1]]
}

// marginals returns q_π of query q (ℓ_x·m_x values, index j·m_x + a) of a
// stochastic target, nil for a deterministic one.
func (t *Target) marginals(q int) []float64 {
	if t.marg == nil {
		return nil
	}
	return t.marg[q]
}

// slateProb returns π(s|x) for query q, or NaN when the target does not know its
// slate probabilities (a stochastic target given by marginals only).
func (t *Target) slateProb(q int, s []int32) float64 {
	if t.slates != nil {
		if slices.Equal(t.slate(q), s) {
			return 1
		}
		return 0
	}
	if t.prob == nil {
		return math.NaN()
	}
	return t.prob(q, s)
}

// NewDeterministicTarget returns the target that shows slate(q) on query q:
// ℓ_x = min(ℓ, m_x) distinct candidate indices of c, slot 1 first.
func NewDeterministicTarget(name string, c *impute.Candidates, slots int, slate func(q int) []int32) (*Target, error) {
	return newDeterministic(name, c, slots, slate, false)
}

// NewSlateTarget returns the target that shows slate(q) on query q, as
// NewDeterministicTarget does, except that a slot may hold Unseen (a
// document not among q's candidates): a target given as data (a policy
// file, a run) that names documents the logger never shows. Its estimates
// carry a Coverage.
func NewSlateTarget(name string, c *impute.Candidates, slots int, slate func(q int) []int32) (*Target, error) {
	return newDeterministic(name, c, slots, slate, true)
}

func newDeterministic(name string, c *impute.Candidates, slots int, slate func(q int) []int32, unseen bool) (*Target, error) {
	if slots < 1 {
		return nil, fmt.Errorf("target %s: %d slots", name, slots)
	}
	nq := c.NumQueries()
	t := &Target{name: name, slots: slots, off: make([]int, nq+1)}
	for q := range nq {
		t.off[q+1] = t.off[q] + c.Slots(q, slots)
	}
	t.slates = make([]int32, t.off[nq])
	for q := range nq {
		s := slate(q)
		if err := checkSlate(s, c.Size(q), c.Slots(q, slots), unseen); err != nil {
			return nil, fmt.Errorf("target %s, query %q: %w", name, c.Name(q), err)
		}
		copy(t.slates[t.off[q]:], s)
	}
	if unseen {
		t.unseen = make([]float64, nq)
		for q := range nq {
			for _, a := range t.slate(q) {
				if a == Unseen {
					t.unseen[q]++
				}
			}
		}
	}
	return t, nil
}

// checkSlate reports a slate that is not l distinct candidates out of m
// (or, when unseen, Unseen).
func checkSlate(s []int32, m, l int, unseen bool) error {
	if len(s) != l {
		return fmt.Errorf("slate of %d documents, want %d", len(s), l)
	}
	for j, a := range s {
		if unseen && a == Unseen {
			continue
		}
		if a < 0 || int(a) >= m {
			return fmt.Errorf("slot %d holds candidate %d, not in 0..%d", j+1, a, m-1)
		}
		for _, b := range s[:j] {
			if a == b {
				return fmt.Errorf("slot %d repeats candidate %d", j+1, a)
			}
		}
	}
	return nil
}

// TopTarget returns the deterministic target that shows each query's ℓ_x
// best candidates by a per-document score (one score per dataset document,
// as ranker.Source returns), ties to the lower document position — the top ℓ
// of a rank source restricted to the candidates.
func TopTarget(name string, c *impute.Candidates, slots int, scores []float64) (*Target, error) {
	ds := c.Dataset()
	if len(scores) != ds.NumDocs() {
		return nil, fmt.Errorf("target %s: %d scores for %d documents", name, len(scores), ds.NumDocs())
	}
	var used []bool
	slate := make([]int32, slots)
	return NewDeterministicTarget(name, c, slots, func(q int) []int32 {
		lo, _ := ds.Query(c.Query(q))
		docs := c.Docs(q)
		used = append(used[:0], make([]bool, len(docs))...)
		s := slate[:c.Slots(q, slots)]
		// Selection in O(ℓm): candidates are in logging-rank order, so ties
		// must be broken on the document position explicitly.
		for j := range s {
			best := -1
			for a, d := range docs {
				if used[a] {
					continue
				}
				v := scores[lo+int(d)]
				if best < 0 || v > scores[lo+int(docs[best])] || (v == scores[lo+int(docs[best])] && d < docs[best]) {
					best = a
				}
			}
			used[best] = true
			s[j] = int32(best)
		}
		return s
	})
}

// NewStochasticTarget returns a stochastic target given by its slot
// marginals q_π per query (ℓ_x·m_x values each, index j·m_x + a) and, when
// prob is not nil, its slate probabilities π(s|x) (needed by IPS).
func NewStochasticTarget(name string, c *impute.Candidates, slots int, marginals [][]float64, prob func(q int, s []int32) float64) (*Target, error) {
	return newStochastic(name, c, slots, marginals, nil, prob)
}

// NewPartialStochasticTarget returns a stochastic target as
// NewStochasticTarget does, whose slot j of query q also puts the mass
// unseen[q][j] on documents the logging policy never shows there (not
// among the candidates): each slot's marginals and unseen mass sum to 1.
// PI gives the unseen mass no weight; its estimates carry a Coverage.
func NewPartialStochasticTarget(name string, c *impute.Candidates, slots int, marginals, unseen [][]float64, prob func(q int, s []int32) float64) (*Target, error) {
	if len(unseen) != c.NumQueries() {
		return nil, fmt.Errorf("target %s: unseen mass for %d queries, data has %d", name, len(unseen), c.NumQueries())
	}
	return newStochastic(name, c, slots, marginals, unseen, prob)
}

func newStochastic(name string, c *impute.Candidates, slots int, marginals, unseen [][]float64, prob func(q int, s []int32) float64) (*Target, error) {
	if len(marginals) != c.NumQueries() {
		return nil, fmt.Errorf("target %s: marginals for %d queries, data has %d", name, len(marginals), c.NumQueries())
	}
	for q, m := range marginals {
		lx, mx := c.Slots(q, slots), c.Size(q)
		if len(m) != lx*mx {
			return nil, fmt.Errorf("target %s, query %q: %d marginals, want ℓ·m = %d", name, c.Name(q), len(m), lx*mx)
		}
		if unseen != nil && len(unseen[q]) != lx {
			return nil, fmt.Errorf("target %s, query %q: unseen mass of %d slots, want %d", name, c.Name(q), len(unseen[q]), lx)
		}
		for j := range lx {
			sum := 0.0
			if unseen != nil {
				sum = unseen[q][j]
				if !(sum >= 0 && sum <= 1) {
					return nil, fmt.Errorf("target %s, query %q: unseen mass %g not a probability", name, c.Name(q), sum)
				}
			}
			for _, p := range m[j*mx : (j+1)*mx] {
				if !(p >= 0 && p <= 1) {
					return nil, fmt.Errorf("target %s, query %q: marginal %g not a probability", name, c.Name(q), p)
				}
				sum += p
			}
			if math.Abs(sum-1) > 1e-9 {
				return nil, fmt.Errorf("target %s, query %q: slot %d marginals sum to %g", name, c.Name(q), j+1, sum)
			}
		}
	}
	t := &Target{name: name, slots: slots, marg: marginals, prob: prob}
	if unseen != nil {
		t.unseen = make([]float64, len(unseen))
		for q, u := range unseen {
			for _, x := range u {
				t.unseen[q] += x
			}
		}
	}
	return t, nil
}

// loggingTarget returns the stochastic target that draws slates like the
// logging policy lg on the same candidates (π = μ when lg is the logging
// policy): its marginals come from Γ and its slate probabilities are exact.
func loggingTarget(name string, c *impute.Candidates, slots int, gammas *impute.GammaCache) (*Target, error) {
	nq := c.NumQueries()
	marg := make([][]float64, nq)
	dists := make([]*impute.Dist, nq)
	for q := range nq {
		g, err := gammas.Query(q, c.Size(q), c.Slots(q, slots))
		if err != nil {
			return nil, fmt.Errorf("target %s: %w", name, err)
		}
		marg[q] = g.Marginals(nil)
		dists[q] = g.Dist()
	}
	return NewStochasticTarget(name, c, slots, marg, func(q int, s []int32) float64 { return dists[q].Prob(s) })
}
