package eval

// RandomERR returns the exact expected ERR@k of a uniformly random slate of
// one query: ℓ = min(k, m) distinct documents of its m in uniformly random
// order (as ERR scores them, with R from c.MaxRel). A query without
// documents, or k ≤ 0, gives 0, like ERR of an empty slate.
//
// With R_a = errProb(labels[a], c.MaxRel) and q_a = 1 − R_a, each term of ERR telescopes,
// R(s_j)·Π_{i<j} q(s_i) = P_{j−1} − P_j with P_j = Π_{i≤j} q(s_i), and the
// first j slots of a uniform slate are a uniform j-subset of the documents,
// so E[P_j] = ê_j = e_j(q)/C(m, j), the normalised elementary symmetric
// polynomial of the q_a (ê_0 = 1). Hence
//
//	E[ERR@k] = Σ_{j=1..ℓ} (ê_{j−1} − ê_j)/j.
//
// The differences d_j = ê_{j−1} − ê_j are not formed by subtraction (which
// would lose every digit when all R_a are tiny, e.g. maxrel 255): adding
// documents one at a time, with ê and d over the first i documents,
//
//	ê_j ← ((i−j)·ê_j + j·q_i·ê_{j−1}) / i,
//	d_j ← ((i−j)·d_j + R_i·ê_{j−1} + (j−1)·q_i·d_{j−1}) / i,
//
// sums of non-negative terms, so rounding errors stay relative
// (growing at most linearly with m) and nothing overflows; it costs O(m·ℓ)
// and, for ℓ ≤ 32, allocates nothing.
func RandomERR(labels []uint8, k int, c Conventions) float64 {
	m := len(labels)
	l := min(k, m)
	if l <= 0 {
		return 0
	}
	// e[j] = ê_j and d[j] = ê_{j−1} − ê_j over the documents seen so far
	// (j ≤ l); entries above the count seen are 0 and only ever multiplied
	// by a zero weight.
	var buf [2 * 33]float64
	var scratch []float64
	if 2*(l+1) <= len(buf) {
		scratch = buf[:2*(l+1)]
	} else {
		scratch = make([]float64, 2*(l+1))
	}
	e, d := scratch[:l+1], scratch[l+1:]
	e[0] = 1
	for i0, g := range labels {
		i := i0 + 1
		R := errProb(g, c.MaxRel)
		q := 1 - R
		inv := 1 / float64(i)
		// Descending j: the updates read index j−1 before it changes.
		for j := min(i, l); j >= 1; j-- {
			w := float64(i - j)
			d[j] = (w*d[j] + R*e[j-1] + float64(j-1)*q*d[j-1]) * inv
			e[j] = (w*e[j] + float64(j)*q*e[j-1]) * inv
		}
	}
	s := 0.0
	for j := 1; j <= l; j++ {
		s += d[j] / float64(j)
	}
	return s
}
