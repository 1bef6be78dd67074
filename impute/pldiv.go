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
