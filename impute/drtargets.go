package impute

import (
	"context"
	"fmt"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/internal/parallel"
)

// Baseline is the reward model φ̄ of doubly-robust targets, per unit x of a
// Stats' candidates (a query, or a policy file's context): ℓ_x·m_x values,
// index j·m_x + a, the layout of φ̂_x. A unit without impressions may have
// none (nil).
//
// The doubly-robust target of one impression (x, s, r) is
//
//	φ̂_DR = φ̄_x + Γ_x†1_s·(r − 1_sᵀφ̄_x),
//
// and averaged over query x's n_x impressions, as the PI targets are,
// φ̄_x + Γ_x†·mean_i[(r_i − 1_{s_i}ᵀφ̄_x)·1_{s_i}]: the PI targets of the
// residual rewards, with φ̄_x added back. So DR targets are Stats of the
// residuals (Residual, AddLogResidual, Simulation.ResidualStats) given to
// ComputeTargets with TargetOptions.Baseline. Their expectation is
// E[φ̂] + (I − Γ†Γ)φ̄: they differ from the PI targets' only in Γ's null
// space, so q_πᵀφ̂_DR is unbiased for V(π) wherever q_πᵀφ̂ is (q_π in the
// range of Γ), whatever φ̄, as long as φ̄_x does not depend on query x's
// own impressions.
type Baseline [][]float64

// Residual returns r − 1_sᵀφ̄_q, the reward unit q's slate s feeds into
// the statistics of doubly-robust targets (r itself where the baseline has
// no values for q, which check then refuses).
func (b Baseline) Residual(q, m int, slate []int32, r float64) float64 {
	if phi := b[q]; phi != nil {
		return r - SlateSum(phi, m, slate)
	}
	return r
}

// check reports a unit the baseline cannot serve: other than ℓ_x·m_x
// values, or none for a unit with impressions in st.
func (b Baseline) check(st *Stats) error {
	c := st.cands
	if len(b) != c.NumQueries() {
		return fmt.Errorf("impute: baseline of %d units, the statistics have %d", len(b), c.NumQueries())
	}
	for q, phi := range b {
		switch want := c.Slots(q, st.slots) * c.Size(q); {
		case phi != nil && len(phi) != want:
			return fmt.Errorf("impute: baseline of %s %q has %d values, want ℓ·m = %d", c.unit(), c.Name(q), len(phi), want)
		case phi == nil && st.count[q] > 0:
			return fmt.Errorf("impute: no baseline for %s %q, which has impressions", c.unit(), c.Name(q))
		}
	}
	return nil
}

// AddLogResidual is AddLog with every reward r replaced by its residual
// r − 1_sᵀφ̄_x under base (Baseline.Residual): the statistics of
// doubly-robust targets, read from the same log as the PI ones. s must be
// empty; base needs values for every unit the log reaches.
func (s *Stats) AddLogResidual(ctx context.Context, lr *data.LogReader, base Baseline, progress func(n int64)) error {
	if err := base.check(s); err != nil {
		return err
	}
	err := s.cands.ReadLog(ctx, lr, s.slots, progress, func(q int, slate []int32, r float64) {
		s.Add(q, slate, base.Residual(q, s.cands.Size(q), slate, r))
	})
	if err != nil {
		return err
	}
	return base.check(s)
}

// residualRewarder scores a slate by its reward minus the baseline's value
// of it.
type residualRewarder struct {
	reward Rewarder
	base   Baseline
	c      *Candidates
}

func (r residualRewarder) Score(q int, slate []int32) float64 {
	return r.base.Residual(q, r.c.Size(q), slate, r.reward.Score(q, slate))
}

// ResidualStats is Stats with every reward r replaced by its residual
// r − 1_sᵀφ̄_x under base: the same samples (the same seed draws the same
// queries and slates), so that doubly-robust targets come from the same
// simulated log as the PI ones. base needs values for every query Stats
// draws (those with impressions in the statistics of the same n).
func (s *Simulation) ResidualStats(ctx context.Context, n int64, threads int, base Baseline, progress func(n int64)) (*Stats, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	empty := &Stats{cands: s.Candidates, slots: s.Slots, count: make([]int64, s.Candidates.NumQueries())}
	if err := base.check(empty); err != nil {
		return nil, err
	}
	r := *s
	r.Reward = residualRewarder{reward: s.Reward, base: base, c: s.Candidates}
	st, err := r.Stats(ctx, n, threads, progress)
	if err != nil {
		return nil, err
	}
	return st, base.check(st)
}

// UnitTargets returns the PI targets of every unit of st before any
// weighting or averaging: φ̂_x = Γ_x†(S_x/n_x) (ℓ_x·m_x values, index
// j·m_x + a; the same bits as ComputeTargets' rows of the unit), nil for a
// unit without impressions. A reward model cross-fitted on them gives the
// baseline of doubly-robust targets. Per-context Γ are released as
// ComputeTargets releases them.
func UnitTargets(ctx context.Context, st *Stats, gammas *GammaCache, threads int) ([][]float64, error) {
	c := st.cands
	out := make([][]float64, c.NumQueries())
	err := parallel.For(ctx, c.NumQueries(), threads, newTargetScratch, func(sc *targetScratch, q int) error {
		if st.count[q] == 0 {
			return nil
		}
		g, err := st.phi(gammas, q, sc)
		if err != nil {
			return err
		}
		if c.PerContext() {
			g.Spectrum()
			gammas.Release(q)
		}
		out[q] = append([]float64(nil), sc.phi...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// addBaseline sets phi to φ̄_q + phi: the doubly-robust target of unit q
// from the PI target of its residuals.
func addBaseline(phi []float64, base Baseline, q int) {
	for i, v := range base[q] {
		phi[i] = v + phi[i]
	}
}

// unit names c's units in messages: query, or context.
func (c *Candidates) unit() string {
	if c.PerContext() {
		return "context"
	}
	return "query"
}
