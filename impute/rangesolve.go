package impute

import (
	"math"

	"gonum.org/v1/gonum/blas"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
)

// rangeSolver applies the pseudoinverse of a symmetric positive
// semidefinite block A whose null space is known exactly (N, orthonormal
// basis q) by one Cholesky factorisation instead of an eigendecomposition.
//
// A is first scaled by its diagonal (Jacobi): Ã = D^{-1/2} A D^{-1/2} has
// unit diagonal and null space D^{1/2}N, so Ã + Z̃Z̃ᵀ, with Z̃ an orthonormal
// basis of D^{1/2}N, is positive definite. For b ∈ Range(A) = N^⊥, c =
// D^{-1/2}b lies in Range(Ã), so u = (Ã + Z̃Z̃ᵀ)⁻¹c = Ã†c solves Ãu = c, x =
// D^{-1/2}u solves Ax = b, and A†b is x with its N component removed:
//
//	A† b = (I − QQᵀ) D^{-1/2} (Ã + Z̃Z̃ᵀ)⁻¹ D^{-1/2} (I − QQᵀ) b.
//
// Cholesky's rounding error is invariant under diagonal scaling, so the
// solve is as accurate as Ã's conditioning allows (van der Sluis), however
// small the marginals: rank that an eigenvalue cut-off relative to A's
// largest eigenvalue would drop is kept. Every solve refines its answer
// with residuals in double-double and bounds its error (see solve); the
// structural null space is projected out of every iterate, since the float
// moments satisfy Γ's structure only up to rounding.
type rangeSolver struct {
	n        int
	a        []float64   // A, row-major (shared, not modified)
	isd      []float64   // D^{-1/2}
	q        [][]float64 // orthonormal basis of N
	z        [][]float64 // orthonormal basis of D^{1/2}N
	u        []float64   // Cholesky factor U of Ã + Z̃Z̃ᵀ = UᵀU, row-major upper
	blk      int         // A's diagonal blocks of this size are diagonal (0: none)
	minPivot float64     // smallest pivot U_ii²
}

// Fast-path certification: a factorisation with a pivot U_ii² below
// minPivot is not trusted (the null space may be larger
// than N, and refinement would not contract); the caller falls back to the
// eigendecomposition. A solve whose bound exceeds maxSolveBound hands its
// target to the eigendecomposition too (fastApply). The smallest diagonal entry
// accepted is minDiag: a marginal that underflows is a structural zero.
const (
	minPivot      = 1e-13
	maxSolveBound = 1e-8
	minDiag       = 1e-290
)

// newRangeSolver factorises the n × n block a (row-major, symmetric PSD,
// null space spanned by the orthonormal q), whose diagonal blocks of size
// blk are diagonal (Γ's slot blocks: a candidate fills one slot at a time;
// blk 0: no such structure). ok is false when a is not
// certified: a non-positive diagonal, a failed factorisation or a
// condition estimate beyond minRcond.
func newRangeSolver(a []float64, n, blk int, q [][]float64) (*rangeSolver, bool) {
	rs := &rangeSolver{n: n, a: a, q: q, isd: make([]float64, n), blk: blk}
	for i := range n {
		d := a[i*n+i]
		if !(d > minDiag) || math.IsInf(d, 1) {
			return nil, false
		}
		rs.isd[i] = 1 / math.Sqrt(d)
	}
	for _, v := range q {
		z := make([]float64, n)
		for i, x := range v {
			z[i] = x / rs.isd[i]
		}
		rs.z = append(rs.z, z)
	}
	rs.z = orthonormalize(rs.z)
	if len(rs.z) != len(q) {
		return nil, false
	}
	s := make([]float64, n*n)
	// One pass per row: Ã's entry, then Z̃Z̃ᵀ's terms in the basis' order.
	for i := range n {
		row, out, di := a[i*n:i*n+n], s[i*n:i*n+n], rs.isd[i]
		for j := i; j < n; j++ {
			out[j] = row[j] * di * rs.isd[j]
		}
		for _, z := range rs.z {
			zi := z[i]
			for j := i; j < n; j++ {
				out[j] += zi * z[j]
			}
		}
	}
	// LAPACK's unblocked Cholesky: at Γ's sizes gonum's blocked Dpotrf
	// spends more on its level-3 calls than it saves (one core, n = 100 to
	// 1000: 1.4–1.7× slower; n = 250: 0.74 ms against 0.49 ms).
	if !(lapackgonum.Implementation{}).Dpotf2(blas.Upper, n, s, n) {
		return nil, false
	}
	// Ã + Z̃Z̃ᵀ has unit diagonal (plus Z̃'s), so its pivots U_ii² are on
	// the scale of its eigenvalues: a tiny one is a direction Γ lacks.
	rs.u, rs.minPivot = s, math.Inf(1)
	for i := range n {
		rs.minPivot = min(rs.minPivot, s[i*n+i]*s[i*n+i])
	}
	if !(rs.minPivot >= minPivot) {
		return nil, false
	}
	return rs, true
}

// scratch returns one solve's work space: 4n values.
func (rs *rangeSolver) scratch() []float64 { return make([]float64, 4*rs.n) }

// maxRefine bounds the refinement steps of a solve; each gains a factor
// ~κ(Ã)·ε, so three or four reach full precision on what passes minPivot.
const maxRefine = 8

// solve sets dst = A†b and returns an estimated bound on the solve's
// relative error in the marginal-scaled norm: with x the computed solution
// before its N component is removed and x* the exact one,
// ‖D^{1/2}(x − x*)‖₁ ≤ bound·‖D^{1/2}x‖₁.
//
// The Cholesky solve is refined with residuals b − Ax computed in
// double-double arithmetic (mixed-precision iterative refinement, as
// LAPACK's xGERFSX): each step's correction solves for the error of the
// current x to relative accuracy ~κ(Ã)·ε, so the last correction's size,
// over one minus the observed contraction, bounds the error left; the
// steps stop once a correction is below ε or stops contracting. dst and b
// may alias; sc has 4n values.
func (rs *rangeSolver) solve(dst, b, sc []float64) float64 {
	n := rs.n
	y, x, r := sc[:n], sc[n:2*n], sc[2*n:3*n]
	copy(y, b)
	projectOut(y, rs.q)
	clear(x)
	copy(r, y)
	prev, bound := math.Inf(1), math.Inf(1)
	for k := range maxRefine {
		// r holds b − Ax: correct x by D^{-1/2}(Ã + Z̃Z̃ᵀ)⁻¹D^{-1/2} r.
		for i := range r {
			r[i] *= rs.isd[i]
		}
		rs.potrs(r)
		// Keep x in N^⊥: a component in N would meet Γ's rounding-level
		// violations of its structure in the next residual.
		for i := range r {
			r[i] *= rs.isd[i]
		}
		projectOut(r, rs.q)
		dn, un := 0.0, 0.0
		for i := range x {
			x[i] += r[i]
			dn += math.Abs(r[i]) / rs.isd[i]
			un += math.Abs(x[i]) / rs.isd[i]
		}
		rel := 0.0
		if un > 0 {
			rel = dn / un
		}
		if k > 0 {
			if rel == 0 { // x solves the system exactly as stored
				bound = 2 * 0x1p-53
				break
			}
			rho := rel / prev
			if rho < 1 {
				// The last correction is the error before it, up to a
				// factor 1 ± ρ; it bounds the (smaller) error after it.
				bound = min(bound, rel/(1-rho)+2*0x1p-53)
			}
			if rel <= 0x1p-52 || rho > 0.5 {
				break
			}
		}
		prev = rel
		rs.residualDD(r, y, x)
	}
	copy(dst, x)
	return bound
}

// potrs overwrites v with (UᵀU)⁻¹v: forward substitution with Uᵀ, then
// back substitution with U, both along U's contiguous rows.
func (rs *rangeSolver) potrs(v []float64) {
	n, u := rs.n, rs.u
	for i := range n {
		row := u[i*n : i*n+n]
		x := v[i] / row[i]
		v[i] = x
		if x != 0 {
			axpy(v[i+1:], -x, row[i+1:])
		}
	}
	for i := n - 1; i >= 0; i-- {
		row := u[i*n : i*n+n]
		v[i] = (v[i] - dot(row[i+1:], v[i+1:])) / row[i]
	}
}

// residualDD sets r = y − Ax with every row's sum in double-double
// (products split exactly by FMA, sums by TwoSum), rounded once. r is not
// projected onto N^⊥: its entries are small relative to the marginals,
// and an orthogonal projection would spread its (rounding-level) N
// component over rows of tiny marginals, where the scaled solve magnifies
// it; the correction's N component is removed instead.
func (rs *rangeSolver) residualDD(r, y, x []float64) {
	n, b := rs.n, rs.blk
	for i := range n {
		row := rs.a[i*n : i*n+n]
		hi, lo := y[i], 0.0
		// Entries of i's own diagonal block other than A_ii are exact
		// zeros (rs.blk): skipping them adds nothing to hi or lo.
		from, to := i, i+1
		if b > 0 {
			from, to = i/b*b, i/b*b+b
		}
		for _, seg := range [3][2]int{{0, from}, {i, i + 1}, {to, n}} {
			for j := seg[0]; j < seg[1]; j++ {
				xj := x[j]
				p := -row[j] * xj
				e := math.FMA(-row[j], xj, -p)
				s := hi + p
				bb := s - hi
				lo += (hi - (s - bb)) + (p - bb) + e
				hi = s
			}
		}
		r[i] = hi + lo
	}
}
