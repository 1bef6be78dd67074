package impute

// plEnumBudget bounds the work of plEnumMoments (slate prefixes × ℓ²) up to
// which it replaces the dynamic programme; it wins when the classes are
// many and the slots few (a production logger's distinct scores at ℓ ≤ 3).
const plEnumBudget = 1 << 21

// plEnumMinDP is the programme's work below which it is kept even where
// enumeration would be cheaper: both take microseconds there, and the
// programme's rounding is what earlier outputs of small shapes carried
// (an ill-conditioned Γ magnifies any change of it).
const plEnumMinDP = 1 << 17

// plEnumWork estimates plEnumMoments' work: the class sequences of length
// up to l, times l².
func plEnumWork(nc, l int) float64 {
	work, seq := 0.0, 1.0
	for t := range l {
		seq *= float64(nc - t)
		work += seq
	}
	return work * float64(l*l)
}

// plEnumMoments returns the exact class-level moments of Plackett–Luce
// sampling by visiting every sequence of classes drawn in the first l
// slots with its probability. Classes must be in order of non-increasing
// weight (ScoredDist's order): the mass left after each draw is then summed
// over the gaps between drawn classes from suffix sums, each with a
// rounding error relative to what is left, so that a peaked logger's tiny
// remainders keep their relative precision (W minus the drawn weights
// would not).
func plEnumMoments(sizes []int, w []float64, l int) *moments {
	nc := len(sizes)
	mo := newMoments(l, nc)
	mo.method = "exact-enum"
	suffix := make([]float64, nc+1) // suffix[c] = Σ_{c' ≥ c} n_c'·w_c'
	for c := nc - 1; c >= 0; c-- {
		suffix[c] = suffix[c+1] + float64(sizes[c])*w[c]
	}
	e := &plEnum{sizes: sizes, w: w, l: l, nc: nc, mo: mo, suffix: suffix,
		drawn: make([]int, nc), seq: make([]int, l)}
	e.visit(0, 1)
	for j := range l {
		for k := j + 1; k < l; k++ {
			for c := range nc {
				for c2 := range nc {
					mo.setPair(j, k, c, c2, mo.pair(j, k, c, c2))
				}
			}
		}
	}
	return mo
}

type plEnum struct {
	sizes  []int
	w      []float64
	l, nc  int
	mo     *moments
	suffix []float64
	drawn  []int // per class, candidates drawn so far
	seq    []int // classes drawn in slots 0..t−1
}

// left returns the weight not yet drawn: the untouched classes by gaps of
// suffix sums, the touched ones by their remaining counts.
func (e *plEnum) left(t int) float64 {
	// Touched classes, increasing (at most t of them): insertion sort of
	// the drawn sequence's distinct classes.
	var buf [16]int
	cls := buf[:0]
	if t > len(buf) {
		cls = make([]int, 0, t)
	}
	for _, c := range e.seq[:t] {
		i := len(cls)
		dup := false
		for k, x := range cls {
			if x == c {
				dup = true
				break
			}
			if x > c {
				i = k
				break
			}
		}
		if dup {
			continue
		}
		cls = append(cls, 0)
		copy(cls[i+1:], cls[i:])
		cls[i] = c
	}
	sum, lo := 0.0, 0
	for _, c := range cls {
		if c > lo {
			sum += e.suffix[lo] - e.suffix[c]
		}
		sum += float64(e.sizes[c]-e.drawn[c]) * e.w[c]
		lo = c + 1
	}
	if lo < e.nc {
		sum += e.suffix[lo]
	}
	return sum
}

// visit draws slot t from every class with candidates left, given the
// probability p of the sequence so far.
func (e *plEnum) visit(t int, p float64) {
	total := e.left(t)
	mo, nc := e.mo, e.nc
	for c := range nc {
		n := e.sizes[c] - e.drawn[c]
		if n == 0 {
			continue
		}
		pc := p * float64(n) * e.w[c] / total
		mo.p1[t*nc+c] += pc
		for s, c0 := range e.seq[:t] {
			mo.p2[(s*e.l+t)*nc*nc+c0*nc+c] += pc
		}
		if t+1 < e.l {
			e.seq[t] = c
			e.drawn[c]++
			e.visit(t+1, pc)
			e.drawn[c]--
		}
	}
}
