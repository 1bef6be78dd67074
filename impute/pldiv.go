package impute

// Unrolled biDivAcc for the small degrees d = ℓ − 2 ≤ 3 (ℓ ≤ 5, the common
// production slates). At these sizes the loop and slice bookkeeping of the
// general kernel cost as much as the arithmetic; the unrolled kernels do
// the same operations in the same order, so their results are bit for bit
// those of biDivAcc (TestBiDivAccUnrolled), about twice as fast.

// biDivAccFor returns the kernel for degree d: acc += w · a/(r + p·x + q·y),
// with dst as scratch of tri(d+1).
func biDivAccFor(d int) func(dst, a []float64, d int, r, p, q, w float64, acc []float64) {
	switch d {
	case 0:
		return biDivAcc0
	case 1:
		return biDivAcc1
	case 2:
		return biDivAcc2
	case 3:
		return biDivAcc3
	}
	return biDivAcc
}

func biDivAcc0(_, a []float64, _ int, r, _, _, w float64, acc []float64) {
	ir := 1 / r
	acc[0] += w * (a[0] * ir)
}

func biDivAcc1(_, a []float64, _ int, r, p, q, w float64, acc []float64) {
	_, _ = a[2], acc[2]
	ir := 1 / r
	v0 := a[0] * ir
	acc[0] += w * v0
	acc[1] += w * ((a[1] - q*v0) * ir)
	acc[2] += w * ((a[2] - p*v0) * ir)
}

func biDivAcc2(_, a []float64, _ int, r, p, q, w float64, acc []float64) {
	_, _ = a[5], acc[5]
	ir := 1 / r
	v0 := a[0] * ir
	acc[0] += w * v0
	v10 := (a[1] - q*v0) * ir
	v11 := (a[2] - p*v0) * ir
	acc[1] += w * v10
	acc[2] += w * v11
	acc[3] += w * ((a[3] - q*v10) * ir)
	acc[4] += w * ((a[4] - p*v10 - q*v11) * ir)
	acc[5] += w * ((a[5] - p*v11) * ir)
}

func biDivAcc3(_, a []float64, _ int, r, p, q, w float64, acc []float64) {
	_, _ = a[9], acc[9]
	ir := 1 / r
	v0 := a[0] * ir
	acc[0] += w * v0
	v10 := (a[1] - q*v0) * ir
	v11 := (a[2] - p*v0) * ir
	acc[1] += w * v10
	acc[2] += w * v11
	v20 := (a[3] - q*v10) * ir
	v21 := (a[4] - p*v10 - q*v11) * ir
	v22 := (a[5] - p*v11) * ir
	acc[3] += w * v20
	acc[4] += w * v21
	acc[5] += w * v22
	acc[6] += w * ((a[6] - q*v20) * ir)
	acc[7] += w * ((a[7] - p*v20 - q*v21) * ir)
	acc[8] += w * ((a[8] - p*v21 - q*v22) * ir)
	acc[9] += w * ((a[9] - p*v22) * ir)
}

// biMulLin1 .. biMulLin3 are biMulLin for d = 1, 2, 3 unrolled, with the
// same operations in the same order (so the same bits).
func biMulLin1(a []float64, r, p, q float64) {
	_ = a[2]
	a[2] = r*a[2] + p*a[0]
	a[1] = r*a[1] + q*a[0]
	a[0] *= r
}

func biMulLin2(a []float64, r, p, q float64) {
	_ = a[5]
	a[5] = r*a[5] + p*a[2]
	a[4] = r*a[4] + p*a[1] + q*a[2]
	a[3] = r*a[3] + q*a[1]
	biMulLin1(a, r, p, q)
}

func biMulLin3(a []float64, r, p, q float64) {
	_ = a[9]
	a[9] = r*a[9] + p*a[5]
	a[8] = r*a[8] + p*a[4] + q*a[5]
	a[7] = r*a[7] + p*a[3] + q*a[4]
	a[6] = r*a[6] + q*a[3]
	biMulLin2(a, r, p, q)
}

// biMul1 .. biMul3 are biMul for d = 1, 2, 3 unrolled: every coefficient
// sums the same products in the same order (so the same bits), and the
// coefficients of degree below d are those of degree d − 1.
func biMul1(dst, a, b []float64) {
	_, _, _ = dst[2], a[2], b[2]
	dst[0] = 0 + a[0]*b[0]
	dst[1] = 0 + a[0]*b[1] + a[1]*b[0]
	dst[2] = 0 + a[0]*b[2] + a[2]*b[0]
}

func biMul2(dst, a, b []float64) {
	_, _, _ = dst[5], a[5], b[5]
	biMul1(dst, a, b)
	dst[3] = 0 + a[0]*b[3] + a[1]*b[1] + a[3]*b[0]
	dst[4] = 0 + a[0]*b[4] + a[1]*b[2] + a[2]*b[1] + a[4]*b[0]
	dst[5] = 0 + a[0]*b[5] + a[2]*b[2] + a[5]*b[0]
}

func biMul3(dst, a, b []float64) {
	_, _, _ = dst[9], a[9], b[9]
	biMul2(dst, a, b)
	dst[6] = 0 + a[0]*b[6] + a[1]*b[3] + a[3]*b[1] + a[6]*b[0]
	dst[7] = 0 + a[0]*b[7] + a[1]*b[4] + a[2]*b[3] + a[3]*b[2] + a[4]*b[1] + a[7]*b[0]
	dst[8] = 0 + a[0]*b[8] + a[1]*b[5] + a[2]*b[4] + a[4]*b[2] + a[5]*b[1] + a[8]*b[0]
	dst[9] = 0 + a[0]*b[9] + a[2]*b[5] + a[5]*b[2] + a[9]*b[0]
}
