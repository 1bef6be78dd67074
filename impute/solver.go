package impute

import "math"

// SlateSolver builds slates of distinct candidates from slot-action scores:
// the greedy slot-action slate and the exact maximiser of Σ_j w(j, s_j).
// It keeps scratch space between calls, so a loop over queries does not
// allocate. The zero value is ready to use; a SlateSolver is not safe for
// concurrent use.
//
// Scores follow the package's ℓm convention: for m candidates, w(j, a) =
// w[j*m+a] is the score of candidate a in slot j+1 (e.g. a PI-OPT model's
// pair scores, or the PI weights Γ†q_π). The slate to fill has
// ℓ_x = len(slate) ≤ m entries, slot 1 first; only w's first ℓ_x·m values
// are read.
type SlateSolver struct {
	taken []bool    // per candidate: already in the slate (Greedy)
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

// Greedy fills slate with the greedy slot-action slate: take the
// highest-scoring remaining (candidate, slot) pair, drop every pair of that
// candidate or that slot, repeat. Ties go to the lower slot, then to the
// lower candidate, so the slate is a function of the scores alone. It
// returns the slate's objective Σ_j w(j, s_j) (SlateSum).
func (s *SlateSolver) Greedy(w []float64, m int, slate []int32) float64 {
	lx := len(slate)
	s.taken = resize(s.taken, m)
	clear(s.taken)
	for j := range slate {
		slate[j] = -1
	}
	for range lx {
		bestA, bestJ := -1, -1
		best := math.Inf(-1)
		// Slots in increasing order, candidates in increasing order, and a
		// strict comparison: the first maximum met wins the ties.
		for j := range lx {
			if slate[j] >= 0 {
				continue
			}
			for a := range m {
				if s.taken[a] {
					continue
				}
				if v := w[j*m+a]; v > best || bestA < 0 {
					best, bestA, bestJ = v, a, j
				}
			}
		}
		slate[bestJ] = int32(bestA)
		s.taken[bestA] = true
	}
	return SlateSum(w, m, slate)
}

// exactTieTol is the relative difference under which the greedy slate's
// objective counts as equal to the optimum: the two sums are rounded
// differently, and a true tie must not be reported as a greedy loss.
const exactTieTol = 1e-12

// Exact fills slate with a slate that maximises Σ_j w(j, s_j) over slates
// of distinct candidates, and returns that maximum. With w = Γ†q_π, the
// maxima of w and −w give the range of the PI weights q_πᵀΓ†1_s, hence ρ_x.
//
// It is a rectangular assignment problem (ℓ_x slots to m candidates). Only
// each slot's ℓ_x best candidates need to be kept: if an optimal slate put
// in slot j a candidate outside slot j's best ℓ_x, one of those ℓ_x is
// unused (the other ℓ_x − 1 slots hold at most ℓ_x − 1 candidates) and
// scores at least as much in slot j, so swapping it in loses nothing. The
// remaining ℓ_x × (≤ ℓ_x²) problem is solved by the Hungarian algorithm
// (shortest augmenting paths with potentials, O(ℓ_x⁴)).
//
// When the greedy slate is optimal (objective equal up to a relative 1e-12)
// Exact returns the greedy slate and its objective, so that among tied
// maximisers the choice follows Greedy's documented tie-breaking and the
// two methods differ only where greedy loses objective.
func (s *SlateSolver) Exact(w []float64, m int, slate []int32) float64 {
	lx := len(slate)
	if lx == 0 {
		return 0
	}
	// Candidates: the union over slots of each slot's lx best candidates.
	s.taken = resize(s.taken, m)
	clear(s.taken)
	s.top = resize(s.top, lx)
	for j := range lx {
		for _, a := range s.top[:Top(w[j*m:(j+1)*m], s.top)] {
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
	s.cost = resize(s.cost, n*c)
	for j := range n {
		for k, a := range s.cand {
			s.cost[j*c+k] = -w[j*m+int(a)] // maximise score
		}
	}
	s.hungarian(n, c)
	for k := 1; k <= c; k++ {
		if r := s.p[k]; r > 0 {
			slate[r-1] = s.cand[k-1]
		}
	}
	best := SlateSum(w, m, slate)
	s.gs = resize(s.gs, lx)
	if g := s.Greedy(w, m, s.gs); g >= best-exactTieTol*math.Max(1, math.Abs(best)) {
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
	s.u = resize(s.u, n+1)
	s.v = resize(s.v, c+1)
	s.p = resize(s.p, c+1)
	s.way = resize(s.way, c+1)
	s.minv = resize(s.minv, c+1)
	s.used = resize(s.used, c+1)
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

// Top fills out with the indices of the len(out) largest values of v, by
// value descending, ties to the lower index (indices arrive in increasing
// order and only a strictly higher value moves one up). It returns how many
// it placed: min(len(out), len(v)). It is the exact slate of scores that do
// not depend on the slot, and each slot's shortlist in Exact.
func Top(v []float64, out []int32) int {
	k := 0
	for a, x := range v {
		if k == len(out) && (k == 0 || x <= v[out[k-1]]) {
			continue
		}
		i := k
		if k < len(out) {
			k++
		} else {
			i = k - 1
		}
		for i > 0 && v[out[i-1]] < x {
			out[i] = out[i-1]
			i--
		}
		out[i] = int32(a)
	}
	return k
}
