package impute

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
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
// largest eigenvalue would drop is kept. Every solve does one step of
// iterative refinement and bounds its error from the final residual.
type rangeSolver struct {
	n     int
	a     []float64   // A, row-major (shared, not modified)
	isd   []float64   // D^{-1/2}
	q     [][]float64 // orthonormal basis of N
	z     [][]float64 // orthonormal basis of D^{1/2}N
	u     blas64.Triangular
	ainv  float64 // estimate of ‖(Ã + Z̃Z̃ᵀ)⁻¹‖₁
	rcond float64 // reciprocal 1-norm condition estimate of Ã + Z̃Z̃ᵀ
}

// Fast-path certification: a factorisation whose reciprocal condition
// estimate is below minRcond is not trusted (the null space may be larger
// than N, or the solve's error bound would exceed maxSolveBound), and the
// caller falls back to the eigendecomposition. The smallest diagonal entry
// accepted is minDiag: a marginal that underflows is a structural zero.
const (
	minRcond      = 1e-13
	maxSolveBound = 1e-8
	minDiag       = 1e-290
)

// newRangeSolver factorises the n × n block a (row-major, symmetric PSD,
// null space spanned by the orthonormal q). ok is false when a is not
// certified: a non-positive diagonal, a failed factorisation or a
// condition estimate beyond minRcond.
func newRangeSolver(a []float64, n int, q [][]float64) (*rangeSolver, bool) {
	rs := &rangeSolver{n: n, a: a, q: q, isd: make([]float64, n)}
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
	for i := range n {
		row := a[i*n : i*n+n]
		for j := i; j < n; j++ {
			s[i*n+j] = row[j] * rs.isd[i] * rs.isd[j]
		}
	}
	for _, z := range rs.z {
		for i := range n {
			zi := z[i]
			for j := i; j < n; j++ {
				s[i*n+j] += zi * z[j]
			}
		}
	}
	sym := blas64.Symmetric{N: n, Stride: n, Data: s, Uplo: blas.Upper}
	work := make([]float64, 3*n)
	anorm := lapack64.Lansy(lapack.MaxColumnSum, sym, work)
	t, ok := lapack64.Potrf(sym)
	if !ok {
		return nil, false
	}
	rs.u = t
	rs.rcond = lapack64.Pocon(blas64.Symmetric{N: n, Stride: n, Data: s, Uplo: blas.Upper}, anorm, work, make([]int, n))
	if !(rs.rcond >= minRcond) {
		return nil, false
	}
	rs.ainv = 1 / (rs.rcond * anorm)
	return rs, true
}

// solveScratch is one solve's work space: 4n values.
func (rs *rangeSolver) scratch() []float64 { return make([]float64, 4*rs.n) }

// solve sets dst = A†b and returns a bound on the solve's relative error in
// the marginal-scaled norm, ‖D^{1/2}(dst − A†b)‖₁ ≤ bound·‖D^{1/2}dst‖₁
// (LAPACK's forward error bound of the scaled system: the norm estimate of
// (Ã + Z̃Z̃ᵀ)⁻¹ times the final residual plus its rounding). dst and b may
// alias; sc has 4n values.
func (rs *rangeSolver) solve(dst, b, sc []float64) float64 {
	n := rs.n
	c, u, r, w := sc[:n], sc[n:2*n], sc[2*n:3*n], sc[3*n:4*n]
	copy(c, b)
	projectOut(c, rs.q)
	for i := range c {
		c[i] *= rs.isd[i]
	}
	copy(u, c)
	rs.potrs(u)
	// One step of iterative refinement.
	rs.residual(r, w, c, u)
	rs.potrs(r)
	for i := range u {
		u[i] += r[i]
	}
	res, mag := rs.residual(r, w, c, u)
	un := 0.0
	for _, x := range u {
		un += math.Abs(x)
	}
	bound := 0.0
	if un > 0 {
		gamma := float64(n+2) * 0x1p-53
		bound = rs.ainv * (res + gamma*mag) / un
	}
	for i := range u {
		dst[i] = u[i] * rs.isd[i]
	}
	projectOut(dst, rs.q)
	return bound
}

func (rs *rangeSolver) potrs(v []float64) {
	lapack64.Potrs(rs.u, blas64.General{Rows: rs.n, Cols: 1, Stride: 1, Data: v})
}

// residual sets r = c − (Ã + Z̃Z̃ᵀ)u and returns ‖r‖₁ and ‖|Ã + Z̃Z̃ᵀ||u| +
// |c|‖₁, the scale of the residual's rounding. w is scratch.
func (rs *rangeSolver) residual(r, w, c, u []float64) (res, mag float64) {
	n := rs.n
	for i := range n {
		w[i] = u[i] * rs.isd[i]
	}
	for i := range n {
		row := rs.a[i*n : i*n+n]
		s, sa := 0.0, 0.0
		for j, x := range w {
			p := row[j] * x
			s += p
			sa += math.Abs(p)
		}
		r[i] = s * rs.isd[i]
		mag += sa*rs.isd[i] + math.Abs(c[i])
	}
	for _, z := range rs.z {
		t, ta := 0.0, 0.0
		for i, x := range u {
			t += z[i] * x
			ta += math.Abs(z[i] * x)
		}
		for i, x := range z {
			r[i] += t * x
			mag += ta * math.Abs(x)
		}
	}
	for i := range n {
		r[i] = c[i] - r[i]
		res += math.Abs(r[i])
	}
	return res, mag
}
