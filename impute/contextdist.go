package impute

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// ScoredDist returns a Plackett–Luce policy's distribution (lg is pl:τ or
// eps:E,pl:τ) over slates of l distinct candidates out of len(scores):
// candidate a is drawn with weight exp(scores[a]/τ), slot by slot without
// replacement. scores must be finite and in non-increasing order (a rank
// source's order), so that equal scores form contiguous weight classes.
func (lg Logging) ScoredDist(scores []float64, l int) (*Dist, error) {
	if lg.base != basePL {
		return nil, fmt.Errorf("impute: ScoredDist of logging %s", lg)
	}
	d, err := lg.newDist(len(scores), l)
	if err != nil {
		return nil, err
	}
	for a, s := range scores {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("impute: logging %s: score %v of candidate %d is not finite", lg, s, a+1)
		}
		if a > 0 && s > scores[a-1] {
			return nil, fmt.Errorf("impute: logging %s: scores not in non-increasing order at candidate %d", lg, a+1)
		}
	}
	d.scores = append([]float64(nil), scores...)
	d.start = d.start[:0]
	d.w = d.w[:0]
	d.cls = make([]int32, len(scores))
	d.plClasses(scores, lg.alpha)
	d.weighted = len(d.w) > 1 && lg.eps < 1
	if !d.weighted {
		// Every score equal: the uniform policy, one class.
		d.start, d.w, d.cls, d.tier = []int{0, len(scores)}, []float64{1}, nil, nil
	}
	return d, nil
}

// plClasses sets the weight classes (runs of equal scores) of a
// Plackett–Luce distribution over scores in non-increasing order, with
// weights exp((s − s_top)/τ) computed in log space relative to the best
// score of their tier, so that no weight overflows (the policy is
// invariant under a common shift of the scores).
//
// A tier starts at the best score and ends before the first class whose
// weight relative to the tier's best underflows to 0: a slot draws from a
// later tier only when every earlier tier is exhausted (the chance of
// anything else is below 1e-300). d.tier lists the first class of every
// tier when there are several; the weights of a later tier are relative
// to its own best score. A later tier that no slot reaches is never shown.
func (d *Dist) plClasses(scores []float64, tau float64) {
	top := scores[0]
	for a, s := range scores {
		if a == 0 || s != scores[a-1] {
			d.start = append(d.start, a)
			w := math.Exp((s - top) / tau)
			if w == 0 {
				if d.tier == nil {
					d.tier = []int{0}
				}
				d.tier = append(d.tier, len(d.w))
				top, w = s, 1
			}
			d.w = append(d.w, w)
		}
		d.cls[a] = int32(len(d.w) - 1)
	}
	d.start = append(d.start, len(scores))
}

// Scores returns the candidates' scores of a Plackett–Luce distribution
// (nil for other policies).
func (d *Dist) Scores() []float64 { return d.scores }

// SlateDist returns the explicit distribution (lg is slates or
// eps:E,slates) over the slates of l distinct candidates out of m that
// gives slate k, slates[k·l:(k+1)·l], probability probs[k]. The
// probabilities must be positive and sum to 1 within 1e-9; a slate may not
// be listed twice.
func (lg Logging) SlateDist(m, l int, slates []int32, probs []float64) (*Dist, error) {
	if lg.base != baseSlates {
		return nil, fmt.Errorf("impute: SlateDist of logging %s", lg)
	}
	d, err := lg.newDist(m, l)
	if err != nil {
		return nil, err
	}
	if len(probs) == 0 || len(slates) != len(probs)*l {
		return nil, fmt.Errorf("impute: %d slates of %d documents for %d probabilities", len(slates)/max(l, 1), l, len(probs))
	}
	d.start = make([]int, m+1)
	d.w = make([]float64, m)
	d.cls = make([]int32, m)
	for a := range m {
		d.start[a+1] = a + 1
		d.w[a] = 1
		d.cls[a] = int32(a)
	}
	d.weighted = lg.eps < 1
	d.slates = append([]int32(nil), slates...)
	d.sprob = append([]float64(nil), probs...)
	d.scum = make([]float64, len(probs))
	d.index = make(map[string]int, len(probs))
	total := 0.0
	for k, p := range probs {
		s := d.slates[k*l : (k+1)*l]
		if !d.valid(s) {
			return nil, fmt.Errorf("impute: slate %d is not %d distinct candidates of %d", k+1, l, m)
		}
		if !(p > 0 && p <= 1) {
			return nil, fmt.Errorf("impute: slate %d has probability %v, not in (0, 1]", k+1, p)
		}
		key := slateKey(s)
		if j, dup := d.index[key]; dup {
			return nil, fmt.Errorf("impute: slate %d repeats slate %d", k+1, j+1)
		}
		d.index[key] = k
		total += p
		d.scum[k] = total
	}
	if math.Abs(total-1) > 1e-9 {
		return nil, fmt.Errorf("impute: slate probabilities sum to %.12g, not 1", total)
	}
	if !d.weighted {
		// eps:1,slates is the uniform policy: one class, the closed form.
		d.start, d.w, d.cls = []int{0, m}, []float64{1}, nil
	}
	return d, nil
}

func slateKey(s []int32) string {
	b := make([]byte, 0, 4*len(s))
	for _, a := range s {
		b = binary.LittleEndian.AppendUint32(b, uint32(a))
	}
	return string(b)
}

// sampleSlate draws slate k with probability sprob[k].
func (d *Dist) sampleSlate(src *rand.PCG, s []int32) {
	u := float01(src) * d.scum[len(d.scum)-1]
	k := sort.SearchFloat64s(d.scum, u)
	if k < len(d.scum) && d.scum[k] == u {
		k++ // SearchFloat64s finds the first ≥ u; slate k covers [scum[k−1], scum[k])
	}
	k = min(k, len(d.scum)-1)
	copy(s, d.slates[k*d.l:(k+1)*d.l])
}

// slateProb returns the listed probability of slate s (0 when not listed).
func (d *Dist) slateProb(s []int32) float64 {
	var buf [4 * stackSlots]byte
	b := buf[:0]
	for _, a := range s {
		b = binary.LittleEndian.AppendUint32(b, uint32(a))
	}
	k, ok := d.index[string(b)]
	if !ok {
		return 0
	}
	return d.sprob[k]
}

// FullSupport reports whether every slate of l distinct candidates has a
// positive probability (false only for an explicit slate distribution
// without a uniform component).
func (d *Dist) FullSupport() bool { return d.sprob == nil || d.lg.eps > 0 }

// EachSupportSlate calls fn for every slate of positive probability when
// the support is not full (the listed slates); fn must not keep s. It
// does nothing when FullSupport.
func (d *Dist) EachSupportSlate(fn func(s []int32)) {
	if d.FullSupport() {
		return
	}
	for k := range d.sprob {
		fn(d.slates[k*d.l : (k+1)*d.l])
	}
}

// key returns the distribution's canonical content: two distributions with
// equal keys are equal, so they share Γ and Γ† (GammaCache.forDist).
func (d *Dist) key() string {
	b := []byte(d.lg.String())
	b = append(b, '|')
	b = strconv.AppendInt(b, int64(d.m), 10)
	b = append(b, '|')
	b = strconv.AppendInt(b, int64(d.l), 10)
	if d.cls == nil {
		return string(b) // uniform and p_α: the spelling and the shape
	}
	b = append(b, '|')
	if d.sprob != nil {
		for _, a := range d.slates {
			b = binary.LittleEndian.AppendUint32(b, uint32(a))
		}
		for _, p := range d.sprob {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(p))
		}
		return string(b)
	}
	for c, w := range d.w {
		b = binary.LittleEndian.AppendUint32(b, uint32(d.start[c+1]-d.start[c]))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(w))
	}
	if d.tier != nil {
		b = append(b, 't')
		for _, c := range d.tier {
			b = binary.LittleEndian.AppendUint32(b, uint32(c))
		}
	}
	return string(b)
}

// slateMoments are the exact moments of an explicit slate distribution,
// one class per candidate: Σ_k p_k over the listed slates.
func slateMoments(d *Dist) *moments {
	l, m := d.l, d.m
	mo := newMoments(l, m)
	for k, p := range d.sprob {
		s := d.slates[k*l : (k+1)*l]
		for j, a := range s {
			mo.p1[j*m+int(a)] += p
			for i, b := range s[j+1:] {
				kk := j + 1 + i
				mo.setPair(j, kk, int(a), int(b), mo.pair(j, kk, int(a), int(b))+p)
			}
		}
	}
	return mo
}

// Method returns how Γ's moments were computed when not exactly:
// "monte-carlo" or the Plackett–Luce approximation's name; "" when exact.
func (g *Gamma) Method() string {
	if g.mo.exact {
		return ""
	}
	if g.mo.method != "" {
		return g.mo.method
	}
	return "monte-carlo"
}

// ErrorBound returns a bound on the absolute error of every entry of Γ (0
// when exact; for Monte Carlo see StdErr).
func (g *Gamma) ErrorBound() float64 { return g.mo.bound }

// Approximation summarises the Γ a cache computed that are not exact: how
// many, how (methods, sorted, comma-separated), the largest bound on an
// entry's error and the largest Monte Carlo standard error.
type Approximation struct {
	N       int
	Methods string
	Bound   float64
	StdErr  float64
}

// Approximations returns what the cache's Γ approximated so far (N = 0
// when every Γ is exact).
func (gc *GammaCache) Approximations() Approximation {
	var a Approximation
	var methods []string
	for _, g := range gc.All() {
		if g.Exact() {
			continue
		}
		a.N++
		a.Bound, a.StdErr = max(a.Bound, g.ErrorBound()), max(a.StdErr, g.StdErr())
		if m := g.Method(); !slices.Contains(methods, m) {
			methods = append(methods, m)
		}
	}
	slices.Sort(methods)
	a.Methods = strings.Join(methods, ",")
	return a
}
