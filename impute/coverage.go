package impute

import "math"

// Coverage says how much of a target policy's marginals q_π the
// pseudoinverse Γ† of one context sees. PI is unbiased for targets whose
// q_π lies in Range(Γ) (Swaminathan et al. 2017, the estimator's
// assumption); the part outside is what Γ† cannot reach, and a rank kept
// below Γ's structural rank says the cut-off, not the log, dropped it.
type Coverage struct {
	// Outside is ‖(I − ΓΓ†)q_π‖₂ / ‖q_π‖₂, computed from the null-space
	// bases Γ† uses (exact up to rounding, not a difference of products).
	Outside float64
	// Rank is the rank Γ† keeps; StructuralRank is Γ's rank in exact
	// arithmetic: ℓ(m−1)+1 (ℓ < m) or (m−1)²+1 (ℓ = m) for a full-support
	// policy, the span of the listed slates' indicators otherwise.
	Rank, StructuralRank int
	// Solver is how Γ† is applied: "closed-form" (uniform), "cholesky"
	// (the certified fast path) or "eigen" (eigenvalue cut-off; also on
	// the fast path for a target whose weights the moments' rounding
	// would bias beyond its tolerance, see fastApply).
	Solver string
}

// Coverage returns the coverage of a target with marginals qpi (length ℓm,
// index j·m + a) by Γ†. O(ℓm·(ℓ + nullity)), plus, for an explicit slate
// distribution, a one-off rank computation over its listed slates, and on
// the fast path one solve (the Γ† this target gets, see fastApply).
func (g *Gamma) Coverage(qpi []float64) Coverage {
	if g.fast != nil && len(qpi) > 0 {
		// The fast path's choice for this target (as PinvMulVec makes it).
		if e := g.fastApply(make([]float64, len(qpi)), qpi); e != g {
			return e.Coverage(qpi)
		}
	} else if r := g.reported(); r != g {
		return r.Coverage(qpi)
	}
	cv := Coverage{StructuralRank: g.StructuralRank(), Solver: "eigen"}
	if g.fast != nil {
		cv.Rank = g.fastInfo.rank // no eigendecomposition on the fast path
	} else {
		cv.Rank = g.spec.Rank
	}
	nullM, nullG := g.nullM, g.nullG
	switch {
	case g.closed:
		cv.Solver = "closed-form"
		nullG = meanNullBasis(g.size, g.l)
		if g.l == g.m && g.m > 1 {
			u := make([]float64, g.l)
			for j := range u {
				u[j] = 1 / math.Sqrt(float64(g.l))
			}
			nullM = [][][]float64{{u}}
		} else {
			nullM = nil
		}
	case g.fast != nil:
		cv.Solver = "cholesky"
	}
	total := dot(qpi, qpi)
	if total == 0 {
		return cv
	}
	out := 0.0
	m, l, nc := g.m, g.l, g.nc
	y := make([]float64, l*nc)
	mean := make([]float64, l)
	for c := range nc {
		lo, hi := g.d.start[c], g.d.start[c+1]
		for j := range l {
			s := 0.0
			for _, x := range qpi[j*m+lo : j*m+hi] {
				s += x
			}
			mean[j] = s / float64(hi-lo)
			y[j*nc+c] = s * g.invSqrt[c]
		}
		if c >= len(nullM) {
			continue
		}
		for _, u := range nullM[c] {
			for a := lo; a < hi; a++ {
				p := 0.0
				for j, x := range u {
					p += x * (qpi[j*m+a] - mean[j])
				}
				out += p * p
			}
		}
	}
	for _, v := range nullG {
		p := dot(v, y)
		out += p * p
	}
	cv.Outside = math.Sqrt(out / total)
	return cv
}

// StructuralRank returns Γ's rank in exact arithmetic (see Coverage).
func (g *Gamma) StructuralRank() int {
	if g.d.tier != nil && g.d.lg.eps == 0 {
		return tieredRank(g.size, g.d.tier, g.l)
	}
	if g.d.FullSupport() {
		return structuralRank(g.m, g.l)
	}
	g.fastInfo.structOnce.Do(func() {
		var ind [][]float64
		g.d.EachSupportSlate(func(s []int32) {
			ind = append(ind, Indicator(nil, g.m, s))
		})
		g.fastInfo.structRank = len(orthonormalize(ind))
	})
	return g.fastInfo.structRank
}

// MulVec sets dst = Γ v (both of length ℓm; dst must not alias v): the
// product a coverage report needs for the residual (I − ΓΓ†)q_π entry by
// entry. O(ℓ²m).
func (g *Gamma) MulVec(dst, v []float64) { g.mulVec(dst, v) }

// tieredRank returns Γ's rank for Plackett–Luce tiers (Dist.plClasses):
// tier T fills the next k_T = min(n_T, slots left) slots from its n_T
// candidates by a full-support Plackett–Luce draw, independently of the
// other tiers. Its indicators span r_T = structuralRank(n_T, k_T)
// dimensions on coordinates no other tier touches, each of them with slot
// sums 1, so the slates' indicators, concatenations of one per tier, span
// Σ_T r_T − (tiers reached − 1) dimensions (one shared affine constraint
// per tier after the first). Candidates of unreached tiers add nothing.
func tieredRank(sizes, tier []int, l int) int {
	rank, reached := 0, 0
	for t, off := 0, 0; t < len(tier) && off < l; t++ {
		hi := len(sizes)
		if t+1 < len(tier) {
			hi = tier[t+1]
		}
		n := 0
		for _, s := range sizes[tier[t]:hi] {
			n += s
		}
		k := min(n, l-off)
		rank += structuralRank(n, k)
		reached++
		off += k
	}
	return rank - (reached - 1)
}
