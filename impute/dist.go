package impute

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
)

// stackSlots is the slate length up to which sampling keeps its scratch on
// the stack (no allocation in simulation loops).
const stackSlots = 16

// uintN returns a uniform integer in [0, n) from src by Lemire's
// multiply-and-reject method (unbiased). Calling the concrete *rand.PCG
// keeps the hot loop free of interface calls.
func uintN(src *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

// float01 returns a uniform float64 in [0, 1) with 53 random bits.
func float01(src *rand.PCG) float64 {
	return float64(src.Uint64()>>11) / (1 << 53)
}

// Dist is a logging policy's distribution μ(·|x) over the slates of one
// query shape: m ranked candidates (index i has rank i+1) and ℓ ≤ m slots.
// It is immutable and safe for concurrent use.
//
// p_α's weight depends on the rank only through ⌊log2 rank⌋, so the
// candidates fall into weight classes: class c holds the candidates of ranks
// 2^c .. 2^(c+1)−1 (⌊log2 m⌋+1 classes). A uniform policy has one class.
// Every quantity of Γ is invariant under permutations inside a class, which
// is what makes Γ† cheap (see Gamma).
type Dist struct {
	lg       Logging
	m, l     int
	start    []int     // class c holds candidates start[c] .. start[c+1]-1
	w        []float64 // weight of class c (the p_α or Plackett–Luce component)
	weighted bool      // the p_α, Plackett–Luce or slates component is not uniform
	uprob    float64   // μ(s) of every slate under the uniform component
	// cls is the class of every candidate when classes are not p_α's rank
	// classes (Plackett–Luce: runs of equal scores; slates: one class per
	// candidate); nil for p_α and uniform.
	cls []int32
	// An explicit slate distribution: slate k is slates[k·ℓ:(k+1)·ℓ] with
	// probability sprob[k] (cumulative scum), found by index.
	slates []int32
	sprob  []float64
	scum   []float64
	index  map[string]int
	scores []float64 // Plackett–Luce: the candidates' scores, as given
	// tier lists the first class of every Plackett–Luce tier (see
	// plClasses) when there are several; nil otherwise.
	tier []int
}

// activeTier returns the classes lo .. hi−1 of the first tier that still
// has candidates (rem[c] left in class c): the only ones a slot can draw.
func activeTier[T int | int32](tier []int, rem []T) (lo, hi int) {
	if tier == nil {
		return 0, len(rem)
	}
	for t, lo := range tier {
		hi := len(rem)
		if t+1 < len(tier) {
			hi = tier[t+1]
		}
		for _, r := range rem[lo:hi] {
			if r > 0 {
				return lo, hi
			}
		}
	}
	return 0, len(rem)
}

// Dist returns the policy's distribution over slates of l distinct
// candidates out of m (1 ≤ l ≤ m).
// Plackett–Luce and slate policies need per-context data: use ScoredDist
// and SlateDist.
func (lg Logging) Dist(m, l int) (*Dist, error) {
	switch {
	case lg.base == basePL && lg.eps < 1:
		return nil, fmt.Errorf("impute: logging %s draws by scores: it needs each context's scores", lg)
	case lg.base == baseSlates && lg.eps < 1:
		return nil, fmt.Errorf("impute: logging %s needs each context's slates", lg)
	}
	return lg.newDist(m, l)
}

func (lg Logging) newDist(m, l int) (*Dist, error) {
	if m < 1 || l < 1 || l > m {
		return nil, fmt.Errorf("impute: slates of %d slots from %d candidates: need 1 ≤ slots ≤ candidates", l, m)
	}
	d := &Dist{lg: lg, m: m, l: l, uprob: 1}
	for j := 0; j < l; j++ {
		d.uprob /= float64(m - j)
	}
	if lg.base == basePA && lg.NeedsRanks() && m > 1 {
		nc := bits.Len(uint(m)) // ⌊log2 m⌋ + 1
		d.start = make([]int, nc+1)
		d.w = make([]float64, nc)
		for c := range nc {
			d.start[c] = 1<<c - 1
			d.w[c] = lg.weightOfClass(c)
		}
		d.start[nc] = m
		d.weighted = true
	} else {
		d.start = []int{0, m}
		d.w = []float64{1}
	}
	return d, nil
}

// Logging returns the policy.
func (d *Dist) Logging() Logging { return d.lg }

// classSizes returns the number of candidates of each weight class.
func (d *Dist) classSizes() []int {
	s := make([]int, len(d.w))
	for c := range s {
		s[c] = d.start[c+1] - d.start[c]
	}
	return s
}

// class returns the weight class of candidate a.
func (d *Dist) class(a int32) int {
	switch {
	case !d.weighted:
		return 0
	case d.cls != nil:
		return int(d.cls[a])
	}
	return bits.Len32(uint32(a)+1) - 1
}

// numSlates returns the number of slates, m!/(m−ℓ)!, as a float.
func (d *Dist) numSlates() float64 {
	n := 1.0
	for j := 0; j < d.l; j++ {
		n *= float64(d.m - j)
	}
	return n
}

// Sample draws a slate into s (len(s) must be L()) from src only: the
// result is a pure function of the generator's state, which is what makes
// simulations reproducible per query stream. It takes the PCG source itself
// (not a *rand.Rand) because the interface call of rand.Rand costs more than
// the rest of a uniform draw. It does not allocate for slates of up to 16
// slots.
func (d *Dist) Sample(src *rand.PCG, s []int32) {
	if len(s) != d.l {
		panic(fmt.Sprintf("impute: Sample into %d slots, distribution has %d", len(s), d.l))
	}
	if !d.weighted || (d.lg.eps > 0 && float01(src) < d.lg.eps) {
		d.sampleUniform(src, s)
		return
	}
	if d.sprob != nil {
		d.sampleSlate(src, s)
		return
	}
	d.sampleWeighted(src, s)
}

// sampleUniform draws an ordered sample without repetition: slot j takes the
// r-th unused candidate with r uniform in [0, m−j).
func (d *Dist) sampleUniform(rng *rand.PCG, s []int32) {
	var buf [stackSlots]int32
	sorted := buf[:]
	if d.l > stackSlots {
		sorted = make([]int32, d.l)
	}
	for j := range s {
		idx := int32(uintN(rng, uint64(d.m-j)))
		pos := 0
		for pos < j && sorted[pos] <= idx {
			idx++
			pos++
		}
		for i := j; i > pos; i-- {
			sorted[i] = sorted[i-1]
		}
		sorted[pos] = idx
		s[j] = idx
	}
}

// sampleWeighted draws slot by slot without replacement with probability
// proportional to the weights: first the class (weight × remaining count),
// then a uniform unused candidate of that class.
func (d *Dist) sampleWeighted(rng *rand.PCG, s []int32) {
	var buf [stackSlots]int32
	var remBuf [64]int32
	sorted := buf[:0]
	if d.l > stackSlots {
		sorted = make([]int32, 0, d.l)
	}
	nc := len(d.w)
	var rem []int32
	if nc <= len(remBuf) {
		rem = remBuf[:nc]
	} else {
		rem = make([]int32, nc)
	}
	for c := range rem {
		rem[c] = int32(d.start[c+1] - d.start[c])
	}
	for j := range s {
		lo, hi := activeTier(d.tier, rem)
		total := 0.0
		for c, r := range rem[lo:hi] {
			total += float64(r) * d.w[lo+c]
		}
		u := float01(rng) * total
		pick, last, acc := -1, -1, 0.0
		for c := lo; c < hi; c++ {
			r := rem[c]
			if r == 0 {
				continue
			}
			acc += float64(r) * d.w[c]
			last = c
			if u < acc {
				pick = c
				break
			}
		}
		if pick < 0 { // u rounded onto the total
			pick = last
		}
		first := int32(d.start[pick])
		idx := first + int32(uintN(rng, uint64(rem[pick])))
		pos := 0
		for pos < len(sorted) && sorted[pos] < first {
			pos++
		}
		for pos < len(sorted) && sorted[pos] <= idx {
			idx++
			pos++
		}
		sorted = insertAt(sorted, pos, idx)
		rem[pick]--
		s[j] = idx
	}
}

func insertAt(s []int32, pos int, v int32) []int32 {
	s = append(s, 0)
	for i := len(s) - 1; i > pos; i-- {
		s[i] = s[i-1]
	}
	s[pos] = v
	return s
}

// Prob returns μ(s|x), the probability that the policy logs slate s
// (candidate indices, slot 1 first): exact, in O(ℓ·(ℓ + classes)). It is 0
// for a slate of the wrong length, with a repeated or out-of-range candidate.
func (d *Dist) Prob(s []int32) float64 {
	if !d.valid(s) {
		return 0
	}
	if !d.weighted {
		return d.uprob
	}
	if d.sprob != nil {
		return (1-d.lg.eps)*d.slateProb(s) + d.lg.eps*d.uprob
	}
	var remBuf [64]int
	var rem []int
	if len(d.w) <= len(remBuf) {
		rem = remBuf[:len(d.w)]
	} else {
		rem = make([]int, len(d.w))
	}
	for c := range rem {
		rem[c] = d.start[c+1] - d.start[c]
	}
	p := 1.0
	for _, a := range s {
		lo, hi := activeTier(d.tier, rem)
		total := 0.0
		for c, r := range rem[lo:hi] {
			total += float64(r) * d.w[lo+c]
		}
		c := d.class(a)
		if c < lo || c >= hi {
			return d.lg.eps * d.uprob // a later tier before this one is exhausted
		}
		p *= d.w[c] / total
		rem[c]--
	}
	return (1-d.lg.eps)*p + d.lg.eps*d.uprob
}

func (d *Dist) valid(s []int32) bool {
	if len(s) != d.l {
		return false
	}
	for j, a := range s {
		if a < 0 || int(a) >= d.m {
			return false
		}
		for _, b := range s[:j] {
			if a == b {
				return false
			}
		}
	}
	return true
}

// EachSlate calls fn for every slate, in lexicographic order, with its
// probability. There are NumSlates() of them: use it on small shapes only
// (exact expectations in tests and references). fn must not keep s.
func (d *Dist) EachSlate(fn func(s []int32, p float64)) {
	s := make([]int32, d.l)
	used := make([]bool, d.m)
	var rec func(j int)
	rec = func(j int) {
		if j == d.l {
			fn(s, d.Prob(s))
			return
		}
		for a := range d.m {
			if used[a] {
				continue
			}
			used[a] = true
			s[j] = int32(a)
			rec(j + 1)
			used[a] = false
		}
	}
	rec(0)
}
