package ope

import (
	"fmt"
	"math"
)

// Coverage says how much of the target policy the log cannot see: the
// target's slot mass on documents the logging policy never shows on a
// context (not among its candidates A(x)). PI gives those (slot, document)
// pairs no weight, so the estimate is well defined but biased by what the
// target would have earned there; Coverage bounds that bias. It is reported
// for targets that can name such documents (NewSlateTarget,
// NewPartialStochasticTarget), and is meant to grow: the shortfall of q_π
// outside Γ's range is the next thing it will carry.
type Coverage struct {
	// Contexts is the number of distinct logged contexts, ContextsShort
	// those where the target puts mass on documents the logger never shows.
	Contexts      int `json:"contexts"`
	ContextsShort int `json:"contexts_short"`
	// ImpressionsShortShare is the share of logged impressions whose
	// context is short.
	ImpressionsShortShare float64 `json:"impressions_short_share"`
	// UnseenShare is the per-impression mean of the share of q_π's slot mass
	// (U_x/ℓ_x, U_x = Σ_j u_j(x), u_j the slot-j mass outside A(x)) on
	// documents the logger never shows.
	UnseenShare float64 `json:"unseen_share"`
	// MaxBiasBound bounds |E[PI] − V(π)| caused by that mass, for rewards in
	// the reward range (see coverageBound).
	MaxBiasBound float64 `json:"max_bias_bound"`
}

// Short reports whether the target has any mass the log cannot see.
func (c *Coverage) Short() bool { return c != nil && c.ContextsShort > 0 }

// Warning is the sentence an estimate carries when the coverage is short.
func (c *Coverage) Warning() string {
	return fmt.Sprintf("the target puts %.4g of its slot mass (per impression) on documents the logging policy never shows, on %d of %d logged contexts (%.4g of the impressions): the log cannot show them, and the estimate may be biased by up to %.4g (coverage.max_bias_bound)",
		c.UnseenShare, c.ContextsShort, c.Contexts, c.ImpressionsShortShare, c.MaxBiasBound)
}

// coverageSums accumulate a Coverage over a log, one impression at a time.
type coverageSums struct {
	short               []bool // per query: some mass unseen (counted once)
	n, nShort           int64
	share, bound        float64
	contexts, shortSeen int
	seen                []bool
	lo, hi              float64
}

func newCoverageSums(nq int, lo, hi float64) *coverageSums {
	return &coverageSums{seen: make([]bool, nq), lo: lo, hi: hi}
}

// add records one impression of query q, whose target has unseen slot
// mass u (U_x) over l slots.
func (s *coverageSums) add(q int, u float64, l int) {
	s.n++
	if !s.seen[q] {
		s.seen[q] = true
		s.contexts++
		if u > 0 {
			s.shortSeen++
		}
	}
	if u <= 0 {
		return
	}
	s.nShort++
	s.share += u / float64(l)
	s.bound += coverageBound(u, l, s.lo, s.hi)
}

// coverage returns the accumulated Coverage (nil before any impression).
func (s *coverageSums) coverage() *Coverage {
	if s == nil || s.n == 0 {
		return nil
	}
	n := float64(s.n)
	return &Coverage{Contexts: s.contexts, ContextsShort: s.shortSeen, ImpressionsShortShare: float64(s.nShort) / n,
		UnseenShare: s.share / n, MaxBiasBound: s.bound / n}
}

// coverageBound bounds the bias of PI's expectation on one context whose
// target puts mass u_j on unseen documents in slot j (U = Σ_j u_j, over l
// slots), for rewards in [lo, hi].
//
// Derivation. Let the reward be additive, r(s) = Σ_j φ(j, s_j), in the
// gauge where r − lo = Σ_j ψ(j, s_j) with every ψ ≥ 0 (a gain times a
// discount, as NDCG and DCG are; then ψ ≤ hi − lo and every partial sum is
// ≤ hi − lo). Write q_π = q̃ + q_out, q̃ on the candidates. PI's weight uses
// g = Γ†q̃, so E_μ[G r] = (Pq̃)ᵀφ with P = Γ†Γ the projector on Γ's range;
// for a logger that gives every slate positive probability, P removes
// exactly the gauge directions (a constant added to one slot and taken
// from another), so Pq̃ moves q̃'s slot masses 1 − u_j to their mean
// 1 − U/l by adding (u_j − U/l)/m to each candidate of slot j. Hence, with
// ψ̄_j the mean of ψ(j, ·) over the candidates (Σ_j ψ̄_j = E_unif[r] − lo),
//
//	V_x(π) − E[PI_x] = Σ_j u_j ψ_out(j) − Σ_j u_j ψ̄_j + (U/l)(Σ_j ψ̄_j + lo),
//
// ψ_out(j) the q_out-weighted mean of ψ(j, ·) over unseen documents. The
// first term lies in [0, (hi−lo)·min(1, U)] (it is the expected reward the
// target earns from unseen documents, at most (hi−lo) times the chance its
// slate holds one, ≤ min(1, U)); the second in [0, (hi−lo)·max_j u_j], and
// max_j u_j ≤ min(1, U); the third in (U/l)·[lo, hi]. So
//
//	|V_x(π) − E[PI_x]| ≤ (hi − lo)·min(1, U) + (U/l)·max(|lo|, |hi|).
//
// (A slot-by-slot share times hi − lo is not a bound: one slot can carry
// the whole reward.) An explicit-slate logger's Γ has a larger null space;
// the target's mass outside its range is a shortfall of its own, not
// counted here.
func coverageBound(u float64, l int, lo, hi float64) float64 {
	return (hi-lo)*min(1, u) + u/float64(l)*max(math.Abs(lo), math.Abs(hi))
}
