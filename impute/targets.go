package impute

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/piopt/piopt/data"
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
// policy that logged the slates.
func ComputeTargets(ctx context.Context, st *Stats, gammas *GammaCache, opt TargetOptions) (*data.Targets, error) {
	c := st.cands
	nq := c.NumQueries()
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
	for k, v := range opt.Header {
		t.Header[k] = v
	}
	t.Header["slots"] = fmt.Sprint(st.slots)

	threads := opt.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, threads)
	for w := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var theta, phi []float64
			for {
				q := int(next.Add(1) - 1)
				if q >= nq {
					return
				}
				if st.count[q] == 0 {
					continue
				}
				if q&0xff == 0 && ctx.Err() != nil {
					errs[w] = ctx.Err()
					return
				}
				m, lx := c.Size(q), c.Slots(q, st.slots)
				g, err := gammas.Get(m, lx)
				if err != nil {
					errs[w] = fmt.Errorf("query %q: %w", c.ds.QIDs[q], err)
					return
				}
				n := float64(st.count[q])
				theta, phi = resize(theta, lx*m), resize(phi, lx*m)
				for i, s := range st.Sum(q) {
					theta[i] = s / n
				}
				g.PinvMulVec(phi, theta)
				weight := n
				if !opt.PerSample {
					weight = 1 / float64(lx*m)
				}
				// Rows go by document position; candidates are in rank order.
				r := rowOff[q]
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
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return t, nil
}
