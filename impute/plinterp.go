package impute

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Interpolation over the light classes. The row of class c1 sums, per
// column of nodes, A(w) = Σ_k ψ_k e^{−w t_k} · [h_k / f_w,k] for every
// class c2 of weight w = w_c2 (h_k the product leaving out c1, f_w,k the
// factor of a candidate of weight w at node k), and the pair moments are
// w_c1·w_c2 times Σ over columns of dv/dσ·e^{−w v}·A(w) (c2 later) and
// dv/dσ·e^{−w_c1 v}·A(w) (c2 earlier): entire functions of w. On the light
// classes, those whose factor keeps r = e^{−w u} ≥ plLightR(d) at every
// node (w·tmax ≤ −ln plLightR), dividing by f_w is stable for any w of
// their range, so
// a row with more light classes to pair with than plInterpK(d) sums those
// two functions at as many Chebyshev points of the range ("virtual
// classes", whose factors the grid and columns hold like real ones) and
// interpolates to each light class once at the end (interpPairs), instead
// of dividing by each class at every node: the divisions per node and row
// drop from the number of light classes to plInterpK(d). The rows of light
// classes pair only with light classes (the weights are in descending
// order), so the same holds in both variables: the node sums of pairs of
// virtual classes, (K+1)·K/2 divisions per node, interpolated in both
// weights (p2Virtual, interpLight), replace every light row. At τ = 1, 73 of
// the 100 classes at m = 100, ℓ = 10 are light, and most at m = 50, ℓ = 5
// (see plLightR). The interpolation error is estimated from the last two Chebyshev
// coefficients (which, the functions being entire of small exponential
// type on the range, decay faster than geometrically, so the estimate is
// far above the error) and added to the bound; TestPlackettLuceInterp
// finds the interpolated moments within 1e-15 of the divided ones.

// plInterpK returns the number of Chebyshev points for degree d: the
// coefficients of degree s grow like e^{(s+1)·w·u} on the light range, so
// the points needed grow with d. 9 + d/2 leaves the interpolation at
// rounding level (≤ 1e-15) on TestPlackettLuceInterp's shapes; 6 + d
// already moved m = 80, ℓ = 3 by 1.5e-13 (with an estimate of 3.8e-10,
// above the tolerance).
func plInterpK(d int) int { return 8 + d/2 }

// plLightR returns the least r = e^{−w u} of a light class's factor for
// degree d: 1/2, where division grows rounding at most 2(d+1)-fold as for
// the real classes, or for small d a lower limit, where division by
// r + p·x + q·y (p + q = 1 − r) grows it at most divGrowth(d, r)-fold:
// 1/8 for d ≤ 3 (3200), 1/4 for d = 4 (484); the rounding allowance of the
// bound takes it in. At m = 50, ℓ = 5, τ = 1 more classes are then light
// and the heavy rows, which divide by each class, fewer.
func plLightR(d int) float64 {
	switch {
	case d <= 3:
		return 0.125
	case d <= 4:
		return 0.25
	}
	return 0.5
}

// divGrowth bounds the sum of the coefficients, up to degree d, of the
// series of 1/(r + p·x + q·y) with p + q ≤ 1 − r: (1/r)·Σ_n ((1−r)/r)^n,
// and at least 2(d+1) (the bound for r ≥ 1/2 that the rounding allowance
// uses for every division).
func divGrowth(d int, r float64) float64 {
	s, t := 0.0, 1/r
	for range d + 1 {
		s += t
		t *= (1 - r) / r
	}
	return max(s, 2*float64(d+1))
}

// setInterp chooses the light classes and, if there are more of them
// than points, the virtual classes' weights, the interpolation
// matrix and the weights of the last two Chebyshev coefficients.
func (pb *plProblem) setInterp() {
	C, K := pb.nc, plInterpK(pb.d)
	cL := C
	// Just inside −ln r, so that rounding of e^{−w t}·e^{−w v} cannot put
	// r below the limit.
	lim := -math.Log(plLightR(pb.d)) * (1 - 1e-3)
	for cL > 0 && pb.w[cL-1]*pb.tmax <= lim {
		cL--
	}
	if pb.l < 2 || C-cL <= K {
		return
	}
	lo, hi := pb.w[C-1], pb.w[cL]
	if !(hi > lo*(1+1e-6)) {
		return
	}
	wv, bary, tailN, tailN1 := chebyshevPoints(lo, hi, K)
	pb.cL, pb.wv, pb.tailN, pb.tailN1, pb.lm = cL, wv, tailN, tailN1, baryRows(pb.w[cL:C], wv, bary)
	ss := tri(pb.d + 1)
	pb.vs, pb.vt = make([][]float64, C), make([][]float64, C)
	for c := range C {
		pb.vs[c], pb.vt[c] = make([]float64, K*ss), make([]float64, K*ss)
	}
	pb.vv = make([]float64, K*K*ss)
	pb.lmult = pb.lightMult()
}

// chebyshevPoints returns the K Chebyshev points of the second kind on
// [lo, hi] (hi first), their barycentric weights and the weights of the
// last two Chebyshev coefficients.
func chebyshevPoints(lo, hi float64, K int) (wv, bary, tailN, tailN1 []float64) {
	N := K - 1
	wv, bary = make([]float64, K), make([]float64, K)
	tailN, tailN1 = make([]float64, K), make([]float64, K)
	for j := range K {
		x := math.Cos(math.Pi * float64(j) / float64(N))
		wv[j] = (hi+lo)/2 + (hi-lo)/2*x
		half := 1.0
		if j == 0 || j == N {
			half = 0.5
		}
		sign := 1.0
		if j%2 == 1 {
			sign = -1
		}
		bary[j] = sign * half
		tailN[j] = half * sign / float64(N)
		tailN1[j] = 2 * half * math.Cos(math.Pi*float64(j*(N-1))/float64(N)) / float64(N)
	}
	return wv, bary, tailN, tailN1
}

// baryRows returns, per weight w, the barycentric interpolation weights
// from the points wv to w (row c at [c·K, (c+1)·K)). Subnormal weights can
// make them infinite; plQuadrature then sums without interpolation.
func baryRows(w, wv, bary []float64) []float64 {
	K := len(wv)
	lm := make([]float64, len(w)*K)
	for c, wc := range w {
		row := lm[c*K : (c+1)*K]
		sum, hit := 0.0, -1
		for j, wj := range wv {
			if wc == wj {
				hit = j
				break
			}
			row[j] = bary[j] / (wc - wj)
			sum += row[j]
		}
		if hit >= 0 {
			clear(row)
			row[hit] = 1
			continue
		}
		for j := range row {
			row[j] /= sum
		}
	}
	return lm
}

// dropInterp undoes setInterp: every class is then summed one by one.
func (pb *plProblem) dropInterp() {
	pb.cL, pb.wv, pb.lm, pb.vs, pb.vt, pb.vv = 0, nil, nil, nil, nil, nil
	pb.tailN, pb.tailN1, pb.lmult = nil, nil, 0
}

// stride is the number of classes, real and virtual, of the grids and
// columns; weight returns the weight of either.
func (pb *plProblem) stride() int { return pb.nc + len(pb.wv) }

func (pb *plProblem) weight(c int) float64 {
	if c < pb.nc {
		return pb.w[c]
	}
	return pb.wv[c-pb.nc]
}

// interpFrom returns the first class c2 of row c1 (from first) that the
// row interpolates, or pb.nc when it divides by each.
func (pb *plProblem) interpFrom(first int) int {
	from := max(first, pb.cL)
	if pb.wv == nil || pb.nc-from <= len(pb.wv) {
		return pb.nc
	}
	return from
}

// p2RowInterp adds row c1's sums with the virtual classes for the column
// of v = t_iv to pb.vs[c1] and pb.vt[c1] (see interpPairs).
func (pb *plProblem) p2RowInterp(c1, from int, g *plGrid, iv int, col *plColumn, sc *plScratch) {
	C, d, K, S := pb.nc, pb.d, len(pb.wv), pb.stride()
	ss := tri(d + 1)
	n := len(col.it)
	jv := g.jac[iv]
	// Every pair's term at node k is at most jv·w_c1·w_from·mult·a1[k]
	// (w_from the largest light weight; e^{−w t}, e^{−w v} ≤ 1).
	cut := pb.skip / (jv * pb.w[c1] * pb.w[from] * pb.multFrom(c1, from))
	sc.ks = sc.ks[:0]
	for k := range n {
		if sc.a1[k] <= cut {
			continue
		}
		if sc.state[k] == 0 {
			pb.rowNode(c1, k, col, sc, 1)
		}
		sc.ks = append(sc.ks, k)
	}
	div := biDivAccFor(d)
	vs, vt := pb.vs[c1], pb.vt[c1]
	for j := range K {
		c := C + j
		a, r, p, q := col.at[c*n:(c+1)*n], col.rt[c*n:(c+1)*n], col.pt[c*n:(c+1)*n], col.qt[c*n:(c+1)*n]
		clear(sc.acc)
		for _, k := range sc.ks {
			psi := col.jt[k] * col.at[c1*n+k] * a[k]
			div(sc.quot, sc.h[k*ss:(k+1)*ss], d, r[k], p[k], q[k], psi, sc.acc)
		}
		w1, w2 := jv*g.a[iv*S+c], jv*g.a[iv*S+c1]
		for i, v := range sc.acc {
			vs[j*ss+i] += w1 * v
			vt[j*ss+i] += w2 * v
		}
	}
}

// multFrom is the largest multiplicity of row c1's pairs with classes from ..
func (pb *plProblem) multFrom(c1, from int) float64 {
	mult := 0.0
	for c2 := from; c2 < pb.nc; c2++ {
		mult = max(mult, pb.mult(c1, c2))
	}
	return mult
}

// interpPairs returns s2 with the interpolated rows' pairs added: for
// class c2 ≥ from of row c1, w_c1·w_c2 times the interpolant of vs[c1]
// at w_c2 at (c1, c2) and of vt[c1] at (c2, c1); vs[c1] (vt[c1]) holds,
// per virtual class of weight w, the node sums of row c1 with a candidate
// of weight w ringing later (earlier), which are entire functions of w.
// It also returns the largest estimated error of the added terms (in node
// sums, as s2), from the last two Chebyshev coefficients.
func (pb *plProblem) interpPairs(s2 []float64) (out []float64, est float64) {
	if pb.wv == nil {
		return s2, 0
	}
	C, K := pb.nc, len(pb.wv)
	ss := tri(pb.d + 1)
	pb.s2buf = append(pb.s2buf[:0], s2...)
	out = pb.s2buf
	for c1 := range C {
		first := c1 + 1
		if pb.n[c1] > 1 {
			first = c1
		}
		from := pb.interpFrom(first)
		if from == C || c1 >= pb.cL {
			continue
		}
		top := pb.w[c1] * pb.w[from] * pb.multFrom(c1, from)
		for _, v := range [][]float64{pb.vs[c1], pb.vt[c1]} {
			for i := range ss {
				aN, aN1 := 0.0, 0.0
				for j := range K {
					aN += pb.tailN[j] * v[j*ss+i]
					aN1 += pb.tailN1[j] * v[j*ss+i]
				}
				est = max(est, top*(math.Abs(aN)+math.Abs(aN1)))
			}
		}
		for c2 := from; c2 < C; c2++ {
			ww := pb.w[c1] * pb.w[c2]
			lm := pb.lm[(c2-pb.cL)*K : (c2-pb.cL+1)*K]
			pb.interpAdd(out[(c1*C+c2)*ss:(c1*C+c2+1)*ss], pb.vs[c1], lm, ww)
			if c2 != c1 {
				pb.interpAdd(out[(c2*C+c1)*ss:(c2*C+c1+1)*ss], pb.vt[c1], lm, ww)
			}
		}
	}
	return out, max(est, pb.interpLight(out))
}

// interpAdd adds ww·Σ_j lm[j]·v[j·ss ..] to dst.
func (pb *plProblem) interpAdd(dst, v, lm []float64, ww float64) {
	ss := len(dst)
	for j, l := range lm {
		f := ww * l
		for i, x := range v[j*ss : (j+1)*ss] {
			dst[i] += f * x
		}
	}
}

// p2Virtual adds, for the column of v = t_iv, the node sums of virtual
// class i (ringing earlier, at t) with every virtual class j ≥ i (later,
// at t + v) to pb.vv, and with the roles swapped: the node sums agree but
// for the factor e^{−w v} of the later class, as in p2Row. With the light
// rows' pairs all between light classes, pb.vv replaces them (see
// interpLight): (K + 1)·K/2 divisions per node instead of one per light
// row and class.
func (pb *plProblem) p2Virtual(i int, g *plGrid, iv int, col *plColumn, sc *plScratch) {
	C, d, K, S := pb.nc, pb.d, len(pb.wv), pb.stride()
	ss := tri(d + 1)
	n := len(col.it)
	jv := g.jac[iv]
	// Every light pair's term at node k is at most jv·w_cL²·mult·dt/dσ·qs.
	cut := pb.skip / (jv * pb.w[pb.cL] * pb.w[pb.cL] * pb.lmult)
	sc.hv = resize(sc.hv, n*ss)
	sc.ks = sc.ks[:0]
	ci := C + i
	for k := range n {
		if col.jt[k]*col.qs[k] <= cut {
			continue
		}
		biDivLin(sc.hv[k*ss:(k+1)*ss], col.suf[k][:ss], d, col.rt[ci*n+k], col.pt[ci*n+k], col.qt[ci*n+k])
		sc.ks = append(sc.ks, k)
	}
	div := biDivAccFor(d)
	ai := col.at[ci*n : (ci+1)*n]
	for j := i; j < K; j++ {
		c := C + j
		a, r, p, q := col.at[c*n:(c+1)*n], col.rt[c*n:(c+1)*n], col.pt[c*n:(c+1)*n], col.qt[c*n:(c+1)*n]
		clear(sc.acc)
		for _, k := range sc.ks {
			div(sc.quot, sc.hv[k*ss:(k+1)*ss], d, r[k], p[k], q[k], col.jt[k]*ai[k]*a[k], sc.acc)
		}
		wj, wi := jv*g.a[iv*S+c], jv*g.a[iv*S+ci]
		vij, vji := pb.vv[(i*K+j)*ss:(i*K+j+1)*ss], pb.vv[(j*K+i)*ss:(j*K+i+1)*ss]
		for x, v := range sc.acc {
			vij[x] += wj * v
		}
		if j != i {
			for x, v := range sc.acc {
				vji[x] += wi * v
			}
		}
	}
}

// lightMult returns the largest multiplicity of a pair of light classes.
func (pb *plProblem) lightMult() float64 {
	mult := 0.0
	for c := pb.cL; c < pb.nc; c++ {
		mult = max(mult, pb.mult(c, c), pb.mult(c, pb.cL))
	}
	return mult
}

// interpLight adds to s2 the pairs of light classes (c1 earlier, c2 later;
// c1 = c2 when the class has two candidates or more): w_c1·w_c2 times the
// tensor interpolant of pb.vv at (w_c1, w_c2), in two passes (over j for
// every c2, then over i). It returns the estimated error: the last two
// Chebyshev coefficients along each axis, times the Lebesgue constant of
// the other axis' interpolation (the largest Σ_i |L_i(w)|).
func (pb *plProblem) interpLight(s2 []float64) float64 {
	C, K, cL := pb.nc, len(pb.wv), pb.cL
	ss := tri(pb.d + 1)
	L := C - cL
	// Both passes are matrix products with the interpolation matrix
	// Λ = lm (L × K): per virtual class i, T_i = Λ·V_i with V_i = vv[i][·]
	// (K × ss), then R = Λ·[T_0; …; T_{K−1}] (rows i, L·ss columns), so
	// R[c1][c2] = Σ_ij L_i(w_c1) L_j(w_c2) vv[i][j]. Done by BLAS, they cost
	// a few percent of a level instead of a sixth.
	pb.tj = resize(pb.tj, K*L*ss)
	pb.tr = resize(pb.tr, L*L*ss)
	lam := blas64.General{Rows: L, Cols: K, Stride: K, Data: pb.lm}
	for i := range K {
		vi := blas64.General{Rows: K, Cols: ss, Stride: ss, Data: pb.vv[i*K*ss : (i+1)*K*ss]}
		ti := blas64.General{Rows: L, Cols: ss, Stride: ss, Data: pb.tj[i*L*ss : (i+1)*L*ss]}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, lam, vi, 0, ti)
	}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, lam,
		blas64.General{Rows: K, Cols: L * ss, Stride: L * ss, Data: pb.tj}, 0,
		blas64.General{Rows: L, Cols: L * ss, Stride: L * ss, Data: pb.tr})
	for c1 := cL; c1 < C; c1++ {
		for c2 := cL; c2 < C; c2++ {
			if c2 == c1 && pb.n[c1] < 2 {
				continue
			}
			dst := s2[(c1*C+c2)*ss : (c1*C+c2+1)*ss]
			ww := pb.w[c1] * pb.w[c2]
			for x, v := range pb.tr[((c1-cL)*L+c2-cL)*ss : ((c1-cL)*L+c2-cL+1)*ss] {
				dst[x] += ww * v
			}
		}
	}
	lebesgue := 0.0
	for c := cL; c < C; c++ {
		s := 0.0
		for _, l := range pb.lm[(c-cL)*K : (c-cL+1)*K] {
			s += math.Abs(l)
		}
		lebesgue = max(lebesgue, s)
	}
	tail := 0.0
	for a := range K {
		for x := range ss {
			var rN, rN1, cN, cN1 float64 // along j for row a, along i for column a
			for b := range K {
				rv, cv := pb.vv[(a*K+b)*ss+x], pb.vv[(b*K+a)*ss+x]
				rN += pb.tailN[b] * rv
				rN1 += pb.tailN1[b] * rv
				cN += pb.tailN[b] * cv
				cN1 += pb.tailN1[b] * cv
			}
			tail = max(tail, math.Abs(rN)+math.Abs(rN1), math.Abs(cN)+math.Abs(cN1))
		}
	}
	return pb.w[cL] * pb.w[cL] * pb.lmult * 2 * lebesgue * tail
}
