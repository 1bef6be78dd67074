package impute

import (
	"math"
	"sort"
	"sync"
	"sync/atomic"
)

// fastInfo is what the fast path keeps besides the solver: the rank it
// keeps, the spectrum computed on demand and the largest solve bound.
type fastInfo struct {
	once       sync.Once // computes Gamma.spec on the fast path
	rank       int       // structural rank kept
	cutoff     float64   // relative cut-off, for the on-demand spectrum
	blockBound float64   // largest bound of the class blocks' pseudoinverses
	maxBound   atomic.Uint64
	structOnce sync.Once
	structRank int
	eigOnce    sync.Once // computes eig, the fallback (eigenFallback)
	eig        *Gamma
	// failed records a solve beyond maxSolveBound: the factorisation is
	// not what Γ's structure promised, and the reports (Spectrum,
	// Coverage of no target, SolveBound, the released summary) describe
	// the cut-off's Γ† instead, as they did when a probe solve rejected
	// such a Γ up front. Each application still chooses by its own target
	// (fastApply), so results never depend on the order of solves.
	failed atomic.Bool
}

// reported returns the Γ whose pseudoinverse Γ's reports describe: the
// eigenvalue cut-off's once a fast solve missed its bound, else g.
func (g *Gamma) reported() *Gamma {
	if g.fast == nil || !g.fastInfo.failed.Load() { // a released summary never failed
		return g
	}
	if e := g.eigenFallback(); e != nil {
		return e
	}
	return g
}

// noteBound records a solve's bound (non-negative floats order as their
// bits do).
func (f *fastInfo) noteBound(b float64) {
	nb := math.Float64bits(b)
	for {
		old := f.maxBound.Load()
		if old >= nb || f.maxBound.CompareAndSwap(old, nb) {
			return
		}
	}
}

// newFastGamma computes Γ of d and applies Γ† by the fast path when it can
// certify it: a full-support distribution with exact or bounded moments
// whose Γ has exactly the structural null space (see nullspace.go), every
// block factorised by Cholesky on its range (see rangeSolver). Otherwise it
// is NewGamma.
//
// Only the policies that exist per context take it: Plackett–Luce and
// explicit slates (with a uniform component), whose classes are typically
// single candidates, so that G is ℓm × ℓm. Uniform, p_α and their
// mixtures have a handful of classes, G is small and its eigendecomposition
// cheap, and a policy file of such entries keeps the bits of the named
// policy.
func newFastGamma(d *Dist, opt GammaOptions) (*Gamma, error) {
	if d.lg.base != basePL && d.lg.base != baseSlates {
		return NewGamma(d, opt)
	}
	return preferFastGamma(d, opt)
}

// preferFastGamma is newFastGamma for every policy (the tests run the fast
// path on p_α's class blocks too).
func preferFastGamma(d *Dist, opt GammaOptions) (*Gamma, error) {
	if !d.weighted || !d.FullSupport() {
		return NewGamma(d, opt)
	}
	opt = opt.withDefaults()
	mo, err := gammaMoments(d, opt)
	if err != nil {
		return nil, err
	}
	if mo.exact || mo.method != "" { // not Monte Carlo
		if g, ok := fastGammaFromMoments(d, mo, opt.cutoff); ok {
			return g, nil
		}
	}
	return newGammaFromMoments(d, mo, opt.cutoff, false)
}

// fastGammaFromMoments builds Γ's blocks and factorises them on their
// structural ranges; ok is false when some block is not certified.
func fastGammaFromMoments(d *Dist, mo *moments, cutoff float64) (*Gamma, bool) {
	g := &Gamma{d: d, m: d.m, l: d.l, nc: len(d.w), size: d.classSizes(), mo: mo}
	l, nc := g.l, g.nc
	g.invSqrt = make([]float64, nc)
	for c, n := range g.size {
		g.invSqrt[c] = 1 / math.Sqrt(float64(n))
	}
	var classNull [][]float64
	if l == g.m {
		u := make([]float64, l)
		for j := range u {
			u[j] = 1 / math.Sqrt(float64(l))
		}
		classNull = [][]float64{u}
	}
	g.mBlk = make([][]float64, nc)
	g.mPinv = make([][]float64, nc)
	g.nullM = make([][][]float64, nc)
	for c, n := range g.size {
		if n < 2 {
			continue
		}
		g.mBlk[c] = g.classBlock(c, n)
		p, b, ok := smallPinv(g.mBlk[c], l, classNull)
		if !ok {
			return nil, false
		}
		g.mPinv[c], g.nullM[c] = p, classNull
		g.fastInfo.blockBound = max(g.fastInfo.blockBound, b)
	}
	g.gBlk = g.meanBlock()
	q := meanNullBasis(g.size, l)
	rs, ok := newRangeSolver(g.gBlk, l*nc, nc, q)
	if !ok {
		return nil, false
	}
	// No probe solve: each application certifies its own bound, and one
	// beyond maxSolveBound takes the eigenvalue cut-off's Γ† (fastApply);
	// the class blocks' bounds were certified by smallPinv.
	g.fast, g.nullG = rs, q
	g.fastInfo.rank = structuralRank(g.m, l)
	g.fastInfo.cutoff = cutoff
	return g, true
}

// smallPinv returns the explicit pseudoinverse of the n × n block a with
// null space spanned by the orthonormal q, column by column through a
// rangeSolver, symmetrised, and the largest bound of its solves.
func smallPinv(a []float64, n int, q [][]float64) (p []float64, bound float64, ok bool) {
	rs, ok := newRangeSolver(a, n, 0, q)
	if !ok {
		return nil, 0, false
	}
	p = make([]float64, n*n)
	e, col, sc := make([]float64, n), make([]float64, n), rs.scratch()
	for i := range n {
		clear(e)
		e[i] = 1
		bound = max(bound, rs.solve(col, e, sc))
		if !(bound <= maxSolveBound) {
			return nil, 0, false
		}
		for r, x := range col {
			p[r*n+i] = x
		}
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			v := (p[i*n+j] + p[j*n+i]) / 2
			p[i*n+j], p[j*n+i] = v, v
		}
	}
	return p, bound, true
}

// fastPinv is PinvMulVec on the fast path: the fast solve, kept only when
// the rounding of Γ's moments cannot move what PI computes from it by more
// than fastBiasTol (see roundingBias); otherwise Γ† of the eigenvalue
// cut-off (eigenFallback).
func (g *Gamma) fastPinv(dst, v []float64) { g.fastApply(dst, v) }

// fastApply sets dst = Γ†v and returns the Γ whose pseudoinverse it
// applied: g (the fast solve) when roundingBias(v, dst) ≤ fastBiasTol,
// else the eigenvalue cut-off's Γ of the same moments, whose dropped rank
// Coverage then reports (and bounds) as a shortfall. The choice depends on
// v only, so PinvMulVec and Coverage of one target agree.
func (g *Gamma) fastApply(dst, v []float64) *Gamma {
	b := g.fastSolve(dst, v)
	if !(b <= maxSolveBound) {
		g.fastInfo.failed.Store(true)
	} else if g.roundingBias(v, dst, b) <= fastBiasTol {
		return g
	}
	e := g.eigenFallback()
	if e == nil { // the eigendecomposition failed: the fast solve is all there is
		return g
	}
	e.PinvMulVec(dst, v)
	return e
}

// fastSolve sets dst = Γ†v by the class blocks' explicit pseudoinverses and
// one solve on G's range, and returns that application's solve bound.
func (g *Gamma) fastSolve(dst, v []float64) float64 {
	lc := g.l * g.nc
	sc := make([]float64, 5*lc+2*g.l)
	y := sc[:lc]
	g.classPart(dst, v, g.mPinv, y, sc[lc:lc+2*g.l])
	b := max(g.fast.solve(y, y, sc[lc+2*g.l:]), g.fastInfo.blockBound)
	g.fastInfo.noteBound(b)
	g.meanPart(dst, y)
	return b
}

// fastBiasTol is the largest rounding bias, per unit of the reward scale
// (see roundingBias), with which the fast path keeps Γ's full structural
// rank for a target: issue 29's stated tolerance of the fast path.
const fastBiasTol = 1e-8

// momentRelErr is the relative error per entry of Γ's moments that
// roundingBias assumes: 4ℓm·u (u = 2⁻⁵³; ℓm is the length of Γ's rows).
// The exact moments sum positive products of the slot draws'
// probabilities (enumeration) or run a programme whose divisions by
// r + p·x, r ≥ 1/2, grow rounding by a bounded factor (weightedMoments),
// so each entry keeps its relative precision however small; it is a model,
// checked by TestMomentRelErr against double-double enumeration of every
// slate: at most 23u at m = 20, ℓ = 3 (enumeration, ℓm = 60) and 416u at
// m = 60, ℓ = 4 (the programme, ℓm = 240), 2.3 times below the model at
// worst. An absolute bound of approximated moments (ErrorBound) comes on
// top (momentAbsBias).
func (g *Gamma) momentRelErr() float64 { return 4 * float64(g.l*g.m) * 0x1p-53 }

// roundingBias bounds, per unit of v's scale, how far the rounding of Γ's
// moments and of the solve move what PI computes from x = Γ†v, with b the
// solve's bound. (The moments' absolute ErrorBound, shared by every path
// to Γ†, is momentAbsBias.)
//
// Derivation (evaluate: v = q_π, x = Γ̂†q_π from the stored Γ̂ = Γ + δΓ).
// Let the reward be slot-additive, r(s) = 1_sᵀφ, in the gauge φ = ψ + lo/ℓ
// with 0 ≤ ψ and Σ_j ψ(j, s_j) ≤ hi − lo on every slate (ope's rangeBound
// and coverageBound assume the same), and R = hi − lo + |lo|. PI's
// expectation with weights w(s) = 1_sᵀx is E_μ[w(s)·r(s)] = xᵀΓφ with the
// exact Γ, and V(π) = q_πᵀφ, so
//
//	E[PI] − V(π) = (Γx − q_π)ᵀφ,
//
// exactly; Γx − q_π lies in Γ's range N^⊥ (q_π, a mean of slate
// indicators, does too), so the gauge of φ does not matter. With x* the
// exact solution of the stored system (Γ̂x* = q_π on N^⊥), e = x − x*:
// Γx − q_π = Γe − δΓx* ≈ Γe − δΓx to first order. No Γ† is left, so no
// condition number enters: for every row i = (j, a),
// Σ_k Γ_ik|φ_k| = E_μ[1{s_j = a}·Σ_k |φ(k, s_k)|] ≤ q_i·R (q_i = Γ_ii,
// μ's marginal), and |δΓ_ik| ≤ u_mom·Γ_ik (momentRelErr), so
//
//	|xᵀδΓφ| ≤ u_mom·R·Σ_i q_i|x_i|,
//	|eᵀΓφ| ≤ R·Σ_i q_i|e_i| ≤ R·max_{j,c}√P_j(c)·‖D^{1/2}e‖₁ ≤ R·b·max√P·Σ_i √q_i|x_i|
//
// (the solve's bound b is in G's marginal-scaled norm ‖D^{1/2}·‖₁, and a
// class's coordinate gathers n_c candidates of marginal P_j(c)/n_c; the
// class blocks' bounds alike). Hence
//
//	|E[PI] − V(π)| ≤ R·(u_mom·Σ_i q_i|x_i| + b·max√P·Σ_i √q_i|x_i|),
//
// and roundingBias returns the bracket over the scale Σ_i|v_i|/ℓ (1 for a
// target's marginals). This is what a peaked logger breaks: a target of
// candidates with marginals of 1e-22 gets weights of 1e14–1e22 there, so
// Σ q_i|x_i| ≈ 1e16 and the moments' last bits move E[PI] by O(1), while
// the solve, exact for the stored Γ̂, certifies 1e-16 (issue 29's m = 20,
// τ = 0.1 example: E[PI] 0.7512 against V = 0.2548).
//
// For impute (v = θ = mean r·1_s, x = φ̂) the same bound, over the scale
// Σ|θ_i|/ℓ ≤ mean |r|, bounds the move of the imputed model's mean reward
// under μ, q_μᵀφ̂ = E_μ[1_sᵀφ̂] (q_μ = Γ1/ℓ, so q_μᵀδφ̂ = −1ᵀδΓφ̂/ℓ).
func (g *Gamma) roundingBias(v, x []float64, b float64) float64 {
	scale := 0.0
	for _, t := range v {
		scale += math.Abs(t)
	}
	if scale == 0 {
		return 0
	}
	scale /= float64(g.l)
	m, nc := g.m, g.nc
	var sq, ssq, maxP float64 // Σ q|x|, Σ √q|x|, max √P_j(c)
	for j := range g.l {
		for c := range nc {
			p := g.mo.p1[j*nc+c]
			q := p / float64(g.size[c])
			rq := math.Sqrt(q)
			maxP = max(maxP, p)
			ax := 0.0
			for _, t := range x[j*m+g.d.start[c] : j*m+g.d.start[c+1]] {
				ax += math.Abs(t)
			}
			sq += q * ax
			ssq += rq * ax
		}
	}
	return (g.momentRelErr()*sq + b*math.Sqrt(maxP)*ssq) / scale
}

// momentAbsBias is the part of the bound on |E[PI] − V(π)| (per unit of R
// and of v's scale, as roundingBias) that approximated moments' absolute
// error δ = ErrorBound adds: |δΓ_ik| ≤ δ on the (1 + (ℓ−1)m) structural
// non-zeros of row i, each |φ_k| ≤ R, so |xᵀδΓφ| ≤ δ·ℓm·R·Σ|x_i|. It is
// not fast-path specific (every Γ† of these moments carries it; evaluate
// reports ErrorBound), so it does not decide the fallback.
func (g *Gamma) momentAbsBias(v, x []float64) float64 {
	if g.mo.bound == 0 {
		return 0
	}
	sv, sx := 0.0, 0.0
	for i, t := range v {
		sv += math.Abs(t)
		sx += math.Abs(x[i])
	}
	if sv == 0 {
		return 0
	}
	return g.mo.bound * float64(g.l*g.m) * sx / (sv / float64(g.l))
}

// eigenFallback returns Γ of the same moments with Γ† by the eigenvalue
// cut-off (today's path), computed once; nil when its eigendecomposition
// fails.
func (g *Gamma) eigenFallback() *Gamma {
	g.fastInfo.eigOnce.Do(func() {
		if e, err := newGammaFromMoments(g.d, g.mo, g.fastInfo.cutoff, false); err == nil {
			g.fastInfo.eig = e
		}
	})
	return g.fastInfo.eig
}

// fastSlateForm is SlateForm on the fast path: one solve, O((ℓC)²) (or
// the fallback's Γ† where the rounding bias of Γ†1_{s2} is too large).
func (g *Gamma) fastSlateForm(s1, s2 []int32) float64 {
	v := Indicator(nil, g.m, s2)
	w := make([]float64, len(v))
	g.fastPinv(w, v)
	return SlateSum(w, g.m, s1)
}

// SolveBound returns a bound on the relative error of Γ† as applied so
// far. On the fast path it is the largest a-posteriori bound of any
// application (PinvMulVec, SlateForm) and of the class blocks' explicit
// pseudoinverses, each in the marginal-scaled norm ‖D^{1/2}·‖₁ from the
// solve's residual and a condition estimate (0 before the first solve);
// it is certified ≤ 1e-8 unless reported otherwise. On the
// eigendecomposition path it is the first-order estimate ℓm·ε·κ with κ =
// Spectrum().Condition(), not a certificate; 0 for the uniform closed form.
func (g *Gamma) SolveBound() float64 {
	if r := g.reported(); r != g {
		return r.SolveBound()
	}
	switch {
	case g.closed:
		return 0
	case g.fast != nil:
		return math.Float64frombits(g.fastInfo.maxBound.Load())
	}
	return float64(g.l*g.m) * 0x1p-52 * g.spec.Condition()
}

// fastSpectrum fills g.spec on demand on the fast path: the blocks'
// eigenvalues (the eigendecomposition the fast path avoids, run only when
// a report asks), the structural rank as the rank kept, MinKept the
// smallest eigenvalue among the rank largest, MaxDropped the largest of
// the rest (rounding of the structural zeros). An eigenvalue below
// ~ℓm·ε·Max is lost to the decomposition's rounding, so on a peaked
// logger MinKept is only that accurate; the solve itself does not depend
// on it.
func (g *Gamma) fastSpectrum() {
	type ev struct {
		v    float64
		mult int
	}
	var vals []ev
	add := func(b []float64, n, mult int) bool {
		bl, err := g.decompose(b, n, mult)
		if err != nil {
			return false
		}
		for _, v := range bl.vals {
			vals = append(vals, ev{v, mult})
		}
		return true
	}
	sp := Spectrum{Rank: g.fastInfo.rank, MinKept: math.Inf(1)}
	for c, b := range g.mBlk {
		if b != nil && !add(b, g.l, g.size[c]-1) {
			sp.Max, sp.MinKept = math.NaN(), math.NaN()
			g.spec = sp
			return
		}
	}
	if !add(g.gBlk, g.l*g.nc, 1) {
		sp.Max, sp.MinKept = math.NaN(), math.NaN()
		g.spec = sp
		return
	}
	sort.SliceStable(vals, func(i, j int) bool { return vals[i].v > vals[j].v })
	kept := 0
	for _, e := range vals {
		sp.Max = max(sp.Max, e.v)
		if kept < sp.Rank {
			sp.MinKept = min(sp.MinKept, e.v)
			kept += e.mult
			continue
		}
		sp.MaxDropped = max(sp.MaxDropped, e.v)
	}
	sp.cutoff = g.fastInfo.cutoff * sp.Max
	g.spec = sp
}
