package impute

import (
	"context"
	"fmt"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/data/parallel"
)

// TargetOptions control ComputeTargets.
type TargetOptions struct {
	// PerSample weighs query x's rows by n_x: for squared loss the same
	// regression as one target row per logged sample, never materialised.
	// The default weighs every query 1 in total (each of its ℓ_x·m_x rows
	// 1/(ℓ_x·m_x)), as the paper's authors' scripts did.
	PerSample bool
	// Threads computing targets; 0 means GOMAXPROCS. The result does not
	// depend on it.
	Threads int
	// Header becomes the targets' header (copied; slots is set).
	Header map[string]string
}

// ComputeTargets turns per-query statistics into PI-OPT's regression
// targets: for every logged query x, φ̄_x = Γ†(S_x/n_x), one row per
// candidate document and slot, sorted by (query, doc position, slot). A
// query that was never logged has no rows. gammas must belong to the
// policy that logged the slates. When several queries fail, the error is
// the one of the lowest query index, whatever the threads.
func ComputeTargets(ctx context.Context, st *Stats, gammas *GammaCache, opt TargetOptions) (*data.Targets, error) {
	t, rowOff := newTargets(st, opt.Header)
	c := st.cands
	err := parallel.For(ctx, c.NumQueries(), opt.Threads, newTargetScratch, func(sc *targetScratch, q int) error {
		if st.count[q] == 0 {
			return nil
		}
		m, lx := c.Size(q), c.Slots(q, st.slots)
		g, err := gammas.Get(m, lx)
		if err != nil {
			return fmt.Errorf("query %q: %w", c.ds.QIDs[q], err)
		}
		n := float64(st.count[q])
		sc.theta, sc.phi = resize(sc.theta, lx*m), resize(sc.phi, lx*m)
		for i, s := range st.Sum(q) {
			sc.theta[i] = s / n
		}
		g.PinvMulVec(sc.phi, sc.theta)
		weight := n
		if !opt.PerSample {
			weight = 1 / float64(lx*m)
		}
		writeRows(t, c, q, rowOff[q], lx, m, sc.phi, weight)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// targetScratch is one worker's θ̂_x and φ̂_x, reused across queries.
type targetScratch struct{ theta, phi []float64 }

func newTargetScratch() *targetScratch { return new(targetScratch) }

// newTargets allocates the rows of every logged query of st (ℓ_x·m_x each)
// and returns them with rowOff, where query q's rows start.
func newTargets(st *Stats, header map[string]string) (*data.Targets, []int) {
	nq := st.cands.NumQueries()
	rowOff := make([]int, nq+1)
	for q := range nq {
		n := 0
		if st.count[q] > 0 {
			n = st.off[q+1] - st.off[q]
		}
		rowOff[q+1] = rowOff[q] + n
	}
	rows := rowOff[nq]
	t := &data.Targets{
		Header: map[string]string{},
		Slots:  st.slots,
		Query:  make([]int32, rows),
		Doc:    make([]int32, rows),
		Slot:   make([]uint8, rows),
		Target: make([]float64, rows),
		Weight: make([]float64, rows),
	}
	for k, v := range header {
		t.Header[k] = v
	}
	t.Header["slots"] = fmt.Sprint(st.slots)
	return t, rowOff
}

// writeRows writes query q's rows from row r on: φ̂ indexed j·m + a, by
// document position then slot. Candidates are in rank order, so the
// document positions are looked up rather than walked.
func writeRows(t *data.Targets, c *Candidates, q, r, lx, m int, phi []float64, weight float64) {
	for d := range int32(c.ds.QuerySize(q)) {
		a := c.Index(q, d)
		if a < 0 {
			continue
		}
		for j := range lx {
			t.Query[r] = int32(q)
			t.Doc[r] = d
			t.Slot[r] = uint8(j + 1)
			t.Target[r] = phi[j*m+a]
			t.Weight[r] = weight
			r++
		}
	}
}
