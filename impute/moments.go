package impute

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// moments are the class-level first and second moments of a slate
// distribution, all Γ needs:
//
//	p1[j·C + c]              = P_j(c)    = P(slot j holds a class-c candidate)
//	p2[(j·ℓ + k)·C² + c·C + c'] = P_jk(c,c') = P(slot j in class c, slot k in c'), j ≠ k
//
// p2 is symmetric: P_jk(c,c') = P_kj(c',c); entries with j = k are 0.
type moments struct {
	l, nc  int
	p1, p2 []float64
	exact  bool
	stderr float64 // Monte Carlo standard error bound of the entries; 0 when exact
	states int     // DP states used (0 for closed forms and Monte Carlo)
	// bound is an upper bound on max |error| over all entries of p1 and p2
	// of a deterministic approximation (0 when exact); method names how the
	// moments were computed ("exact-dp", "clock-quadrature"; may be empty).
	bound  float64
	method string
}

func newMoments(l, nc int) *moments {
	return &moments{l: l, nc: nc, p1: make([]float64, l*nc), p2: make([]float64, l*l*nc*nc), exact: true}
}

func (mo *moments) pair(j, k, c, c2 int) float64 {
	return mo.p2[(j*mo.l+k)*mo.nc*mo.nc+c*mo.nc+c2]
}

func (mo *moments) setPair(j, k, c, c2 int, v float64) {
	mo.p2[(j*mo.l+k)*mo.nc*mo.nc+c*mo.nc+c2] = v
	mo.p2[(k*mo.l+j)*mo.nc*mo.nc+c2*mo.nc+c] = v
}

// uniformMoments are the moments of the uniform distribution over slates,
// seen through the class partition sizes: every slot is a uniform draw and
// every ordered pair of slots a uniform pair of distinct candidates.
func uniformMoments(sizes []int, l int) *moments {
	nc := len(sizes)
	m := 0
	for _, n := range sizes {
		m += n
	}
	mo := newMoments(l, nc)
	for j := range l {
		for c, n := range sizes {
			mo.p1[j*nc+c] = float64(n) / float64(m)
		}
	}
	if m < 2 {
		return mo
	}
	pairs := float64(m) * float64(m-1)
	for j := range l {
		for k := j + 1; k < l; k++ {
			for c, n := range sizes {
				for c2, n2 := range sizes {
					v := float64(n) * float64(n2)
					if c == c2 {
						v = float64(n) * float64(n-1)
					}
					mo.setPair(j, k, c, c2, v/pairs)
				}
			}
		}
	}
	return mo
}

// mix returns (1−eps)·a + eps·b.
func mixMoments(a, b *moments, eps float64) *moments {
	out := newMoments(a.l, a.nc)
	for i := range out.p1 {
		out.p1[i] = (1-eps)*a.p1[i] + eps*b.p1[i]
	}
	for i := range out.p2 {
		out.p2[i] = (1-eps)*a.p2[i] + eps*b.p2[i]
	}
	out.exact = a.exact && b.exact
	out.stderr = (1 - eps) * a.stderr
	out.states = a.states
	out.bound = (1-eps)*a.bound + eps*b.bound
	out.method = a.method
	return out
}

// dpLevel holds the states of the draw process before slot t: vectors of
// per-class counts already drawn, with their transitions.
type dpLevel struct {
	prob []float64 // probability of each state
	next []int32   // [s·C + c]: state of level t+1 after drawing class c, −1 if exhausted
	tp   []float64 // [s·C + c]: probability of drawing class c from state s
}

// weightedMoments computes the exact moments of slot-by-slot sampling
// without replacement (class c has sizes[c] candidates of weight w[c]) by a
// dynamic programme over per-class count vectors. It gives up (ok = false)
// when the states would exceed maxStates or the encoding would overflow.
//
// P_j(c) is the forward probability of drawing c at level j. For pairs, one
// forward pass per (j, c) starts from the mass of "slot j drew class c" and
// reads off the draw probabilities of every later slot k.
func weightedMoments(sizes []int, w []float64, l, maxStates int) (mo *moments, ok bool) {
	nc := len(sizes)
	radix, stride, ok := countCode(sizes, l)
	if !ok {
		return nil, false
	}
	levels, total, ok := drawLevels(sizes, w, l, maxStates, radix, stride)
	if !ok {
		return nil, false
	}
	// Forward probabilities of the states.
	levels[0].prob = []float64{1}
	for t := 0; t+1 < l; t++ {
		levels[t+1].prob = make([]float64, len(levels[t+1].next)/nc)
		propagate(&levels[t], levels[t].prob, levels[t+1].prob, nc, -1)
	}
	mo = newMoments(l, nc)
	mo.states = total
	for t := range l {
		lv := &levels[t]
		for s, p := range lv.prob {
			for c := range nc {
				mo.p1[t*nc+c] += p * lv.tp[s*nc+c]
			}
		}
	}
	pairMoments(mo, levels)
	return mo, true
}

// countCode returns the mixed-radix code of per-class count vectors (counts
// never exceed min(n_c, ℓ)): a vector's key is Σ_c count_c·stride[c]. ok is
// false when the codes would overflow.
func countCode(sizes []int, l int) (radix, stride []uint64, ok bool) {
	nc := len(sizes)
	radix = make([]uint64, nc)
	stride = make([]uint64, nc)
	code := uint64(1)
	for c, n := range sizes {
		radix[c] = uint64(min(n, l) + 1)
		stride[c] = code
		hi, lo := bits.Mul64(code, radix[c])
		if hi != 0 || lo > 1<<62 {
			return nil, nil, false
		}
		code = lo
	}
	return radix, stride, true
}

// drawLevels enumerates the count vectors reachable before every slot with
// their transitions, and the number of states in all; ok is false when that
// number would exceed maxStates. States of a level are numbered in order of
// first reach, which fixes the order of every later sum.
func drawLevels(sizes []int, w []float64, l, maxStates int, radix, stride []uint64) (levels []dpLevel, total int, ok bool) {
	nc := len(sizes)
	levels = make([]dpLevel, l)
	keys := []uint64{0}
	counts := make([]int, nc)
	total = 1
	for t := range l {
		lv := &levels[t]
		ns := len(keys)
		lv.next = make([]int32, ns*nc)
		lv.tp = make([]float64, ns*nc)
		var nextKeys []uint64
		index := make(map[uint64]int32)
		for s, key := range keys {
			rest := key
			sum := 0.0
			for c := range nc {
				counts[c] = int(rest % radix[c])
				rest /= radix[c]
				sum += float64(sizes[c]-counts[c]) * w[c]
			}
			for c := range nc {
				i := s*nc + c
				left := sizes[c] - counts[c]
				if left == 0 {
					lv.next[i] = -1
					continue
				}
				lv.tp[i] = float64(left) * w[c] / sum
				if t == l-1 {
					lv.next[i] = -1
					continue
				}
				nk := key + stride[c]
				idx, seen := index[nk]
				if !seen {
					idx = int32(len(nextKeys))
					index[nk] = idx
					nextKeys = append(nextKeys, nk)
				}
				lv.next[i] = idx
			}
		}
		total += len(nextKeys)
		if total > maxStates {
			return nil, 0, false
		}
		keys = nextKeys
	}
	return levels, total, true
}

// pairMoments fills mo's P_jk(c,c'): for every slot t and class c, one
// forward pass from the mass of "slot t drew class c" reads off the draw
// probabilities of every later slot k.
func pairMoments(mo *moments, levels []dpLevel) {
	l, nc := mo.l, mo.nc
	cur := make([]float64, 0)
	nxt := make([]float64, 0)
	for t := 0; t+1 < l; t++ {
		for c := range nc {
			cur = grow(cur, len(levels[t+1].prob))
			propagate(&levels[t], levels[t].prob, cur, nc, c)
			for k := t + 1; k < l; k++ {
				lv := &levels[k]
				for c2 := range nc {
					v := 0.0
					for s, p := range cur {
						if p != 0 {
							v += p * lv.tp[s*nc+c2]
						}
					}
					mo.setPair(t, k, c, c2, v)
				}
				if k+1 < l {
					nxt = grow(nxt, len(levels[k+1].prob))
					propagate(lv, cur, nxt, nc, -1)
					cur, nxt = nxt, cur
				}
			}
		}
	}
}

// propagate adds the mass of from (states of lv) to to (states of the next
// level), over every class or, when only ≥ 0, over that class alone.
func propagate(lv *dpLevel, from, to []float64, nc, only int) {
	for s, p := range from {
		if p == 0 {
			continue
		}
		for c := range nc {
			if only >= 0 && c != only {
				continue
			}
			if n := lv.next[s*nc+c]; n >= 0 {
				to[n] += p * lv.tp[s*nc+c]
			}
		}
	}
}

// grow returns s resized to n zeros, reusing its storage.
func grow(s []float64, n int) []float64 {
	s = resize(s, n)
	clear(s)
	return s
}

// sampledMoments estimates the moments of the weighted component by Monte
// Carlo over n slates drawn from rng. stderr is the largest standard error
// sqrt(p(1−p)/n) over the estimated probabilities.
func sampledMoments(d *Dist, n int, rng *rand.PCG) *moments {
	l, nc := d.l, len(d.w)
	mo := newMoments(l, nc)
	mo.exact = false
	s := make([]int32, l)
	cls := make([]int, l)
	p2 := make([]float64, len(mo.p2))
	for range n {
		d.sampleWeighted(rng, s)
		for j, a := range s {
			cls[j] = d.class(a)
			mo.p1[j*nc+cls[j]]++
		}
		for j := range l {
			for k := range l {
				if j != k {
					p2[(j*l+k)*nc*nc+cls[j]*nc+cls[k]]++
				}
			}
		}
	}
	inv := 1 / float64(n)
	worst := 0.0
	for i := range mo.p1 {
		mo.p1[i] *= inv
		worst = max(worst, mo.p1[i]*(1-mo.p1[i]))
	}
	for i := range p2 {
		mo.p2[i] = p2[i] * inv
		worst = max(worst, mo.p2[i]*(1-mo.p2[i]))
	}
	mo.stderr = math.Sqrt(worst * inv)
	return mo
}
