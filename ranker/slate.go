package ranker

import (
	"math"
	"math/rand/v2"
)

// SlateSolver builds one query's slate from its scores. It keeps scratch
// space between calls, so a loop over queries does not allocate. The zero
// value is ready to use; a SlateSolver is not safe for concurrent use.
//
// Pair scores of a query with m documents are a row-major m × stride matrix:
// scores[a*stride+j] is the score of document a in slot j+1. The slate to
// fill has ℓ_x = len(slate) ≤ min(m, stride) entries, slot 1 first; a slate
// is a list of distinct document positions.
type SlateSolver struct {
	taken []bool    // per document: already in the slate (Greedy)
	perm  []int32   // Random's partial shuffle
	cand  []int32   // Exact: candidate documents, increasing
	top   []int32   // Exact: one slot's best documents
	cost  []float64 // Exact: ℓ_x × |cand| costs, row-major
	u, v  []float64 // Hungarian potentials (1-based)
	minv  []float64
	p     []int // p[col] = row assigned to column col (1-based, 0 = none)
	way   []int
	used  []bool
	gs    []int32 // Exact: the greedy slate, kept when it is optimal
}

// Greedy fills slate with the greedy slot-action slate of DESIGN.md: take
// the highest-scoring remaining (document, slot) pair, drop every pair of
// that document or that slot, repeat. Ties go to the lower slot, then to the
// lower document position, so the slate is a function of the scores alone.
// It returns the slate's objective Σ_j scores(slate[j], j).
func (s *SlateSolver) Greedy(scores []float64, stride int, slate []int32) float64 {
	m := len(scores) / stride
	lx := len(slate)
	s.taken = grow(s.taken, m)
	clear(s.taken)
	for j := range slate {
		slate[j] = -1
	}
	for range lx {
		bestA, bestJ := -1, -1
		best := math.Inf(-1)
		// Slots in increasing order, documents in increasing order, and a
		// strict comparison: the first maximum met wins the ties.
		for j := range lx {
			if slate[j] >= 0 {
				continue
			}
			for a := range m {
				if s.taken[a] {
					continue
				}
				if v := scores[a*stride+j]; v > best || bestA < 0 {
					best, bestA, bestJ = v, a, j
				}
			}
		}
		slate[bestJ] = int32(bestA)
		s.taken[bestA] = true
	}
	return objective(scores, stride, slate)
}

// objective returns Σ_j scores(slate[j], j), summed in slot order.
func objective(scores []float64, stride int, slate []int32) float64 {
	o := 0.0
	for j, a := range slate {
		o += scores[int(a)*stride+j]
	}
	return o
}

// exactTieTol is the relative difference under which the greedy slate's
// objective counts as equal to the optimum: the two sums are rounded
// differently, and a true tie must not be reported as a greedy loss.
const exactTieTol = 1e-12

// Exact fills slate with a slate that maximises Σ_j scores(slate[j], j)
// over slates of distinct documents, and returns that maximum.
//
// It is a rectangular assignment problem (ℓ_x slots to m documents). Only
// each slot's ℓ_x best documents need to be kept: if an optimal slate put in
// slot j a document outside slot j's best ℓ_x, one of those ℓ_x is unused
// (the other ℓ_x − 1 slots hold at most ℓ_x − 1 documents) and scores at
// least as much in slot j, so swapping it in loses nothing. The remaining
// ℓ_x × (≤ ℓ_x²) problem is solved by the Hungarian algorithm (shortest
// augmenting paths with potentials, O(ℓ_x⁴)).
//
// When the greedy slate is optimal (objective equal up to a relative 1e-12)
// Exact returns the greedy slate, so that among tied maximisers the choice
// follows Greedy's documented tie-breaking and the two methods differ only
// where greedy loses objective.
func (s *SlateSolver) Exact(scores []float64, stride int, slate []int32) float64 {
	lx := len(slate)
	if lx == 0 {
		return 0
	}
	m := len(scores) / stride
	// Candidates: the union over slots of each slot's lx best documents.
	s.taken = grow(s.taken, m)
	clear(s.taken)
	s.top = grow(s.top, lx)
	for j := range lx {
		for _, a := range s.top[:topInto(scores, stride, j, s.top)] {
			s.taken[a] = true
		}
	}
	s.cand = s.cand[:0]
	for a := range m {
		if s.taken[a] {
			s.cand = append(s.cand, int32(a))
		}
	}
	n, c := lx, len(s.cand) // rows = slots, columns = candidates, n ≤ c
	s.cost = grow(s.cost, n*c)
	for j := range n {
		for k, a := range s.cand {
			s.cost[j*c+k] = -scores[int(a)*stride+j] // maximise score
		}
	}
	s.hungarian(n, c)
	for k := 1; k <= c; k++ {
		if r := s.p[k]; r > 0 {
			slate[r-1] = s.cand[k-1]
		}
	}
	best := objective(scores, stride, slate)
	s.gs = grow(s.gs, lx)
	if g := s.Greedy(scores, stride, s.gs); g >= best-exactTieTol*math.Max(1, math.Abs(best)) {
		copy(slate, s.gs)
		return g
	}
	return best
}

// hungarian solves min Σ cost[row, col(row)] over injective row → column
// maps for the n × c matrix s.cost (n ≤ c), leaving the assignment in s.p
// (s.p[col] = row, both 1-based). It is the classic O(n²·c) algorithm with
// row and column potentials that adds one row at a time along a shortest
// augmenting path.
func (s *SlateSolver) hungarian(n, c int) {
	s.u = grow(s.u, n+1)
	s.v = grow(s.v, c+1)
	s.p = grow(s.p, c+1)
	s.way = grow(s.way, c+1)
	s.minv = grow(s.minv, c+1)
	s.used = grow(s.used, c+1)
	clear(s.u)
	clear(s.v)
	clear(s.p)
	clear(s.way)
	for i := 1; i <= n; i++ {
		s.p[0] = i
		j0 := 0
		for k := range s.minv {
			s.minv[k] = math.Inf(1)
		}
		clear(s.used)
		for {
			s.used[j0] = true
			i0 := s.p[j0]
			delta, j1 := math.Inf(1), 0
			for j := 1; j <= c; j++ {
				if s.used[j] {
					continue
				}
				cur := s.cost[(i0-1)*c+j-1] - s.u[i0] - s.v[j]
				if cur < s.minv[j] {
					s.minv[j], s.way[j] = cur, j0
				}
				if s.minv[j] < delta {
					delta, j1 = s.minv[j], j
				}
			}
			for j := 0; j <= c; j++ {
				if s.used[j] {
					s.u[s.p[j]] += delta
					s.v[j] -= delta
				} else {
					s.minv[j] -= delta
				}
			}
			j0 = j1
			if s.p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := s.way[j0]
			s.p[j0] = s.p[j1]
			j0 = j1
		}
	}
}

// Top fills slate with the len(slate) highest-scoring documents in score
// order, ties to the lower document position: the slate of a pointwise
// (SUP, LambdaMART) model. scores has one value per document. It returns
// the sum of the chosen scores.
func (s *SlateSolver) Top(scores []float64, slate []int32) float64 {
	topInto(scores, 1, 0, slate)
	o := 0.0
	for _, a := range slate {
		o += scores[a]
	}
	return o
}

// topInto fills out with the documents of the len(out) highest values in
// column col of scores (stride values per document), by value descending,
// ties to the lower document (documents arrive in increasing order and only
// a strictly higher value moves one up). It returns how many it placed:
// min(len(out), number of documents).
func topInto(scores []float64, stride, col int, out []int32) int {
	k := 0
	for a := range len(scores) / stride {
		v := scores[a*stride+col]
		if k == len(out) && (k == 0 || v <= scores[int(out[k-1])*stride+col]) {
			continue
		}
		i := k
		if k < len(out) {
			k++
		} else {
			i = k - 1
		}
		for i > 0 && scores[int(out[i-1])*stride+col] < v {
			out[i] = out[i-1]
			i--
		}
		out[i] = int32(a)
	}
	return k
}

// Solve fills slate by method (greedy or exact) and returns its objective.
func (s *SlateSolver) Solve(method SlateMethod, scores []float64, stride int, slate []int32) float64 {
	if method == SlateExact {
		return s.Exact(scores, stride, slate)
	}
	return s.Greedy(scores, stride, slate)
}

// Random fills slate with a uniformly random ordered choice of len(slate)
// distinct documents out of m (a partial Fisher–Yates shuffle).
func (s *SlateSolver) Random(m int, rng *rand.Rand, slate []int32) {
	s.perm = grow(s.perm, m)
	for i := range s.perm {
		s.perm[i] = int32(i)
	}
	for j := range slate {
		t := j + rng.IntN(m-j)
		s.perm[j], s.perm[t] = s.perm[t], s.perm[j]
		slate[j] = s.perm[j]
	}
}

// grow returns b resized to n, reusing its array when large enough.
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}
