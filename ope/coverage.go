package ope

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/xsum"
)

// Coverage says how much of the target policy the log cannot see, for
// two causes. (1) Unseen documents: the target's slot mass on documents the
// logging policy never shows on a context (not among its candidates A(x));
// PI gives those (slot, document) pairs no weight. (2) Γ's range: the part
// of the target's marginals q_π outside Range(Γ_μ,x), which Γ† cannot
// reach, because the log's slates do not span it (an explicit slate
// distribution) or because the eigenvalue cut-off dropped directions Γ has
// in exact arithmetic. Either leaves PI well defined but biased; Coverage
// bounds that bias for rewards in the reward range. Every PI-family
// estimate carries it, all zeros when the coverage is complete.
type Coverage struct {
	// Contexts is the number of distinct logged contexts, ContextsShort
	// those short for either cause.
	Contexts      int `json:"contexts"`
	ContextsShort int `json:"contexts_short"`
	// ImpressionsShortShare is the share of logged impressions whose
	// context is short.
	ImpressionsShortShare float64 `json:"impressions_short_share"`
	// UnseenShare is the per-impression mean of the share of q_π's slot mass
	// (U_x/ℓ_x, U_x = Σ_j u_j(x), u_j the slot-j mass outside A(x)) on
	// documents the logger never shows.
	UnseenShare float64 `json:"unseen_share"`
	// MaxBiasBound bounds |E[PI] − V(π)| caused by both, for rewards in the
	// reward range: the per-impression mean of coverageBound +
	// rangeBound.
	MaxBiasBound float64 `json:"max_bias_bound"`
	// RangeShareMax is the largest over the logged contexts of
	// ‖(I − ΓΓ†)q̂_π‖₂/‖q̂_π‖₂ (q̂_π: q_π's seen part with equal slot masses,
	// see rangeBound), 0 when every q_π lies in Γ's range.
	RangeShareMax float64 `json:"range_share_max"`
	// RankShortContexts counts the logged contexts whose Γ† keeps a rank
	// below Γ's structural rank (the cut-off dropped directions; a bias
	// only where q_π has a component there, which RangeShareMax says).
	RankShortContexts int `json:"rank_short_contexts"`
	// ContextsUnseen and ContextsOutsideRange count the short contexts by
	// cause (a context may have both).
	ContextsUnseen       int `json:"contexts_unseen"`
	ContextsOutsideRange int `json:"contexts_outside_range"`
	// WorstContexts are up to five short contexts, largest bias bound
	// first.
	WorstContexts []ContextShortfall `json:"worst_contexts"`
}

// ContextShortfall is one context's coverage shortfall.
type ContextShortfall struct {
	Context string `json:"context"`
	// UnseenShare is U_x/ℓ_x, RangeShare ‖(I − ΓΓ†)q̂_π‖/‖q̂_π‖.
	UnseenShare float64 `json:"unseen_share"`
	RangeShare  float64 `json:"range_share"`
	// Rank is the rank Γ† keeps, StructuralRank Γ's rank in exact
	// arithmetic.
	Rank           int `json:"rank"`
	StructuralRank int `json:"structural_rank"`
	// BiasBound bounds |E[PI_x] − V_x(π)| on this context.
	BiasBound float64 `json:"bias_bound"`
}

// rangeTol is the share ‖(I − ΓΓ†)q̂‖/‖q̂‖ below which q̂ counts as inside Γ's
// range: rounding of the null-space bases and of Γ† stays far below it.
const rangeTol = 1e-8

// maxWorstContexts is how many short contexts a Coverage names.
const maxWorstContexts = 5

// Short reports whether the target has any mass the log cannot see.
func (c *Coverage) Short() bool { return c != nil && c.ContextsShort > 0 }

// Cause names the causes of a shortfall.
func (c *Coverage) Cause() string {
	var causes []string
	if c.ContextsUnseen > 0 {
		causes = append(causes, "documents the logging policy never shows")
	}
	if c.ContextsOutsideRange > 0 {
		causes = append(causes, "target marginals outside the range of Γ")
	}
	return strings.Join(causes, " and ")
}

// Warning is the sentence an estimate carries when the coverage is short:
// the causes, the worst contexts and the bound.
func (c *Coverage) Warning() string {
	var b strings.Builder
	fmt.Fprintf(&b, "coverage short on %d of %d logged contexts (%.4g of the impressions):", c.ContextsShort, c.Contexts, c.ImpressionsShortShare)
	if c.ContextsUnseen > 0 {
		fmt.Fprintf(&b, " the target puts %.4g of its slot mass (per impression) on documents the logging policy never shows (%d contexts);",
			c.UnseenShare, c.ContextsUnseen)
	}
	if c.ContextsOutsideRange > 0 {
		fmt.Fprintf(&b, " up to %.4g of the target's marginals lie outside the range of Γ, which Γ† cannot reach (%d contexts",
			c.RangeShareMax, c.ContextsOutsideRange)
		if c.RankShortContexts > 0 {
			fmt.Fprintf(&b, "; on %d the eigenvalue cut-off kept a rank below Γ's structural rank", c.RankShortContexts)
		}
		b.WriteString(");")
	}
	b.WriteString(" worst contexts")
	for i, w := range c.WorstContexts {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %s (bound %.4g)", w.Context, w.BiasBound)
	}
	fmt.Fprintf(&b, "; the estimate may be biased by up to %.4g (coverage.max_bias_bound)", c.MaxBiasBound)
	return b.String()
}

// Err is --strict-coverage's error: one line naming the cause, the worst
// context and the bound.
func (c *Coverage) Err() error {
	w := c.WorstContexts[0]
	return fmt.Errorf("ope: coverage short (%s) on %d of %d contexts; worst context %s: bias bound %.4g; the estimate may be biased by up to %.4g",
		c.Cause(), c.ContextsShort, c.Contexts, w.Context, w.BiasBound, c.MaxBiasBound)
}

// queryCoverage is one context's coverage, computed once in the plan. The
// reward range is the evaluator's, so the plan keeps the bounds'
// coefficients (see bound).
type queryCoverage struct {
	outside       float64 // ‖(I − ΓΓ†)q̂‖/‖q̂‖
	rank, strRank int
	unseenShort   bool
	rangeShort    bool
	rankShort     bool
	short         bool
	unseenShare   float64 // U_x/ℓ_x
	// bound's coefficients: min(1, U), U/ℓ (coverageBound);
	// max(‖r⁺‖₁, ‖r⁻‖₁), |Σ r|/ℓ (rangeBound).
	a, b, c, d float64
}

// bound is the context's bias bound for rewards in [lo, hi]: coverageBound
// plus rangeBound.
func (qc *queryCoverage) bound(lo, hi float64) float64 {
	return coverageBound(qc.a, qc.b, lo, hi) + rangeBound(qc.c, qc.d, lo, hi)
}

// newQueryCoverage computes the coverage of a context whose target has
// seen marginals qpi (length ℓm, unseen mass u) under Γ g, with gq = Γ†qpi.
func newQueryCoverage(g *impute.Gamma, qpi, gq []float64, u float64, m, l int) queryCoverage {
	qc := queryCoverage{unseenShort: u > 0}
	qhat := qpi
	if qc.unseenShort {
		qhat = balanceSlots(qpi, m, l)
		qc.unseenShare, qc.a, qc.b = u/float64(l), min(1, u), u/float64(l)
	}
	cv := g.Coverage(qhat)
	qc.rank, qc.strRank = cv.Rank, cv.StructuralRank
	qc.rankShort = cv.Rank < cv.StructuralRank
	qc.rangeShort = cv.Outside > rangeTol
	if qc.rangeShort {
		qc.outside = cv.Outside
		qc.c, qc.d = rangeResidual(g, qhat, gq, l)
	}
	qc.short = qc.unseenShort || qc.rangeShort
	return qc
}

// balanceSlots returns q with each slot's mass moved to the mean slot mass,
// spread evenly over the m candidates: q̂ = q + d with d a gauge direction
// (a constant per slot, summing to 0 over the slots), so Γd = 0 and Γ†q̂ =
// Γ†q, while q̂ has the equal slot masses the full-support range holds.
func balanceSlots(q []float64, m, l int) []float64 {
	out := slices.Clone(q)
	mass := make([]float64, l)
	mean := 0.0
	for j := range l {
		for _, x := range q[j*m : j*m+m] {
			mass[j] += x
		}
		mean += mass[j] / float64(l)
	}
	for j := range l {
		d := (mean - mass[j]) / float64(m)
		for a := range m {
			out[j*m+a] += d
		}
	}
	return out
}

// rangeBound bounds the bias of PI's expectation on one context from the
// part of q̂ outside the range Γ† keeps, for rewards in [lo, hi].
//
// Derivation. Let the reward be slot-additive, r(s) = 1_sᵀφ, in the gauge
// where r − lo = Σ_j ψ(j, s_j) with 0 ≤ ψ ≤ hi − lo (a gain times a
// discount, as NDCG and DCG are; the assumption coverageBound states), so
// φ(j, a) = ψ(j, a) + lo/ℓ. PI's expectation is E_μ[q̂ᵀΓ†1_s·1_sᵀφ] =
// q̂ᵀΓ†Γφ, and Γ†Γ = ΓΓ† = P, the projector on the eigenvectors Γ† keeps
// (all of Γ's range, or less when the cut-off dropped some), so
//
//	V_x(π) − E[PI_x] = ((I − P)q̂)ᵀφ = r_xᵀψ + (lo/ℓ)·Σ_i r_x,i,
//
// r_x = (I − P)q̂ = q̂ − Γ(Γ†q̂), computed entry by entry. Over the box
// 0 ≤ ψ ≤ hi − lo, r_xᵀψ lies in [−(hi−lo)‖r_x⁻‖₁, (hi−lo)‖r_x⁺‖₁], so
//
//	|((I − P)q̂)ᵀφ| ≤ (hi − lo)·max(‖r_x⁺‖₁, ‖r_x⁻‖₁) + (|lo|/ℓ)·|Σ_i r_x,i|.
//
// (q̂ rather than q_π's seen part: their difference is a gauge direction,
// in Γ's null space, whose bias coverageBound already counts.)
func rangeBound(c, d float64, lo, hi float64) float64 { return (hi-lo)*c + math.Abs(lo)*d }

// rangeResidual returns rangeBound's coefficients max(‖r⁺‖₁, ‖r⁻‖₁) and
// |Σ_i r_i|/ℓ of r = q̂ − Γ(Γ†q̂), gq = Γ†q̂.
func rangeResidual(g *impute.Gamma, qhat, gq []float64, l int) (c, d float64) {
	r := make([]float64, len(qhat))
	g.MulVec(r, gq)
	var pos, neg, sum float64
	for i, x := range qhat {
		e := x - r[i]
		sum += e
		if e > 0 {
			pos += e
		} else {
			neg -= e
		}
	}
	return max(pos, neg), math.Abs(sum) / float64(l)
}

// coverageSums accumulate a Coverage over a log, one impression at a time.
type coverageSums struct {
	n, nShort    int64
	share, bound xsum.Sum // exact: the same however the log is split
	lo, hi       float64
	seen         []bool
	bounds       []float64 // per logged query: its bias bound
	cov          Coverage
	worst        []worstContext // short queries logged
	plan         *Plan
}

// worstContext is a short context logged: its index and shortfall.
type worstContext struct {
	Q  int              `json:"q"`
	CS ContextShortfall `json:"shortfall"`
}

func newCoverageSums(p *Plan, lo, hi float64) *coverageSums {
	nq := p.Candidates.NumQueries()
	return &coverageSums{seen: make([]bool, nq), bounds: make([]float64, nq), plan: p, lo: lo, hi: hi}
}

// add records one impression of query q.
func (s *coverageSums) add(q int) {
	qc := &s.plan.queries[q].cov
	s.n++
	if !s.seen[q] {
		s.seen[q] = true
		s.noteContext(q, qc)
	}
	if !qc.short {
		return
	}
	s.nShort++
	s.share.Add(qc.unseenShare)
	s.bound.Add(s.bounds[q])
}

// noteContext counts a newly logged context q.
func (s *coverageSums) noteContext(q int, qc *queryCoverage) {
	c := &s.cov
	c.Contexts++
	if qc.rankShort {
		c.RankShortContexts++
	}
	if qc.rangeShort {
		c.ContextsOutsideRange++
		c.RangeShareMax = max(c.RangeShareMax, qc.outside)
	}
	if qc.unseenShort {
		c.ContextsUnseen++
	}
	if qc.short {
		c.ContextsShort++
		s.bounds[q] = qc.bound(s.lo, s.hi)
		s.worst = append(s.worst, worstContext{Q: q, CS: ContextShortfall{Context: s.plan.Candidates.Name(q), UnseenShare: qc.unseenShare,
			RangeShare: qc.outside, Rank: qc.rank, StructuralRank: qc.strRank, BiasBound: s.bounds[q]}})
	}
}

// coverage returns the accumulated Coverage (nil before any impression).
func (s *coverageSums) coverage() *Coverage {
	if s == nil || s.n == 0 {
		return nil
	}
	c := s.cov
	n := float64(s.n)
	c.ImpressionsShortShare, c.UnseenShare, c.MaxBiasBound = float64(s.nShort)/n, s.share.Float64()/n, s.bound.Float64()/n
	c.WorstContexts = []ContextShortfall{}
	for _, w := range s.worstFirst() {
		c.WorstContexts = append(c.WorstContexts, w.CS)
	}
	return &c
}

// worstFirst returns the maxWorstContexts short contexts of the largest
// bias bound, ties in context order (not in order of first impression:
// the same however the log is split).
func (s *coverageSums) worstFirst() []worstContext {
	worst := slices.Clone(s.worst)
	slices.SortFunc(worst, func(a, b worstContext) int {
		return cmp.Or(cmp.Compare(b.CS.BiasBound, a.CS.BiasBound), cmp.Compare(a.Q, b.Q))
	})
	return worst[:min(len(worst), maxWorstContexts)]
}

// coverageBound bounds the bias of PI's expectation on one context whose
// target puts mass u_j on unseen documents in slot j (U = Σ_j u_j, over l
// slots), for rewards in [lo, hi], from minU = min(1, U) and uPerSlot =
// U/l.
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
// the whole reward.) An explicit-slate logger's Γ has a larger null space,
// and a cut-off may drop some of Γ's range: the target's mass outside the
// range Γ† keeps is a shortfall of its own, which rangeBound counts.
func coverageBound(minU, uPerSlot, lo, hi float64) float64 {
	return (hi-lo)*minU + uPerSlot*max(math.Abs(lo), math.Abs(hi))
}
