package impute

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// plOptions tune the Plackett–Luce moments. The zero value gives defaults.
type plOptions struct {
	// ExactBudget is the estimated work, in inner multiply-adds of the
	// exact dynamic programme (states × classes² × slots), up to which the
	// programme is used; 0 means defaultPLExactBudget, < 0 never.
	ExactBudget int
	// Tol is the target bound on max |error| of any moment of the
	// quadrature; 0 means defaultPLTol.
	Tol float64
}

// defaultPLExactBudget is the default plOptions.ExactBudget. The programme
// runs at 1–2 ns per unit (m = 20, ℓ = 5 distinct weights: 1.2e7 units,
// 13 ms; m = 14, ℓ = 9: 2.3e7 units, 49 ms) and the quadrature takes 12–25
// ms on such small shapes, so they cross near 2e7 units; the programme is
// exact, so it keeps the shapes up to there, among them every p_α shape of
// up to m = 100, ℓ = 10 (3e6 units).
const defaultPLExactBudget = 20_000_000

// defaultPLTol is the default plOptions.Tol.
const defaultPLTol = 1e-10

// plackettLuceMoments returns the class-level moments of Plackett–Luce
// sampling (slot by slot without replacement, probability ∝ weight) of l
// slots from classes of sizes[c] candidates with weight w[c] > 0 (finite).
//
// Shapes with few slots and many classes in weight order are exact by
// enumeration (method "exact-enum", see plEnumMoments); shapes whose
// dynamic programme fits opt.ExactBudget are exact (method "exact-dp"). Larger ones are integrals over exponential clocks summed by
// trapezoidal lattice rules on nested grids (method "clock-quadrature", see
// plQuadrature); their bound covers the discretisation, truncation and
// rounding errors, and exceeds opt.Tol only when plMaxLevel refinements did
// not reach it.
//
// A class of weight 0 is one whose weight exp((s − s_max)/τ) underflowed:
// its candidates are drawn with probability below 1e-300, so a log never
// shows them, and they get zero moments (Γ has zero rows and columns for
// them, and Γ† gives them no weight, as for documents a policy never
// shows). The other classes must then hold at least l candidates.
func plackettLuceMoments(sizes []int, w []float64, l int, opt plOptions) (*moments, error) {
	if len(sizes) != len(w) {
		return nil, fmt.Errorf("impute: %d class sizes for %d weights", len(sizes), len(w))
	}
	m, mPos, wmax := 0, 0, 0.0
	var pos []int // the classes of positive weight, when some have weight 0
	for c, n := range sizes {
		if n < 0 || !(w[c] >= 0) || math.IsInf(w[c], 1) {
			return nil, fmt.Errorf("impute: class %d has %d candidates of weight %v", c, n, w[c])
		}
		m += n
		wmax = max(wmax, w[c])
		if w[c] > 0 {
			mPos += n
			pos = append(pos, c)
		}
	}
	if l < 1 || l > m {
		return nil, fmt.Errorf("impute: Plackett–Luce slates of %d slots from %d candidates", l, m)
	}
	if mPos < m {
		if l > mPos {
			return nil, fmt.Errorf("impute: Plackett–Luce slates of %d slots, but only %d of %d candidates have a weight that does not underflow (exp((s − s_max)/τ) > 0): scores too far apart for τ", l, mPos, m)
		}
		return positiveClassMoments(sizes, w, pos, l, opt)
	}
	if opt.Tol == 0 {
		opt.Tol = defaultPLTol
	}
	if !(opt.Tol > 0) {
		return nil, fmt.Errorf("impute: Plackett–Luce tolerance %v", opt.Tol)
	}
	budget := float64(opt.ExactBudget)
	if opt.ExactBudget == 0 {
		budget = defaultPLExactBudget
	}
	wn := make([]float64, len(w))
	for c := range w {
		wn[c] = w[c] / wmax
	}
	states := dpStates(sizes, l)
	dpWork := states * float64(len(sizes)*len(sizes)*l)
	if ew := plEnumWork(len(sizes), l); opt.ExactBudget >= 0 && dpWork > plEnumMinDP && ew <= min(plEnumBudget, budget) && ew < dpWork && slices.IsSortedFunc(wn, func(a, b float64) int { return cmp.Compare(b, a) }) {
		return plEnumMoments(sizes, wn, l), nil
	}
	if dpWork <= budget {
		if mo, ok := weightedMoments(sizes, wn, l, int(states)+1); ok {
			mo.method = "exact-dp"
			return mo, nil
		}
	}
	return plQuadrature(sizes, wn, l, opt.Tol, runtime.GOMAXPROCS(0)), nil
}

// positiveClassMoments computes the moments of the classes pos (those of
// positive weight) alone and places them among all len(sizes) classes,
// leaving the weight-0 classes' moments 0.
func positiveClassMoments(sizes []int, w []float64, pos []int, l int, opt plOptions) (*moments, error) {
	ps, pw := make([]int, len(pos)), make([]float64, len(pos))
	for i, c := range pos {
		ps[i], pw[i] = sizes[c], w[c]
	}
	sub, err := plackettLuceMoments(ps, pw, l, opt)
	if err != nil {
		return nil, err
	}
	nc, np := len(sizes), len(pos)
	mo := newMoments(l, nc)
	mo.exact, mo.stderr, mo.states, mo.bound, mo.method = sub.exact, sub.stderr, sub.states, sub.bound, sub.method
	for j := range l {
		for i, c := range pos {
			mo.p1[j*nc+c] = sub.p1[j*np+i]
		}
		for k := range l {
			for i, c := range pos {
				for i2, c2 := range pos {
					mo.p2[(j*l+k)*nc*nc+c*nc+c2] = sub.p2[(j*l+k)*np*np+i*np+i2]
				}
			}
		}
	}
	return mo, nil
}

// tieredPLMoments returns the moments of Plackett–Luce sampling over
// tiers (see Dist.plClasses; tier nil: one tier): the first tier fills the
// first slots, up to its size, then the next tier the following ones, and
// so on; classes of tiers no slot reaches get zero moments. Slots of
// different tiers are independent, so their pair moments are products.
func tieredPLMoments(sizes []int, w []float64, tier []int, l int, opt plOptions) (*moments, error) {
	if tier == nil {
		return plackettLuceMoments(sizes, w, l, opt)
	}
	nc := len(sizes)
	mo := newMoments(l, nc)
	mo.method = "tiered"
	slotTier := make([]int, l) // the tier each slot draws from
	for t, off := 0, 0; t < len(tier) && off < l; t++ {
		lo, hi := tier[t], nc
		if t+1 < len(tier) {
			hi = tier[t+1]
		}
		n := 0
		for _, s := range sizes[lo:hi] {
			n += s
		}
		k := min(n, l-off)
		sub, err := plackettLuceMoments(sizes[lo:hi], w[lo:hi], k, opt)
		if err != nil {
			return nil, err
		}
		mo.exact = mo.exact && sub.exact
		mo.bound = max(mo.bound, sub.bound)
		mo.states += sub.states
		placeMoments(mo, sub, lo, off)
		for j := off; j < off+k; j++ {
			slotTier[j] = t
		}
		off += k
	}
	for j := range l {
		for k := range l {
			if slotTier[j] == slotTier[k] {
				continue
			}
			crossPairs(mo, j, k)
		}
	}
	return mo, nil
}

// placeMoments copies sub's moments (classes from lo, slots from off) into mo.
func placeMoments(mo, sub *moments, lo, off int) {
	nc, ns := mo.nc, sub.nc
	for j := range sub.l {
		for c := range ns {
			mo.p1[(off+j)*nc+lo+c] = sub.p1[j*ns+c]
		}
		for k := range sub.l {
			for c := range ns {
				for c2 := range ns {
					mo.p2[((off+j)*mo.l+off+k)*nc*nc+(lo+c)*nc+lo+c2] = sub.p2[(j*sub.l+k)*ns*ns+c*ns+c2]
				}
			}
		}
	}
}

// crossPairs sets the pair moments of slots j and k when they belong to
// different tiers: independent, the product of p1s.
func crossPairs(mo *moments, j, k int) {
	nc := mo.nc
	for c := range nc {
		for c2 := range nc {
			mo.p2[(j*mo.l+k)*nc*nc+c*nc+c2] = mo.p1[j*nc+c] * mo.p1[k*nc+c2]
		}
	}
}

// dpStates counts the states of weightedMoments without building them: the
// per-class count vectors (count_c ≤ sizes[c]) of total below l.
func dpStates(sizes []int, l int) float64 {
	ways := make([]float64, l) // ways[t]: count vectors of total t so far
	ways[0] = 1
	next := make([]float64, l)
	for _, n := range sizes {
		clear(next)
		for t, v := range ways {
			for k := 0; k <= n && t+k < l; k++ {
				next[t+k] += v
			}
		}
		ways, next = next, ways
	}
	total := 0.0
	for _, v := range ways {
		total += v
	}
	return total
}

// Truncated polynomials. A univariate one holds the coefficients of x^0 ..
// x^d. A bivariate one of total degree ≤ d is stored by anti-diagonals:
// the coefficient of x^α y^β sits at tri(α+β) + α, tri(s) = s(s+1)/2, so
// an anti-diagonal depends only on the one before it and the loops over it
// carry no dependency (they pipeline). Every factor is r + p·x + q·y with
// r, p, q ≥ 0, so products have no cancellation; division by a factor is
// used only when r ≥ 1/2, where the series of its inverse has coefficients
// summing to at most 1/r · Σ_n ((1−r)/r)^n ≤ 2(d+1), so rounding errors
// grow at most by that factor.

func tri(s int) int { return s * (s + 1) / 2 }

// uniMulLin multiplies a in place by r + p·x.
func uniMulLin(a []float64, r, p float64) {
	for j := len(a) - 1; j > 0; j-- {
		a[j] = r*a[j] + p*a[j-1]
	}
	a[0] *= r
}

// uniDivLin sets dst = a / (r + p·x), r ≥ 1/2.
func uniDivLin(dst, a []float64, r, p float64) {
	ir := 1 / r
	prev := 0.0
	for j, v := range a {
		prev = (v - p*prev) * ir
		dst[j] = prev
	}
}

// uniMul sets dst = a·b (dst must not alias a or b).
func uniMul(dst, a, b []float64) {
	for j := range dst {
		v := 0.0
		for i := 0; i <= j; i++ {
			v += a[i] * b[j-i]
		}
		dst[j] = v
	}
}

// biMulLin multiplies a in place by r + p·x + q·y, highest anti-diagonal
// first so that it reads only coefficients not yet overwritten.
func biMulLin(a []float64, d int, r, p, q float64) {
	switch d { // the shapes of production (ℓ ≤ 5), unrolled in pldiv.go
	case 1:
		biMulLin1(a, r, p, q)
		return
	case 2:
		biMulLin2(a, r, p, q)
		return
	case 3:
		biMulLin3(a, r, p, q)
		return
	}
	biMulLinAny(a, d, r, p, q)
}

// biMulLinAny is biMulLin for any d.
func biMulLinAny(a []float64, d int, r, p, q float64) {
	for s := d; s > 0; s-- {
		cur, prev := a[tri(s):tri(s+1)], a[tri(s-1):tri(s)]
		cur[s] = r*cur[s] + p*prev[s-1]
		for al := s - 1; al > 0; al-- {
			cur[al] = r*cur[al] + p*prev[al-1] + q*prev[al]
		}
		cur[0] = r*cur[0] + q*prev[0]
	}
	a[0] *= r
}

// biMul sets dst = a·b (dst must not alias a or b).
func biMul(dst, a, b []float64, d int) {
	switch d { // unrolled in pldiv.go
	case 1:
		biMul1(dst, a, b)
		return
	case 2:
		biMul2(dst, a, b)
		return
	case 3:
		biMul3(dst, a, b)
		return
	}
	biMulAny(dst, a, b, d)
}

// biMulAny is biMul for any d.
func biMulAny(dst, a, b []float64, d int) {
	clear(dst[:tri(d+1)])
	for s1 := 0; s1 <= d; s1++ {
		for s2 := 0; s1+s2 <= d; s2++ {
			out := dst[tri(s1+s2):]
			bs := b[tri(s2) : tri(s2)+s2+1]
			for a1, av := range a[tri(s1) : tri(s1)+s1+1] {
				o := out[a1 : a1+s2+1]
				for a2, bv := range bs {
					o[a2] += av * bv
				}
			}
		}
	}
}

// biDivLin sets dst = a / (r + p·x + q·y), r ≥ 1/2.
func biDivLin(dst, a []float64, d int, r, p, q float64) {
	ir := 1 / r
	dst[0] = a[0] * ir
	for s := 1; s <= d; s++ {
		cur, src, prev := dst[tri(s):tri(s+1)], a[tri(s):tri(s+1)], dst[tri(s-1):tri(s)]
		cur[0] = (src[0] - q*prev[0]) * ir
		for al := 1; al < s; al++ {
			cur[al] = (src[al] - p*prev[al-1] - q*prev[al]) * ir
		}
		cur[s] = (src[s] - p*prev[s-1]) * ir
	}
}

// biDivAcc is biDivLin fused with acc += w·quotient: the innermost loop of
// the pair moments.
func biDivAcc(dst, a []float64, d int, r, p, q, w float64, acc []float64) {
	ir := 1 / r
	v := a[0] * ir
	dst[0] = v
	acc[0] += w * v
	for s, lo := 1, 1; s <= d; s++ {
		hi := lo + s + 1
		cur, src, prev, ac := dst[lo:hi], a[lo:hi], dst[lo-s:lo], acc[lo:hi]
		v = (src[0] - q*prev[0]) * ir
		cur[0] = v
		ac[0] += w * v
		for al := 1; al < s; al++ {
			v := (src[al] - p*prev[al-1] - q*prev[al]) * ir
			cur[al] = v
			ac[al] += w * v
		}
		v = (src[s] - p*prev[s-1]) * ir
		cur[s] = v
		ac[s] += w * v
		lo = hi
	}
}

// plProblem is a Plackett–Luce shape prepared for the clock quadrature:
// the classes of positive size, in descending weight (so the classes whose
// factor has r < 1/2 at a node are always a prefix), with the candidates
// expanded into a list of factors (class c at positions rep[c] ..
// rep[c+1]−1).
type plProblem struct {
	l, nc, d int       // slots, classes, degree of the pair polynomials (ℓ−2)
	n        []int     // class sizes
	w        []float64 // class weights, the largest 1
	orig     []int     // the caller's index of each class
	rep      []int     // first factor position of each class; rep[nc] = m
	cls      []int     // class of each factor position
	scale    float64   // 1/W, W = Σ n_c w_c: the time scale of the first draw
	lo, hi   float64   // σ range of the nodes
	tmax     float64   // nodes with t + v > tmax are left out
	cutHi    float64   // mass left out above tmax (≤ eps unless tmax hit its limit)
	eps      float64   // mass bound of the cuts below t and v and of the skipped terms
	skip     float64   // pair terms of a node at most this are left out
	// Interpolation over the light classes (see plinterp.go); wv nil: none.
	cL            int         // the first light class
	wv            []float64   // the virtual classes' weights, at Chebyshev points
	lm            []float64   // [(c − cL)·K + j]: interpolation weight of virtual j for class c
	tailN, tailN1 []float64   // weights of the last two Chebyshev coefficients
	vs, vt        [][]float64 // per row, [j·ss ..]: node sums with virtual class j (see interpPairs)
	vv            []float64   // [(i·K + j)·ss ..]: node sums of virtual classes i (earlier) and j (later)
	lmult         float64     // the largest multiplicity of a pair of light classes
	s2buf         []float64   // the node sums with the interpolated pairs (interpPairs)
	tj, tr        []float64   // interpLight's products
	col           *plColumn   // p2Level's workspace, see workspace
	sc            []plScratch
}

// mult is the number of ordered candidate pairs of classes c1 and c2.
func (pb *plProblem) mult(c1, c2 int) float64 {
	if c1 == c2 {
		return float64(pb.n[c1]) * float64(pb.n[c1]-1)
	}
	return float64(pb.n[c1]) * float64(pb.n[c2])
}

// newPLProblem prepares the classes and cuts the time domain so that the
// mass left out is at most eps below t (and v) and cutHi above tmax.
func newPLProblem(sizes []int, w []float64, l int, eps float64) *plProblem {
	pb := &plProblem{l: l, d: max(l-2, 0), eps: eps}
	for c, n := range sizes {
		if n > 0 {
			pb.orig = append(pb.orig, c)
		}
	}
	// Stable: equal weights keep the caller's order, so results are reproducible.
	slices.SortStableFunc(pb.orig, func(a, b int) int { return cmp.Compare(w[b], w[a]) })
	pb.nc = len(pb.orig)
	total := 0.0
	for _, c := range pb.orig {
		pb.rep = append(pb.rep, len(pb.cls))
		pb.n = append(pb.n, sizes[c])
		pb.w = append(pb.w, w[c])
		for range sizes[c] {
			pb.cls = append(pb.cls, len(pb.n)-1)
		}
		total += float64(sizes[c]) * w[c]
	}
	pb.rep = append(pb.rep, len(pb.cls))
	pb.scale = 1 / total
	// W·φ(σ) = exp(σ − e^{−σ}) bounds the chance of a draw before φ(σ).
	lnEps := math.Log(eps)
	pb.lo = bisect(-20, 0, func(s float64) bool { return s-math.Exp(-s) > lnEps })
	pb.tmax, pb.cutHi = pb.upperCut()
	lnT := math.Log(pb.tmax / pb.scale)
	pb.hi = bisect(pb.lo, lnT+1, func(s float64) bool { return s-math.Exp(-s) >= lnT })
	// The nodes of any level weigh their area, in all at most (hi−lo+h)²
	// for steps h ≤ plStep, so terms ≤ skip left out add up to ≤ eps.
	span := pb.hi - pb.lo + plStep
	pb.skip = eps / (span * span)
	pb.setInterp()
	return pb
}

// bisect returns the smallest x in [lo, hi] with ok(x), to 1e-9, for ok
// false below some point and true above it.
func bisect(lo, hi float64, ok func(float64) bool) float64 {
	for hi-lo > 1e-9 {
		mid := (lo + hi) / 2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// upperCut returns a time T with P(fewer than ℓ clocks rang by T) ≤ eps,
// and that chance: every moment's integrand beyond T needs its ℓ-th draw
// after T, so it bounds the mass left out above T (for pairs, of the later
// time t + v). T stops at scale·e^600 (weight ratios beyond 1e260, only
// reachable with subnormal weights); the mass is then what it is.
func (pb *plProblem) upperCut() (tmax, mass float64) {
	poly := make([]float64, pb.l)
	below := func(t float64) float64 {
		clear(poly)
		poly[0] = 1
		for c, n := range pb.n {
			a, ab := math.Exp(-pb.w[c]*t), -math.Expm1(-pb.w[c]*t)
			for range n {
				uniMulLin(poly, a, ab)
			}
		}
		s := 0.0
		for _, v := range poly {
			s += v
		}
		return s
	}
	limit := pb.scale * math.Exp(600)
	hi := pb.scale
	for below(hi) > pb.eps {
		if hi >= limit {
			return limit, below(limit)
		}
		hi *= 2
	}
	lo := math.Log(hi / 2)
	t := math.Exp(bisect(lo, math.Log(hi), func(x float64) bool { return below(math.Exp(x)) <= pb.eps }))
	return t, below(t)
}

// phi maps the quadrature variable σ to time: t = scale·exp(σ − e^{−σ}),
// doubly exponentially small on the left (where the integrands vanish like
// powers of t) and logarithmic on the right (so every clock's rate 1/w_c,
// however extreme, spans a few nodes). It returns t and dt/dσ.
func (pb *plProblem) phi(s float64) (t, jac float64) {
	e := math.Exp(-s)
	t = pb.scale * math.Exp(s-e)
	return t, t * (1 + e)
}

// plGrid holds the nodes σ_i = lo + i·h with the clocks' survival at t_i.
type plGrid struct {
	t, jac []float64 // t_i and dt/dσ
	a, ab  []float64 // [i·S + c]: e^{−w_c t_i} and 1 − e^{−w_c t_i}, S = pb.stride()
}

// grid returns the n nodes of step h.
func (pb *plProblem) grid(h float64, n int) *plGrid {
	S := pb.stride()
	g := &plGrid{t: make([]float64, n), jac: make([]float64, n), a: make([]float64, n*S), ab: make([]float64, n*S)}
	for i := range n {
		t, jac := pb.phi(pb.lo + float64(i)*h)
		g.t[i], g.jac[i] = t, jac
		for c := range S {
			w := pb.weight(c)
			g.a[i*S+c] = math.Exp(-w * t)
			g.ab[i*S+c] = -math.Expm1(-w * t)
		}
	}
	return g
}

// p1Sums returns, at [j·C + c], Σ_i dt/dσ · w_c e^{−w_c t_i} · [x^j] of the
// product over the other candidates c' of (e^{−w_c' t_i} + (1 − e^{−w_c' t_i}) x):
// the density that a class-c candidate's clock rings at t_i after exactly
// j others, summed over all nodes and over the even ones (the caller scales
// by the step and n_c). Leaving a candidate out divides by its factor when
// that is stable (e^{−w t} ≥ 1/2) and multiplies prefix and suffix products
// otherwise.
func (pb *plProblem) p1Sums(g *plGrid) (s1, even []float64) {
	C, l, m, S := pb.nc, pb.l, len(pb.cls), pb.stride()
	s1, even = make([]float64, l*C), make([]float64, l*C)
	pre := make([]float64, (m+1)*l)
	suf := make([]float64, (m+1)*l)
	h := make([]float64, l)
	for i, t := range g.t {
		if t > pb.tmax {
			break
		}
		a, ab := g.a[i*S:i*S+C], g.ab[i*S:i*S+C]
		k := 0
		for k < C && a[k] < 0.5 {
			k++
		}
		mk := pb.rep[k]
		fb := suf[mk*l : (mk+1)*l]
		clear(fb)
		fb[0] = 1
		for c := k; c < C; c++ {
			for range pb.n[c] {
				uniMulLin(fb, a[c], ab[c])
			}
		}
		clear(pre[:l])
		pre[0] = 1
		for e := range mk {
			c := pb.cls[e]
			copy(pre[(e+1)*l:(e+2)*l], pre[e*l:(e+1)*l])
			uniMulLin(pre[(e+1)*l:(e+2)*l], a[c], ab[c])
			f := mk - 1 - e
			copy(suf[f*l:(f+1)*l], suf[(f+1)*l:(f+2)*l])
			uniMulLin(suf[f*l:(f+1)*l], a[pb.cls[f]], ab[pb.cls[f]])
		}
		for c := range C {
			if c < k {
				e := pb.rep[c]
				uniMul(h, pre[e*l:(e+1)*l], suf[(e+1)*l:(e+2)*l])
			} else {
				uniDivLin(h, suf[:l], a[c], ab[c])
			}
			wt := g.jac[i] * pb.w[c] * a[c]
			for j, v := range h {
				s1[j*C+c] += wt * v
				if i%2 == 0 {
					even[j*C+c] += wt * v
				}
			}
		}
	}
	return s1, even
}

// plColumn holds the nodes (t, v) of one v for the pair moments, t
// running over the inner index k. Between the two rings, candidate c's
// factor is r + p·x + q·y with p = 1 − e^{−w_c t} (rang before t),
// q = e^{−w_c t}(1 − e^{−w_c v}) (rang in between) and r = e^{−w_c (t+v)}
// (not yet). pre and suf are the prefix and suffix products of the factors
// of the classes with r < 1/2; the suffix ends with the product of all other
// classes, so suf[0] is the full product.
//
// The row loops run over the nodes of one class, so they read transposed
// copies: [c·n + k] for the column's n nodes.
type plColumn struct {
	it         []int     // grid index of each t
	r, p, q    []float64 // [k·C + c]
	rt, pt, qt []float64 // [c·n + k]: r, p, q transposed (also of the virtual classes, c ≥ C)
	at         []float64 // [c·n + k]: e^{−w_c t}
	jt         []float64 // dt/dσ of each t
	qs         []float64 // bound on every coefficient of a pair's product, see fewRang
	k          []int     // classes 0 .. k−1 have r < 1/2
	pre, suf   [][]float64
	run        [][]float64 // per node, scratch of fill
}

func newPLColumn(n, nc, stride int) *plColumn {
	f := func() []float64 { return make([]float64, n*nc) }
	ft := func() []float64 { return make([]float64, n*stride) }
	return &plColumn{
		it: make([]int, 0, n), k: make([]int, n), jt: make([]float64, n), qs: make([]float64, n),
		r: f(), p: f(), q: f(), rt: ft(), pt: ft(), qt: ft(), at: ft(),
		pre: make([][]float64, n), suf: make([][]float64, n), run: make([][]float64, n),
	}
}

// fill computes node k of the column of v = t_iv.
func (pb *plProblem) fill(col *plColumn, k int, g *plGrid, iv int) {
	C, d, S := pb.nc, pb.d, pb.stride()
	s2 := tri(d + 1)
	it := col.it[k]
	r, p, q := col.r[k*C:(k+1)*C], col.p[k*C:(k+1)*C], col.q[k*C:(k+1)*C]
	n := len(col.it)
	for c := range S {
		at, av := g.a[it*S+c], g.a[iv*S+c]
		pc, qc, rc := g.ab[it*S+c], at*g.ab[iv*S+c], at*av
		if c < C {
			p[c], q[c], r[c] = pc, qc, rc
		}
		col.rt[c*n+k], col.pt[c*n+k], col.qt[c*n+k], col.at[c*n+k] = rc, pc, qc, at
	}
	col.jt[k] = g.jac[it]
	col.run[k] = resize(col.run[k], d+1)
	col.qs[k] = pb.fewRang(r, col.run[k])
	kl := 0
	for kl < C && r[kl] < 0.5 {
		kl++
	}
	col.k[k] = kl
	mk := pb.rep[kl]
	pre := resize(col.pre[k], (mk+1)*s2)
	suf := resize(col.suf[k], (mk+1)*s2)
	fb := suf[mk*s2:]
	clear(fb)
	fb[0] = 1
	for c := kl; c < C; c++ {
		for range pb.n[c] {
			biMulLin(fb, d, r[c], p[c], q[c])
		}
	}
	clear(pre[:s2])
	pre[0] = 1
	for e := range mk {
		c := pb.cls[e]
		copy(pre[(e+1)*s2:(e+2)*s2], pre[e*s2:(e+1)*s2])
		biMulLin(pre[(e+1)*s2:(e+2)*s2], d, r[c], p[c], q[c])
		f := mk - 1 - e
		c = pb.cls[f]
		copy(suf[f*s2:(f+1)*s2], suf[(f+1)*s2:(f+2)*s2])
		biMulLin(suf[f*s2:(f+1)*s2], d, r[c], p[c], q[c])
	}
	col.pre[k], col.suf[k] = pre, suf
}

// fewRang returns the chance that at most d candidates but the two
// heaviest have rung when candidate c is still silent with chance r[c]
// (poly: scratch of d+1). Leaving out the heaviest makes the count
// stochastically smallest, so this bounds the coefficient sum, hence every
// coefficient, of any product leaving out two candidates.
func (pb *plProblem) fewRang(r, poly []float64) float64 {
	clear(poly)
	poly[0] = 1
	for _, c := range pb.cls[min(2, len(pb.cls)):] {
		uniMulLin(poly, r[c], 1-r[c])
	}
	s := 0.0
	for _, v := range poly {
		s += v
	}
	return min(s, 1)
}

// plScratch is one worker's memory for the rows of the pair moments.
type plScratch struct {
	h         []float64   // [k·s2 ..]: the product leaving out row class c1, per node
	pt        [][]float64 // per node, [(c2−c1)·s2 ..]: leaving out c1 and c2, both r < 1/2
	run, quot []float64
	acc       []float64
	ks        []int     // the nodes of the interpolated row
	hv        []float64 // [k·ss ..]: the product leaving out a virtual class, per node
	a1        []float64 // dt/dσ·e^{−w_c1 t}·qs per node
	state     []uint8   // per node: what rowNode has prepared
	lowEnd    int       // lowPairs' classes end here
}

// lowPairs sets pt[k] to the products leaving out c1 and every c2 ≥ c1
// with r < 1/2 at node k (c1 among them) below sc.lowEnd (the classes the
// row divides by; it interpolates the others), from prefix, running
// middle and suffix products.
func (pb *plProblem) lowPairs(c1, k int, col *plColumn, sc *plScratch) {
	d, C := pb.d, pb.nc
	s2 := tri(d + 1)
	pre, suf, kl := col.pre[k], col.suf[k], min(col.k[k], sc.lowEnd)
	e0 := pb.rep[c1]
	pt := resize(sc.pt[k], (kl-c1)*s2)
	sc.pt[k] = pt
	run := sc.run
	copy(run, pre[e0*s2:(e0+1)*s2])
	last := pb.rep[kl-1]
	if pb.n[c1] > 1 {
		last = max(last, e0+1) // the pair of two class-c1 candidates
	}
	r, p, q := col.r[k*C:(k+1)*C], col.p[k*C:(k+1)*C], col.q[k*C:(k+1)*C]
	for e := e0 + 1; e <= last; e++ {
		c2 := pb.cls[e]
		if e == pb.rep[c2] || (c2 == c1 && e == e0+1) {
			biMul(pt[(c2-c1)*s2:(c2-c1+1)*s2], run, suf[(e+1)*s2:(e+2)*s2], d)
		}
		if e < last {
			biMulLin(run, d, r[c2], p[c2], q[c2])
		}
	}
}

// rowNode prepares node k for row c1 on first use, as far as want: 1 puts
// the product leaving out c1 in h, 2 also the pairs of c1 with the classes
// of r < 1/2 in pt. Nodes whose terms are all skipped cost nothing.
func (pb *plProblem) rowNode(c1, k int, col *plColumn, sc *plScratch, want uint8) {
	d := pb.d
	ss := tri(d + 1)
	if sc.state[k] == 0 {
		h := sc.h[k*ss : (k+1)*ss]
		if o := k*pb.nc + c1; c1 >= col.k[k] {
			biDivLin(h, col.suf[k][:ss], d, col.r[o], col.p[o], col.q[o])
		} else {
			e := pb.rep[c1]
			biMul(h, col.pre[k][e*ss:(e+1)*ss], col.suf[k][(e+1)*ss:(e+2)*ss], d)
		}
	}
	if want == 2 {
		pb.lowPairs(c1, k, col, sc)
	}
	sc.state[k] = want
}

// p2Row adds the column of v = t_iv to s2 for the class pairs (c1, c2 ≥ c1):
// at [(c1·C + c2)·s2 + tri(α+β) + α] the density that a class-c1 clock
// rings at t after α others and a class-c2 one at t + v after β more, and
// the same with the roles swapped at [(c2·C + c1)·s2 ..]. The two share
// everything but the factor e^{−w v} of the later clock, so one sum over t
// serves both.
func (pb *plProblem) p2Row(c1 int, g *plGrid, iv int, col *plColumn, sc *plScratch, s2 []float64) {
	if pb.wv != nil && c1 >= pb.cL {
		return // a light row: its pairs are all light, see p2Virtual
	}
	C, d := pb.nc, pb.d
	ss := tri(d + 1)
	n := len(col.it)
	sc.h = resize(sc.h, n*ss)
	sc.state = resize(sc.state, n)
	clear(sc.state)
	first := c1 + 1
	if pb.n[c1] > 1 {
		first = c1
	}
	av := g.a[iv*pb.stride() : iv*pb.stride()+C]
	div := biDivAccFor(d)
	sc.a1 = resize(sc.a1, n)
	for k, a := range col.at[c1*n : (c1+1)*n] {
		sc.a1[k] = col.jt[k] * a * col.qs[k]
	}
	from := pb.interpFrom(first)
	sc.lowEnd = from
	for c2 := first; c2 < from; c2++ {
		clear(sc.acc)
		ww := g.jac[iv] * pb.w[c1] * pb.w[c2]
		// A node whose whole term is at most pb.skip is left out (see
		// plQuadrature for the bound); its coefficients are at most qs.
		cut := pb.skip / (ww * max(av[c1], av[c2]) * pb.mult(c1, c2))
		a2, r, p, q := col.at[c2*n:(c2+1)*n], col.rt[c2*n:(c2+1)*n], col.pt[c2*n:(c2+1)*n], col.qt[c2*n:(c2+1)*n]
		for k, a := range a2 {
			if sc.a1[k]*a <= cut {
				continue
			}
			psi := col.jt[k] * col.at[c1*n+k] * a
			if c2 < col.k[k] {
				if sc.state[k] < 2 {
					pb.rowNode(c1, k, col, sc, 2)
				}
				for i, v := range sc.pt[k][(c2-c1)*ss : (c2-c1+1)*ss] {
					sc.acc[i] += psi * v
				}
				continue
			}
			if sc.state[k] == 0 {
				pb.rowNode(c1, k, col, sc, 1)
			}
			div(sc.quot, sc.h[k*ss:(k+1)*ss], d, r[k], p[k], q[k], psi, sc.acc)
		}
		out, w1 := s2[(c1*C+c2)*ss:(c1*C+c2+1)*ss], ww*av[c2]
		for i, v := range sc.acc {
			out[i] += w1 * v
		}
		if c2 != c1 {
			out, w2 := s2[(c2*C+c1)*ss:(c2*C+c1+1)*ss], ww*av[c1]
			for i, v := range sc.acc {
				out[i] += w2 * v
			}
		}
	}
	if from < C {
		pb.p2RowInterp(c1, from, g, iv, col, sc)
	}
}

// p2Level adds to s2 the terms of the nodes of grid g new at level (see
// plNewNode), column by column: first the column's products, then the class
// rows, each on as many workers as there are. Every entry is summed by one
// worker in node order, so the result does not depend on the number of
// workers.
func (pb *plProblem) p2Level(g *plGrid, level int, s2 []float64, workers int) {
	n := len(g.t)
	col, sc := pb.workspace(n, workers)
	for iv, v := range g.t {
		col.it = col.it[:0]
		for it, t := range g.t {
			if t+v > pb.tmax {
				break
			}
			if plNewNode(level, it, iv) {
				col.it = append(col.it, it)
			}
		}
		if len(col.it) == 0 {
			continue
		}
		parallelFor(workers, len(col.it), func(_, k int) { pb.fill(col, k, g, iv) })
		parallelFor(workers, pb.nc+len(pb.wv), func(wk, c1 int) {
			if c1 < pb.nc {
				pb.p2Row(c1, g, iv, col, &sc[wk], s2)
			} else {
				pb.p2Virtual(c1-pb.nc, g, iv, col, &sc[wk])
			}
		})
	}
}

// workspace returns p2Level's column and per-worker scratch for grids of n
// nodes, kept from the previous level when large enough (their per-node
// buffers too): a level's worth of allocations would otherwise be
// repeated at every level.
func (pb *plProblem) workspace(n, workers int) (*plColumn, []plScratch) {
	if pb.col == nil || len(pb.col.k) < n {
		pb.col = newPLColumn(n, pb.nc, pb.stride())
	}
	if workers = max(workers, 1); len(pb.sc) != workers || len(pb.sc[0].pt) < n {
		ss := tri(pb.d + 1)
		pb.sc = make([]plScratch, workers)
		for i := range pb.sc {
			pb.sc[i] = plScratch{pt: make([][]float64, n), run: make([]float64, ss), quot: make([]float64, ss),
				acc: make([]float64, ss)}
		}
	}
	return pb.col, pb.sc
}

// plNewNode reports whether node (it, iv) of level's grid is new at that
// level: level 0 is a square grid, odd levels add its shift by half a step
// (odd, odd on the grid of half the step), even levels complete the square
// grid of half the step (mixed parity).
func plNewNode(level, it, iv int) bool {
	switch {
	case level == 0:
		return true
	case level%2 == 1:
		return it%2 == 1 && iv%2 == 1
	}
	return (it+iv)%2 == 1
}

// parallelFor runs f(worker, i) for i in [0, n) on up to workers
// goroutines, handing out indices in order.
func parallelFor(workers, n int, f func(worker, i int)) {
	if workers <= 1 || n <= 1 {
		for i := range n {
			f(0, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for wk := range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(wk, i)
			}
		}()
	}
	wg.Wait()
}

// plStep is the largest step of the clock quadrature's first level, and
// plMaxLevel the last level (each doubles the nodes), beyond which the
// bound is returned as it is.
const (
	plStep     = 1.0
	plMaxLevel = 5
)

// plFirstStep returns the step h0 of the first level: twice the step H of
// the square grid whose error, by the model below, is tol^{0.6}, so that
// level 3 (the quincunx of step H) is certified to tol (see plQuadrature):
// its bound is that error times the contraction from step 2H, about
// tol^{0.6} again (up to the model's margin and constants), on the shapes
// of TestPlackettLuceVsDP and BenchmarkPlackettLuce 10–300 times below tol
// at tol = 1e-10. (Aiming lower pushes some shapes to level 5, which costs
// four times as much.)
// On the hardest shapes tried (scores ~ N(0,1)/τ) the error of the square
// grid of step h was m = 100, ℓ = 10, τ = 1: 1e-4, 7e-7, 2e-10, 1e-15 at
// h = 0.5, 0.35, 0.25, 0.18; m = 60, ℓ = 20: 2e-8 at 0.25, 2e-11 at 0.2;
// m = 50, ℓ = 5: 7e-9 at 0.35, 3e-13 at 0.25 (the coefficients of higher
// degree are narrower functions of log t). 1/h = (ℓ/10)^{1/4}·(1.36 +
// 0.13·ln(1/E)) fits these with a margin of about ten for an error E.
// Below ℓ = 10 that margin is wasted, and the exponent is 0.35: over m =
// 40–200, ℓ = 4–8, τ = 0.3–3 (6 score draws each) every shape is still
// certified at level 3 at tol = 1e-10 (worst bound 3.5e-11), with a
// sixth fewer nodes at ℓ = 5.
func plFirstStep(l int, tol float64) float64 {
	e := 0.25
	if l < 10 {
		e = 0.35
	}
	inv := math.Pow(float64(l)/10, e) * (1.36 + 0.13*0.6*math.Log(1/tol))
	return min(plStep, 2/inv)
}

// plQuadrature computes the moments from the exponential-clock integrals
//
//	P(s_j = a) = ∫ w_a e^{−w_a t} [x^{j}] Π_{c≠a} (e^{−w_c t} + (1−e^{−w_c t}) x) dt
//
// (0-based j) and, with u = t + v, P(s_j = a, s_{j+β+1} = b) =
//
//	∫∫ w_a e^{−w_a t} w_b e^{−w_b u} [x^j y^β] Π_{c≠a,b} (e^{−w_c u} + (1−e^{−w_c t}) x + (e^{−w_c t}−e^{−w_c u}) y) dv dt,
//
// both variables mapped by phi. The integrands are analytic in a strip
// around the real line in each variable, so the trapezoidal rule converges
// geometrically and its error is the aliasing Σ_{ξ≠0} F̂(ξ) over the dual
// lattice, |F̂(ξ)| ≲ e^{−δ(|ξ1|+|ξ2|)}. Level 0 is the square grid S of step
// h0; level 1 adds the grid shifted by (h0/2, h0/2), which flips the sign
// of S's dominant terms ξ = (±2π/h0, 0), (0, ±2π/h0): the resulting
// quincunx rule Q is as accurate as the square grid of step h0/2 (its
// leading terms have |ξ1|+|ξ2| = 4π/h0) with half its nodes, and the
// change from S measures S's error. Further levels alternate: square grid
// of half the step, then its quincunx, every level keeping the nodes of
// the ones before. p1 (one variable) is summed on the full grid of each
// level's step and checked against every other node.
//
// The discretisation part of the bound is checked at the quincunx levels
// (odd). At level 1 it is the change c1 from level 0, as an estimate of
// level 0's error (level 1 is far more accurate). At level L ≥ 3 it is
// c_L·min(1, c_L/c_{L−2}): the error of level L is bounded assuming it is
// at most c_L (level L−1's error) times the contraction observed between
// the previous two quincunx checks. Each check doubles the leading
// aliasing frequency |ξ1|+|ξ2| (π, 2π, 4π over the step of level L−1's
// square grid), so under geometric convergence the error of level L is
// c_L times the square of that contraction: the assumption leaves a
// margin of 1/contraction (10³–10⁵ on the shapes above), and it is
// tested against the exact moments (TestPlackettLuceVsDP and the others).
// plFirstStep picks h0 so that level 3 meets tol.
//
// The bound adds to that the cuts of the domain and the skipped terms
// (bounded in newPLProblem, upperCut and p2Row), the estimated error of
// the interpolation over the light classes (see plinterp.go) and a
// rounding allowance.
func plQuadrature(sizes []int, w []float64, l int, tol float64, workers int) *moments {
	pb := newPLProblem(sizes, w, l, tol*1e-3)
	mo := pb.integrate(len(sizes), tol, workers)
	if pb.wv != nil && !mo.finite() {
		// The interpolation over light classes can overflow where their
		// weights are extreme (subnormal weights of scores hundreds of τ
		// apart: its barycentric weights, or later sums); summed one by
		// one, as heavy classes are, the same integrals stay finite.
		pb = newPLProblem(sizes, w, l, tol*1e-3)
		pb.dropInterp()
		mo = pb.integrate(len(sizes), tol, workers)
	}
	return mo
}

// finite reports whether every moment and the bound are finite numbers.
func (mo *moments) finite() bool {
	ok := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	for _, v := range mo.p1 {
		if !ok(v) {
			return false
		}
	}
	for _, v := range mo.p2 {
		if !ok(v) {
			return false
		}
	}
	return ok(mo.bound)
}

// integrate runs plQuadrature's levels on the prepared problem, for nc
// caller's classes.
func (pb *plProblem) integrate(nc int, tol float64, workers int) *moments {
	l := pb.l
	h0 := plFirstStep(l, tol)
	n0 := int(math.Ceil((pb.hi - pb.lo) / h0))
	var s2 []float64
	if l > 1 {
		s2 = make([]float64, pb.nc*pb.nc*tri(pb.d+1))
	}
	var cur, prev []float64 // the moments of this level and the last (see scaled)
	last := 0.0             // the change of the previous quincunx level
	for level := 0; ; level++ {
		halvings := (level + 1) / 2
		h := h0 / float64(int(1)<<halvings)
		n := n0<<halvings + 1
		g := pb.grid(h, n)
		s1, s1c := pb.p1Sums(g)
		if l > 1 {
			pb.p2Level(g, level, s2, workers)
		}
		area := h0 * h0 / float64(int(1)<<level)
		s2i, iest := pb.interpPairs(s2)
		cur = pb.scaled(s1, s2i, h, area, cur)
		if level%2 == 1 {
			// Cuts: below t and v (eps each) and above tmax (cutHi); the
			// skipped pair terms of this level (twice: also inside the
			// difference) and of the previous one (eps each). Rounding,
			// relative to entries ≤ 1: products of up to m nonnegative
			// factors (2m ulps), two divisions each amplifying by at most
			// 2(d+1) (see the polynomials), two nested sums of at most n
			// terms; the division by a virtual class's factor amplifies by
			// divGrowth (see plLightR).
			grow := 2 * float64(pb.d+1) * divGrowth(pb.d, plLightR(pb.d))
			round := (float64(2*n+2*len(pb.cls)+100) + 3*grow) * 0x1p-52
			change := max(sliceMaxDiff(cur, prev), pb.p1Change(s1, s1c, h))
			disc := change
			if level >= 3 && change < last {
				disc = change * (change / last)
			}
			last = change
			if bound := disc + 5*pb.eps + pb.cutHi + round + area*iest; bound <= tol || level >= plMaxLevel {
				mo := pb.assemble(nc, s1, s2i, h, area)
				mo.bound = bound
				return mo
			}
		}
		prev, cur = cur, prev
	}
}

// scaled returns in dst (reallocated if short) the moments of the node
// sums s1 (step h) and s2 (area per node) as assemble computes them, in
// the order of the sums: the first moments, then the pairs. Two levels'
// largest difference is that of their moments (each moment is one entry).
func (pb *plProblem) scaled(s1, s2 []float64, h, area float64, dst []float64) []float64 {
	C, ss := pb.nc, tri(pb.d+1)
	dst = resize(dst, len(s1)+len(s2))
	for i, v := range s1 {
		dst[i] = float64(pb.n[i%C]) * h * v
	}
	if len(s2) == 0 {
		return dst
	}
	out := dst[len(s1):]
	for c1 := range C {
		for c2 := range C {
			mult := pb.mult(c1, c2)
			o := (c1*C + c2) * ss
			for x, v := range s2[o : o+ss] {
				out[o+x] = mult * area * v
			}
		}
	}
	return dst
}

// sliceMaxDiff returns the largest entrywise |a − b|.
func sliceMaxDiff(a, b []float64) float64 {
	b = b[:len(a)]
	worst, nan := 0.0, false
	for i, v := range a {
		// A plain comparison, which the compiler keeps branch-light
		// (max(worst, ·) handles NaN on every element); NaN is kept aside.
		d := math.Abs(v - b[i])
		if d > worst {
			worst = d
		}
		nan = nan || d != d
	}
	if nan {
		return math.NaN()
	}
	return worst
}

// p1Change returns the largest class-level difference of the first moments
// summed with step h (s1) and 2h (s1c, every other node).
func (pb *plProblem) p1Change(s1, s1c []float64, h float64) float64 {
	worst := 0.0
	for i, v := range s1 {
		worst = max(worst, float64(pb.n[i%pb.nc])*math.Abs(h*v-2*h*s1c[i]))
	}
	return worst
}

// assemble scales the node sums (of step h for p1, area per node for p2)
// into class-level moments in the caller's class order, with the class
// multiplicities n_c, n_c·n_c' and n_c(n_c − 1).
func (pb *plProblem) assemble(nc int, s1, s2 []float64, h, area float64) *moments {
	C, d, l := pb.nc, pb.d, pb.l
	mo := newMoments(l, nc)
	mo.exact = false
	mo.method = "clock-quadrature"
	for j := range l {
		for c, oc := range pb.orig {
			mo.p1[j*nc+oc] = float64(pb.n[c]) * h * s1[j*C+c]
		}
	}
	if l < 2 {
		return mo
	}
	ss := tri(d + 1)
	for c1, o1 := range pb.orig {
		for c2, o2 := range pb.orig {
			mult := pb.mult(c1, c2)
			src := s2[(c1*C+c2)*ss:]
			for sd := 0; sd <= d; sd++ {
				for al := 0; al <= sd; al++ {
					mo.setPair(al, sd+1, o1, o2, mult*area*src[tri(sd)+al])
				}
			}
		}
	}
	return mo
}

// momentsDiff returns the largest entrywise difference of two moments.
func momentsDiff(a, b *moments) float64 {
	worst := 0.0
	for i, v := range a.p1 {
		worst = max(worst, math.Abs(v-b.p1[i]))
	}
	for i, v := range a.p2 {
		worst = max(worst, math.Abs(v-b.p2[i]))
	}
	return worst
}
