package ope

import (
	"context"
	"fmt"
	"math"

	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/parallel"
)

// PhiFitter fits the slot-additive reward model φ̄ that dr and wdr use as
// their baseline (issue 13: by default a PI-OPT regression on the log
// itself, cross-fitted by the caller). A sweep calls FitPhi from several
// goroutines at once: it must be safe for concurrent use, and the model it
// returns is only read.
type PhiFitter interface {
	// FitPhi fits a slot-additive reward model on samples of p's queries: sample i is query q[i],
	// slate s[i*p.Slots:(i+1)*p.Slots] (candidate indices, −1 past ℓ_x), reward r[i]. The model
	// gives Phi for every query of the plan, also those without samples.
	FitPhi(ctx context.Context, p *Plan, q []int32, s []int32, r []float32) (RewardModel, error)
}

// PhiTargets are PI-OPT's regression targets of a set of logged samples,
// per query x of a plan: φ̂_x = Γ_x†θ̂_x, where θ̂_x = S_x/n_x is the mean
// of r·1_s over the query's n_x samples, and n_x, the query's weight. They
// are the targets `piopt impute` writes for the logging policy with
// per-sample weights (impute.ComputeTargets, PerSample), computed by the
// same code: impute.Stats for θ̂ and the plan's Γ† (Gamma.PinvMulVec).
type PhiTargets struct {
	// Phi is per query ℓ_x·m_x values, index j·m_x + a (the package's ℓm
	// convention), or nil for a query without samples.
	Phi   [][]float64
	Count []int64 // n_x per query
}

// PhiTargets computes the PI-OPT targets of the samples in FitPhi's layout
// (sample i: query q[i], slate s[i·Slots:(i+1)·Slots], reward r[i]). It
// checks every sample: a query of the plan, a slate of ℓ_x distinct
// candidates padded with −1, a finite reward; errors name the sample.
func (p *Plan) PhiTargets(ctx context.Context, q, s []int32, r []float32) (*PhiTargets, error) {
	if err := p.checkSamples(q, s, r); err != nil {
		return nil, err
	}
	c := p.Candidates
	st, err := impute.NewStats(c, p.Slots)
	if err != nil {
		return nil, fmt.Errorf("offpolicy: φ̂ targets: %w", err)
	}
	for i, x := range q {
		lx := c.Slots(int(x), p.Slots)
		st.Add(int(x), s[i*p.Slots:i*p.Slots+lx], float64(r[i]))
	}
	t := &PhiTargets{Phi: make([][]float64, c.NumQueries()), Count: make([]int64, c.NumQueries())}
	// Every query writes only its own target: the result does not depend
	// on the number of threads.
	err = parallel.For(ctx, c.NumQueries(), p.Threads, nil, func(_ struct{}, x int) error {
		n := st.Count(x)
		if n == 0 {
			return nil
		}
		m, lx := c.Size(x), c.Slots(x, p.Slots)
		g, err := p.Gammas.Query(x, m, lx)
		if err != nil {
			return fmt.Errorf("offpolicy: φ̂ targets of query %q: %w", c.Name(x), err)
		}
		// θ̂ = S/n divided element by element, exactly as impute does, so
		// that the targets are the same bits as impute's.
		theta := make([]float64, lx*m)
		for k, v := range st.Sum(x) {
			theta[k] = v / float64(n)
		}
		t.Phi[x] = make([]float64, lx*m)
		g.PinvMulVec(t.Phi[x], theta)
		t.Count[x] = n
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// checkSamples refuses samples PhiTargets cannot use, naming the first bad
// one.
func (p *Plan) checkSamples(q, s []int32, r []float32) error {
	L, nq := p.Slots, p.Candidates.NumQueries()
	if len(s) != len(q)*L || len(r) != len(q) {
		return fmt.Errorf("offpolicy: φ̂ targets: %d queries, %d slate entries and %d rewards, want %d slate entries (%d slots each) and %d rewards",
			len(q), len(s), len(r), len(q)*L, L, len(q))
	}
	for i, x := range q {
		if x < 0 || int(x) >= nq {
			return fmt.Errorf("offpolicy: φ̂ sample %d: query index %d outside the plan's %d queries", i, x, nq)
		}
		if v := float64(r[i]); math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("offpolicy: φ̂ sample %d (query %q): reward %v", i, p.Candidates.Name(int(x)), r[i])
		}
		if err := p.checkSlate(int(x), s[i*L:(i+1)*L]); err != nil {
			return fmt.Errorf("offpolicy: φ̂ sample %d (query %q): %w", i, p.Candidates.Name(int(x)), err)
		}
	}
	return nil
}

// checkSlate checks that slate (Slots entries) holds ℓ_x distinct candidate
// indices of query x, then −1.
func (p *Plan) checkSlate(x int, slate []int32) error {
	m, lx := p.Candidates.Size(x), p.Candidates.Slots(x, p.Slots)
	for j, a := range slate {
		switch {
		case j >= lx && a != -1:
			return fmt.Errorf("slot %d holds %d past ℓ_x = %d, want −1", j+1, a, lx)
		case j < lx && (a < 0 || int(a) >= m):
			return fmt.Errorf("slot %d holds %d, want a candidate index in 0..%d", j+1, a, m-1)
		}
		if j >= lx {
			continue
		}
		for k, b := range slate[:j] {
			if b == a {
				return fmt.Errorf("slots %d and %d both hold candidate %d", k+1, j+1, a)
			}
		}
	}
	return nil
}
