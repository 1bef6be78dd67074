package impute

import (
	"context"
	"fmt"

	"github.com/piopt/piopt/data"
)

// MaxSlots is the largest slate length: targets store slots in a byte.
const MaxSlots = 255

// Stats are the per-query sufficient statistics of a slate log: for every
// query x, S_x(j,a) = Σ_i r_i·1{s_ij = a} (ℓ_x·m_x numbers, candidate
// indices), Σ_i r_i and n_x. The PI estimator is linear, so they are all the
// targets need: φ̄_x = Γ†(S_x/n_x). Memory is O(Σ_x ℓ_x·m_x), whatever the
// number of samples.
//
// Add is not safe for concurrent use on one query; different queries may be
// added to concurrently.
type Stats struct {
	cands *Candidates
	slots int
	off   []int // query q's S_x is sum[off[q]:off[q+1]]
	sum   []float64
	rsum  []float64
	count []int64
}

// NewStats returns empty statistics for slates of up to slots slots drawn
// from c's candidates (query x's slates have ℓ_x = min(slots, m_x) slots).
func NewStats(c *Candidates, slots int) (*Stats, error) {
	if slots < 1 || slots > MaxSlots {
		return nil, fmt.Errorf("impute: %d slots outside 1..%d", slots, MaxSlots)
	}
	nq := c.NumQueries()
	s := &Stats{cands: c, slots: slots, off: make([]int, nq+1), rsum: make([]float64, nq), count: make([]int64, nq)}
	for q := range nq {
		s.off[q+1] = s.off[q] + c.Slots(q, slots)*c.Size(q)
	}
	s.sum = make([]float64, s.off[nq])
	return s, nil
}

// Candidates returns the candidate sets the statistics are over.
func (s *Stats) Candidates() *Candidates { return s.cands }

// Add records one logged slate of query q (candidate indices, ℓ_x of them)
// with reward r, in O(ℓ).
func (s *Stats) Add(q int, slate []int32, r float64) {
	m := s.cands.Size(q)
	row := s.sum[s.off[q]:s.off[q+1]]
	for j, a := range slate {
		row[j*m+int(a)] += r
	}
	s.rsum[q] += r
	s.count[q]++
}

// Slots returns ℓ, the longest slate: unit q's slates have
// Candidates().Slots(q, ℓ) slots.
func (s *Stats) Slots() int { return s.slots }

// Count returns n_x, the number of logged slates of query q.
func (s *Stats) Count(q int) int64 { return s.count[q] }

// Sum returns S_x of query q, indexed j·m_x + a (a view, not a copy).
func (s *Stats) Sum(q int) []float64 { return s.sum[s.off[q]:s.off[q+1]:s.off[q+1]] }

// Samples returns the number of logged slates over all queries.
func (s *Stats) Samples() int64 {
	n := int64(0)
	for _, c := range s.count {
		n += c
	}
	return n
}

// LoggedQueries returns the number of queries with at least one slate.
func (s *Stats) LoggedQueries() int {
	n := 0
	for _, c := range s.count {
		if c > 0 {
			n++
		}
	}
	return n
}

// AddLog reads every record of a slate log and adds it, checking what the
// reader cannot know: that every document is one of the query's candidates
// and that the slate has exactly ℓ_x slots. Errors name the log's file, line
// and field. progress, when not nil, is called with 1 after every record.
func (s *Stats) AddLog(ctx context.Context, lr *data.LogReader, progress func(n int64)) error {
	return s.cands.ReadLog(ctx, lr, s.slots, progress, s.Add)
}
