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
	rs, ok := newRangeSolver(g.gBlk, l*nc, q)
	if !ok {
		return nil, false
	}
	// Probe: Γ†q_μ must solve to the stated precision, or Γ is not what
	// the structure says (e.g. moments whose error swamps tiny marginals).
	y := make([]float64, l*nc)
	for j := range l {
		for c := range nc {
			y[j*nc+c] = mo.p1[j*nc+c] * g.invSqrt[c]
		}
	}
	if b := rs.solve(y, y, rs.scratch()); !(max(b, g.fastInfo.blockBound) <= maxSolveBound) {
		return nil, false
	}
	g.fast, g.nullG = rs, q
	g.fastInfo.rank = structuralRank(g.m, l)
	g.fastInfo.cutoff = cutoff
	return g, true
}

// smallPinv returns the explicit pseudoinverse of the n × n block a with
// null space spanned by the orthonormal q, column by column through a
// rangeSolver, symmetrised, and the largest bound of its solves.
func smallPinv(a []float64, n int, q [][]float64) (p []float64, bound float64, ok bool) {
	rs, ok := newRangeSolver(a, n, q)
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

// fastPinv is PinvMulVec on the fast path: the class blocks' explicit
// pseudoinverses and one solve on G's range.
func (g *Gamma) fastPinv(dst, v []float64) {
	lc := g.l * g.nc
	sc := make([]float64, 5*lc+2*g.l)
	y := sc[:lc]
	g.classPart(dst, v, g.mPinv, y, sc[lc:lc+2*g.l])
	b := g.fast.solve(y, y, sc[lc+2*g.l:])
	g.fastInfo.noteBound(max(b, g.fastInfo.blockBound))
	g.meanPart(dst, y)
}

// fastSlateForm is SlateForm on the fast path: one solve, O((ℓC)²).
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
