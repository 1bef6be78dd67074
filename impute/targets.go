package impute

import (
	"context"
	"fmt"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/internal/parallel"
)

// TargetOptions control ComputeTargets.
type TargetOptions struct {
	// PerSample weighs query x's rows by n_x: for squared loss the same
	// regression as one target row per logged sample, never materialised.
	// The default weighs every query 1 in total (each of its ℓ_x·m_x rows
	// 1/(ℓ_x·m_x)), as the paper's authors' scripts did.
	PerSample bool
	// threads computing targets; 0 means GOMAXPROCS. The result does not
	// depend on it.
	threads int
	// Header becomes the targets' header (copied; slots is set).
	Header map[string]string
	// Baseline, when not nil, makes the targets doubly robust: the
	// statistics hold residual rewards r − 1_sᵀφ̄_x (Baseline.Residual)
	// and every unit's target is φ̄_x + Γ_x†(S_x/n_x). nil: PI targets.
	Baseline Baseline
}

// ComputeTargets turns per-query statistics into PI-OPT's regression
// targets: for every logged query x, φ̄_x = Γ†(S_x/n_x) (doubly robust
// with opt.Baseline: φ̄_x + Γ†(S_x/n_x) of residual rewards), one row per
// candidate document and slot, sorted by (query, doc position, slot). A
// query that was never logged has no rows. gammas must belong to the
// policy that logged the slates. When several queries fail, the error is
// the one of the lowest query index, whatever the threads.
//
// With a policy file's contexts (Candidates.PerContext) every logged context
// x has its own φ̄_x over its own candidates, and the targets are per
// dataset query: the target of (query, doc a, slot j) averages φ̂ over
// every impression whose context has a among its candidates,
// Σ_x n_x·φ̄_x(j,a) / Σ_{x ∋ a} n_x, and per-sample weighting gives that
// row the weight Σ_{x ∋ a} n_x.
func ComputeTargets(ctx context.Context, st *Stats, gammas *GammaCache, opt TargetOptions) (*data.Targets, error) {
	if opt.Baseline != nil {
		if err := opt.Baseline.check(st); err != nil {
			return nil, err
		}
	}
	if st.cands.PerContext() {
		return contextTargets(ctx, st, gammas, opt)
	}
	t, rowOff := newTargets(st, opt.Header)
	c := st.cands
	err := parallel.For(ctx, c.NumQueries(), opt.threads, newTargetScratch, func(sc *targetScratch, q int) error {
		if st.count[q] == 0 {
			return nil
		}
		m, lx := c.Size(q), c.Slots(q, st.slots)
		if _, err := st.phi(gammas, q, sc); err != nil {
			return err
		}
		if opt.Baseline != nil {
			addBaseline(sc.phi, opt.Baseline, q)
		}
		weight := float64(st.count[q])
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

// phi sets sc.phi to φ̄_x = Γ†(S_x/n_x) of unit q (logged at least once)
// and returns Γ.
func (st *Stats) phi(gammas *GammaCache, q int, sc *targetScratch) (*Gamma, error) {
	c := st.cands
	m, lx := c.Size(q), c.Slots(q, st.slots)
	g, err := gammas.Query(q, m, lx)
	if err != nil {
		unit := "query"
		if c.PerContext() {
			unit = "context"
		}
		return nil, fmt.Errorf("%s %q: %w", unit, c.Name(q), err)
	}
	n := float64(st.count[q])
	sc.theta, sc.phi = resize(sc.theta, lx*m), resize(sc.phi, lx*m)
	for i, s := range st.Sum(q) {
		sc.theta[i] = s / n
	}
	g.PinvMulVec(sc.phi, sc.theta)
	return g, nil
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
	return makeTargets(header, st.slots, rowOff[nq]), rowOff
}

// makeTargets returns rows targets of a header (copied; slots is set).
func makeTargets(header map[string]string, slots, rows int) *data.Targets {
	t := &data.Targets{
		Header: map[string]string{},
		Slots:  slots,
		Query:  make([]int32, rows),
		Doc:    make([]int32, rows),
		Slot:   make([]uint8, rows),
		Target: make([]float64, rows),
		Weight: make([]float64, rows),
	}
	for k, v := range header {
		t.Header[k] = v
	}
	t.Header["slots"] = fmt.Sprint(slots)
	return t
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

// contextTargets is ComputeTargets over a policy file's contexts: φ̄_x per
// logged context, then per dataset query the n_x-weighted average over the
// contexts holding each document. Where one context alone covers a row its
// φ̄_x is the target as is, so that one context per query gives the same
// bits as the per-query path.
func contextTargets(ctx context.Context, st *Stats, gammas *GammaCache, opt TargetOptions) (*data.Targets, error) {
	c := st.cands
	phi := make([]float64, len(st.sum))
	err := parallel.For(ctx, c.NumQueries(), opt.threads, newTargetScratch, func(sc *targetScratch, q int) error {
		if st.count[q] == 0 {
			return nil
		}
		g, err := st.phi(gammas, q, sc)
		if err != nil {
			return err
		}
		if opt.Baseline != nil {
			addBaseline(sc.phi, opt.Baseline, q)
		}
		// The report names the worst conditioned Γ: its spectrum is
		// computed while Γ is at hand, then Γ is released.
		g.Spectrum()
		gammas.Release(q)
		copy(phi[st.off[q]:st.off[q+1]], sc.phi)
		return nil
	})
	if err != nil {
		return nil, err
	}
	ds := c.ds
	byQuery := make([][]int, ds.NumQueries()) // logged contexts of every query, in context order
	for x := range c.NumQueries() {
		if st.count[x] > 0 {
			byQuery[c.Query(x)] = append(byQuery[c.Query(x)], x)
		}
	}
	t := makeTargets(opt.Header, st.slots, 0)
	var acc rowAccumulator
	for q, xs := range byQuery {
		if len(xs) == 0 {
			continue
		}
		acc.reset(ds.QuerySize(q) * st.slots)
		for _, x := range xs {
			acc.add(c, st, x, phi[st.off[x]:st.off[x+1]])
		}
		acc.write(t, q, st.slots, opt.PerSample)
	}
	return t, nil
}

// rowAccumulator sums one dataset query's targets over its contexts, per
// (document position, slot), index d·ℓ + j.
type rowAccumulator struct {
	num, den, single []float64
	cover            []int32
}

func (a *rowAccumulator) reset(n int) {
	a.num, a.den, a.single = grow(a.num, n), grow(a.den, n), grow(a.single, n)
	a.cover = resize(a.cover, n)
	clear(a.cover)
}

// add adds context x's φ̄_x (index j·m + a).
func (a *rowAccumulator) add(c *Candidates, st *Stats, x int, phi []float64) {
	m, lx := c.Size(x), c.Slots(x, st.slots)
	n := float64(st.count[x])
	for i, d := range c.Docs(x) {
		for j := range lx {
			k := int(d)*st.slots + j
			v := phi[j*m+i]
			a.num[k] += n * v
			a.den[k] += n
			a.single[k] = v
			a.cover[k]++
		}
	}
}

// write appends the query's rows, by document position then slot.
func (a *rowAccumulator) write(t *data.Targets, q, slots int, perSample bool) {
	rows := 0
	for _, k := range a.cover {
		if k > 0 {
			rows++
		}
	}
	for k, cov := range a.cover {
		if cov == 0 {
			continue
		}
		v := a.single[k]
		if cov > 1 {
			v = a.num[k] / a.den[k]
		}
		w := a.den[k]
		if !perSample {
			w = 1 / float64(rows)
		}
		t.Query = append(t.Query, int32(q))
		t.Doc = append(t.Doc, int32(k/slots))
		t.Slot = append(t.Slot, uint8(k%slots+1))
		t.Target = append(t.Target, v)
		t.Weight = append(t.Weight, w)
	}
}
