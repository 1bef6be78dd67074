package ranker

import (
	"fmt"
	"math/rand/v2"

	"github.com/piopt/piopt/impute"
)

// SlateMethod chooses how a PI-OPT model's pair scores become a slate.
type SlateMethod int

const (
	// SlateGreedy is docs/design.md's greedy slot-action ranker.
	SlateGreedy SlateMethod = iota
	// SlateExact maximises Σ_j score(s_j, j) over slates without repetition.
	SlateExact
)

// ParseSlateMethod reads "greedy" or "exact".
func ParseSlateMethod(s string) (SlateMethod, error) {
	switch s {
	case "greedy", "":
		return SlateGreedy, nil
	case "exact":
		return SlateExact, nil
	}
	return 0, fmt.Errorf("slate method %q: want greedy or exact", s)
}

// String returns "greedy" or "exact".
func (k SlateMethod) String() string {
	if k == SlateExact {
		return "exact"
	}
	return "greedy"
}

// Solve fills slate by the method from the pair scores w of m documents in
// impute's ℓm convention (w[j*m+a]: document a in slot j+1), with s's
// scratch space, and returns the slate's objective Σ_j w(j, s_j).
func (k SlateMethod) Solve(s *impute.SlateSolver, w []float64, m int, slate []int32) float64 {
	if k == SlateExact {
		return s.Exact(w, m, slate)
	}
	return s.Greedy(w, m, slate)
}

// slotMajor writes the first lx slots of one query's pair scores v (one row
// of stride scores per document, as in Scores.Values) into dst in the ℓm
// convention the solver reads: dst[j*m+a] = v[a*stride+j].
func slotMajor(dst, v []float64, stride, lx int) []float64 {
	m := len(v) / stride
	if cap(dst) < lx*m {
		dst = make([]float64, lx*m)
	}
	dst = dst[:lx*m]
	for j := range lx {
		for a := range m {
			dst[j*m+a] = v[a*stride+j]
		}
	}
	return dst
}

// randomSlate fills slate with a uniformly random ordered choice of
// len(slate) distinct documents out of m (a partial Fisher–Yates shuffle),
// using perm as scratch; it returns perm for reuse.
func randomSlate(perm []int32, m int, rng *rand.Rand, slate []int32) []int32 {
	if cap(perm) < m {
		perm = make([]int32, m)
	}
	perm = perm[:m]
	for i := range perm {
		perm[i] = int32(i)
	}
	for j := range slate {
		t := j + rng.IntN(m-j)
		perm[j], perm[t] = perm[t], perm[j]
		slate[j] = perm[j]
	}
	return perm
}
