package impute

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"
)

// defaultCutoff is the relative eigenvalue cut-off of Γ†: eigenvalues at or
// below defaultCutoff × the largest eigenvalue of Γ count as zero. For p_2
// with m = 100, ℓ = 10 the smallest true eigenvalue is 9e-7 of the largest,
// so a cut-off of 1e-6 or more would drop a real direction.
const defaultCutoff = 1e-10

// defaultMaxStates bounds the exact dynamic programme behind Γ; a shape that
// needs more states is estimated by Monte Carlo instead.
const defaultMaxStates = 1 << 18

// defaultMCSamples is the number of slates of the Monte Carlo fallback.
const defaultMCSamples = 1 << 20

// GammaOptions tune how Γ is computed. The zero value gives the defaults.
type GammaOptions struct {
	cutoff    float64 // relative eigenvalue cut-off; 0 means defaultCutoff
	maxStates int     // states of the exact programme; 0 means defaultMaxStates
	mcSamples int     // slates of the Monte Carlo fallback; 0 means defaultMCSamples
	Seed      uint64  // seed of the Monte Carlo fallback
	// pl tunes Plackett–Luce's Γ (exact programme's budget, quadrature's
	// tolerance).
	pl plOptions
}

func (o GammaOptions) withDefaults() GammaOptions {
	if o.cutoff == 0 {
		o.cutoff = defaultCutoff
	}
	if o.maxStates == 0 {
		o.maxStates = defaultMaxStates
	}
	if o.mcSamples == 0 {
		o.mcSamples = defaultMCSamples
	}
	return o
}

// Gamma is Γ_μ,x = E_μ[1_s 1_sᵀ | x] for one query shape, with its
// pseudoinverse Γ†, never stored as an ℓm × ℓm matrix. It is immutable and
// safe for concurrent use.
//
// Γ commutes with permutations of the candidates inside a weight class, so
// R^{ℓm} splits into invariant subspaces: for every class c the vectors that
// sum to zero over the class (R^ℓ ⊗ 1_c^⊥), on which Γ acts as the ℓ × ℓ
// matrix M_c = diag_j(P_j(c)/n_c) − [P_jk(c,c)/(n_c(n_c−1))]_{j≠k}, and the
// class means (dimension ℓ·C), on which it acts as the ℓC × ℓC matrix G of
// the orthonormal basis 1_{j,c}/√n_c. Hence
//
//	Γ† = ⊕_c M_c† ⊗ (I − J/n_c)  ⊕  U G† Uᵀ,
//
// applying Γ† costs O(ℓ²m) and 1_{s'}ᵀ Γ† 1_s costs O(ℓ²). For the uniform
// policy (one class) the package uses the paper's closed form instead:
// O(ℓm) to apply and O(ℓ²) for the slate form.
type Gamma struct {
	d       *Dist
	m, l    int
	nc      int
	size    []int
	invSqrt []float64 // 1/√n_c
	mo      *moments
	closed  bool // uniform: use the closed form

	mBlk, mPinv [][]float64 // per class, ℓ×ℓ row-major; nil when n_c < 2
	gBlk, gPinv []float64   // ℓC × ℓC row-major, index (j, c) → j·C + c

	spec Spectrum

	// The fast path (fastgamma.go): G† through a Cholesky factorisation
	// on G's range, nil on the eigendecomposition path.
	fast     *rangeSolver
	fastInfo fastInfo
	// Null-space bases of the blocks as Γ† treats them: per class (ℓ-vectors)
	// and of G (ℓC-vectors), for Coverage.
	nullM [][][]float64
	nullG [][]float64

	// released: a summary left in the cache once every context of this
	// content released Γ (GammaCache.Release): shape, moments' accuracy,
	// solver, rank and bound, the spectrum if it was computed (else opt
	// rebuilds Γ to compute it); Γ† can no longer be applied.
	released bool
	opt      *GammaOptions
	specDone atomic.Bool // the fast path's spectrum is computed
}

// Spectrum describes Γ's conditioning: what the pseudoinverse kept.
type Spectrum struct {
	Rank       int     // eigenvalues above the cut-off, with multiplicity
	Max        float64 // largest eigenvalue of Γ
	MinKept    float64 // smallest eigenvalue above the cut-off
	MaxDropped float64 // largest eigenvalue at or below the cut-off (≈ 0 when Γ is exactly singular)
	cutoff     float64 // absolute cut-off: relative cut-off × Max
}

// Condition returns Max/MinKept, the condition number of Γ on its range.
func (s Spectrum) Condition() float64 { return s.Max / s.MinKept }

// NewGamma computes Γ and Γ† for the distribution d: exactly for uniform
// (closed form) and for p_α and its mixtures by a dynamic programme over
// per-class counts; by Monte Carlo (see Exact, StdErr) only when the
// programme would need more than opt.MaxStates states.
func NewGamma(d *Dist, opt GammaOptions) (*Gamma, error) {
	opt = opt.withDefaults()
	if !(opt.cutoff > 0 && opt.cutoff < 1) {
		return nil, fmt.Errorf("impute: eigenvalue cut-off %v outside (0, 1)", opt.cutoff)
	}
	mo, err := gammaMoments(d, opt)
	if err != nil {
		return nil, err
	}
	return newGammaFromMoments(d, mo, opt.cutoff, !d.weighted)
}

// gammaMoments computes the class-level moments of d (opt with defaults).
func gammaMoments(d *Dist, opt GammaOptions) (*moments, error) {
	sizes := d.classSizes()
	var mo *moments
	if !d.weighted {
		mo = uniformMoments(sizes, d.l)
	} else {
		var wm *moments
		switch {
		case d.sprob != nil:
			wm = slateMoments(d)
		case d.lg.base == basePL:
			var err error
			if wm, err = tieredPLMoments(sizes, d.w, d.tier, d.l, opt.pl); err != nil {
				return nil, err
			}
		default:
			var ok bool
			wm, ok = weightedMoments(sizes, d.w, d.l, opt.maxStates)
			if !ok {
				rng := rand.NewPCG(opt.Seed, uint64(d.m)<<32|uint64(d.l))
				wm = sampledMoments(d, opt.mcSamples, rng)
			}
		}
		mo = wm
		if eps := d.lg.eps; eps > 0 {
			mo = mixMoments(wm, uniformMoments(sizes, d.l), eps)
		}
	}
	return mo, nil
}

// newGammaFromMoments builds Γ's blocks from the class-level moments and
// their pseudoinverses. closed selects the uniform policy's closed form for
// Γ† (the blocks still give MulVec and the spectrum).
func newGammaFromMoments(d *Dist, mo *moments, cutoff float64, closed bool) (*Gamma, error) {
	g := &Gamma{d: d, m: d.m, l: d.l, nc: len(d.w), size: d.classSizes(), mo: mo, closed: closed}
	l, nc := g.l, g.nc
	g.invSqrt = make([]float64, nc)
	for c, n := range g.size {
		g.invSqrt[c] = 1 / math.Sqrt(float64(n))
	}
	g.mBlk = make([][]float64, nc)
	for c, n := range g.size {
		if n >= 2 {
			g.mBlk[c] = g.classBlock(c, n)
		}
	}
	g.gBlk = g.meanBlock()

	// Eigendecompose every block; the cut-off is relative to the largest
	// eigenvalue of Γ as a whole, i.e. over all blocks.
	var blocks []eigenBlock
	for c, b := range g.mBlk {
		if b == nil {
			continue
		}
		bl, err := g.decompose(b, l, g.size[c]-1)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, bl)
	}
	gb, err := g.decompose(g.gBlk, l*nc, 1)
	if err != nil {
		return nil, err
	}
	blocks = append(blocks, gb)
	for _, b := range blocks {
		for _, v := range b.vals {
			g.spec.Max = max(g.spec.Max, v)
		}
	}
	g.spec.cutoff = cutoff * g.spec.Max
	g.spec.MinKept = math.Inf(1)
	g.mPinv = make([][]float64, nc)
	g.nullM = make([][][]float64, nc)
	bi := 0
	for c, b := range g.mBlk {
		if b == nil {
			continue
		}
		g.mPinv[c], g.nullM[c] = g.pinv(blocks[bi], l)
		bi++
	}
	g.gPinv, g.nullG = g.pinv(blocks[bi], l*nc)
	return g, nil
}

// classBlock returns M_c, the ℓ × ℓ block of class c (n members, n ≥ 2).
func (g *Gamma) classBlock(c, n int) []float64 {
	l, nc, mo := g.l, g.nc, g.mo
	b := make([]float64, l*l)
	for j := range l {
		b[j*l+j] = mo.p1[j*nc+c] / float64(n)
		for k := range l {
			if k != j {
				b[j*l+k] = -mo.pair(j, k, c, c) / (float64(n) * float64(n-1))
			}
		}
	}
	return b
}

// meanBlock returns G, the ℓC × ℓC block of the class means.
func (g *Gamma) meanBlock() []float64 {
	l, nc, mo := g.l, g.nc, g.mo
	lc := l * nc
	gb := make([]float64, lc*lc)
	for j := range l {
		for c := range nc {
			row := (j*nc + c) * lc
			gb[row+j*nc+c] = mo.p1[j*nc+c] / float64(g.size[c])
			for k := range l {
				if k == j {
					continue
				}
				src := mo.p2[((j*l+k)*nc+c)*nc : ((j*l+k)*nc+c+1)*nc] // mo.pair(j, k, c, ·)
				dst, is := gb[row+k*nc:row+k*nc+nc], g.invSqrt[c]
				for c2, v := range src {
					dst[c2] = v * is * g.invSqrt[c2]
				}
			}
		}
	}
	return gb
}

// eigenBlock is one block's eigendecomposition; mult is how many times the
// block occurs in Γ (n_c − 1 for M_c, 1 for G).
type eigenBlock struct {
	vals []float64
	vecs *mat.Dense
	mult int
}

// eigenFlush is the magnitude, relative to a block's largest entry, below
// which decompose treats an entry as 0. gonum's symmetric eigensolver
// returns garbage (eigenvalues of ±1e122 for a Γ whose largest is 3) on
// blocks holding entries below its scaling threshold (~3e-123, near
// sqrt(safmin)/ε²) beside entries of order 1, as a Plackett–Luce logger
// whose scores lie hundreds of τ apart gives. Dropping them moves every
// eigenvalue by at most n·1e-100 of the largest (Weyl), far below both the
// rounding of the decomposition and the cut-off.
const eigenFlush = 1e-100

// decompose eigendecomposes the symmetric n × n block a (not modified),
// with entries below eigenFlush of its largest set to 0.
func (g *Gamma) decompose(a []float64, n, mult int) (eigenBlock, error) {
	f := append([]float64(nil), a...)
	big := 0.0
	for _, v := range f {
		big = max(big, math.Abs(v))
	}
	for i, v := range f {
		if math.Abs(v) < eigenFlush*big {
			f[i] = 0
		}
	}
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, f), true) {
		return eigenBlock{}, fmt.Errorf("impute: eigendecomposition of Γ failed (m=%d, ℓ=%d)", g.m, g.l)
	}
	b := eigenBlock{vals: es.Values(nil), vecs: &mat.Dense{}, mult: mult}
	es.VectorsTo(b.vecs)
	return b, nil
}

// pinv returns the n × n pseudoinverse of block b, dropping eigenvalues at
// or below g.spec.Cutoff, and the dropped eigenvectors; it records what it
// kept and dropped in g.spec.
func (g *Gamma) pinv(b eigenBlock, n int) ([]float64, [][]float64) {
	out := make([]float64, n*n)
	var dropped [][]float64
	for i, v := range b.vals {
		if v <= g.spec.cutoff {
			g.spec.MaxDropped = max(g.spec.MaxDropped, v)
			dropped = append(dropped, mat.Col(nil, i, b.vecs))
			continue
		}
		g.spec.Rank += b.mult
		g.spec.MinKept = min(g.spec.MinKept, v)
		inv := 1 / v
		for r := range n {
			x := b.vecs.At(r, i) * inv
			for s := range n {
				out[r*n+s] += x * b.vecs.At(s, i)
			}
		}
	}
	return out, dropped
}

// Dist returns the slate distribution Γ belongs to.
func (g *Gamma) Dist() *Dist { return g.d }

// M returns the number of candidates.
func (g *Gamma) M() int { return g.m }

// L returns the number of slots.
func (g *Gamma) L() int { return g.l }

// Spectrum returns the eigenvalue summary of Γ. On the fast path (see
// fastgamma.go) it is computed on the first call, by eigendecomposition.
func (g *Gamma) Spectrum() Spectrum {
	if r := g.reported(); r != g {
		return r.Spectrum()
	}
	switch {
	case g.released:
		g.fastInfo.once.Do(g.rebuiltSpectrum)
	case g.fast != nil:
		g.fastInfo.once.Do(g.fastSpectrum)
		g.specDone.Store(true)
	}
	return g.spec
}

// Exact reports whether Γ is exact (false: estimated by Monte Carlo).
func (g *Gamma) Exact() bool { return g.mo.exact }

// StdErr returns the largest standard error of the Monte Carlo estimates of
// Γ's class-level probabilities (0 when exact).
func (g *Gamma) StdErr() float64 { return g.mo.stderr }

// at returns the entry Γ(j,a; k,b) = P(s_j = a, s_k = b) (j = k: P(s_j = a)·1{a = b}).
func (g *Gamma) at(j, a, k, b int) float64 {
	ca, cb := g.d.class(int32(a)), g.d.class(int32(b))
	if j == k {
		if a != b {
			return 0
		}
		return g.mo.p1[j*g.nc+ca] / float64(g.size[ca])
	}
	if a == b {
		return 0
	}
	na, nb := float64(g.size[ca]), float64(g.size[cb])
	if ca == cb {
		return g.mo.pair(j, k, ca, cb) / (na * (na - 1))
	}
	return g.mo.pair(j, k, ca, cb) / (na * nb)
}

// marginal returns q_μ(j, a) = P(s_j = a).
func (g *Gamma) marginal(j, a int) float64 {
	c := g.d.class(int32(a))
	return g.mo.p1[j*g.nc+c] / float64(g.size[c])
}

// Marginals returns q_μ, the ℓm vector of P(s_j = a), in dst (allocated
// when too short).
func (g *Gamma) Marginals(dst []float64) []float64 {
	g.mustLive()
	dst = resize(dst, g.l*g.m)
	for j := range g.l {
		for c := range g.nc {
			p := g.mo.p1[j*g.nc+c] / float64(g.size[c])
			for a := g.d.start[c]; a < g.d.start[c+1]; a++ {
				dst[j*g.m+a] = p
			}
		}
	}
	return dst
}

// resize returns s resized to n, reusing its array when large enough (the
// contents are not cleared).
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// PinvMulVec sets dst = Γ† v (both of length ℓm; dst must not alias v).
func (g *Gamma) PinvMulVec(dst, v []float64) {
	g.check(dst, v)
	if g.closed {
		g.closedPinv(dst, v)
		return
	}
	if g.fast != nil {
		g.fastPinv(dst, v)
		return
	}
	g.applyBlocks(dst, v, g.mPinv, g.gPinv)
}

// mulVec sets dst = Γ v (both of length ℓm; dst must not alias v).
func (g *Gamma) mulVec(dst, v []float64) {
	g.check(dst, v)
	g.applyBlocks(dst, v, g.mBlk, g.gBlk)
}

func (g *Gamma) check(dst, v []float64) {
	g.mustLive()
	if len(dst) != g.l*g.m || len(v) != g.l*g.m {
		panic(fmt.Sprintf("impute: Γ of ℓm = %d applied to vectors of length %d, %d", g.l*g.m, len(v), len(dst)))
	}
}

// applyBlocks applies ⊕_c B_c ⊗ (I − J/n_c) ⊕ U H Uᵀ, for Γ (B = M, H = G)
// or Γ† (their pseudoinverses).
func (g *Gamma) applyBlocks(dst, v []float64, mb [][]float64, h []float64) {
	lc := g.l * g.nc
	scratch := make([]float64, 2*lc+2*g.l)
	y, t := scratch[:lc], scratch[lc:2*lc]
	g.classPart(dst, v, mb, y, scratch[2*lc:])
	for r := range lc {
		row := h[r*lc : r*lc+lc]
		s := 0.0
		for i, x := range y {
			s += row[i] * x
		}
		t[r] = s
	}
	g.meanPart(dst, t)
}

// classPart sets dst to ⊕_c B_c ⊗ (I − J/n_c) applied to v and y to v's
// class-mean coordinates Uᵀv (index j·C + c). sc has 2ℓ values.
func (g *Gamma) classPart(dst, v []float64, mb [][]float64, y, sc []float64) {
	m, l, nc := g.m, g.l, g.nc
	mean, z := sc[:l], sc[l:2*l]
	for c := range nc {
		lo, hi := g.d.start[c], g.d.start[c+1]
		n := float64(hi - lo)
		for j := range l {
			s := 0.0
			for _, x := range v[j*m+lo : j*m+hi] {
				s += x
			}
			mean[j] = s / n
			y[j*nc+c] = s * g.invSqrt[c]
		}
		b := mb[c]
		if b == nil {
			for j := range l {
				clear(dst[j*m+lo : j*m+hi])
			}
			continue
		}
		for a := lo; a < hi; a++ {
			for k := range l {
				z[k] = v[k*m+a] - mean[k]
			}
			for j := range l {
				row := b[j*l : j*l+l]
				s := 0.0
				for k, x := range z {
					s += row[k] * x
				}
				dst[j*m+a] = s
			}
		}
	}
}

// meanPart adds U t to dst for class-mean coordinates t.
func (g *Gamma) meanPart(dst, t []float64) {
	m := g.m
	for j := range g.l {
		for c := range g.nc {
			add := t[j*g.nc+c] * g.invSqrt[c]
			for a := g.d.start[c]; a < g.d.start[c+1]; a++ {
				dst[j*m+a] += add
			}
		}
	}
}

// closedPinv is the paper's closed form of Γ† for the uniform policy
// (Appendix, "Uniform logging distribution over rankings"), applied in
// O(ℓm) through the total, slot sums and candidate sums of v.
func (g *Gamma) closedPinv(dst, v []float64) {
	m, l := g.m, g.l
	fm, fl := float64(m), float64(l)
	total := 0.0
	slot := make([]float64, l)
	cand := make([]float64, m)
	for j := range l {
		s := 0.0
		for a, x := range v[j*m : j*m+m] {
			s += x
			cand[a] += x
		}
		slot[j] = s
		total += s
	}
	var c0, cs, ca float64 // coefficients of 11ᵀ, Σ_j 1_j1_jᵀ, Σ_a 1_a1_aᵀ
	if l < m {
		c0 = 1/(fl*fl) - (fm-1)/(fm*(fm-fl))
		cs = -(fm - 1) / fm
		ca = (fm - 1) / (fm - fl)
	} else {
		c0 = 1 / fm
		cs = -(fm - 1) / fm
		ca = -(fm - 1) / fm
	}
	for j := range l {
		base := c0*total + cs*slot[j]
		for a := range m {
			dst[j*m+a] = base + (fm-1)*v[j*m+a] + ca*cand[a]
		}
	}
}

// SlateForm returns 1_{s1}ᵀ Γ† 1_{s2} for two slates of L() distinct
// candidates: the PI weight of a logged slate s2 for a deterministic target
// slate s1; with s1 = s2 = s* it is q_πᵀΓ†q_π of that target (the
// per-context term of σ² in the deviation bound; ρ needs the range of
// 1_sᵀΓ†q_π over slates, which SlateSolver.Exact gives). O(ℓ²).
func (g *Gamma) SlateForm(s1, s2 []int32) float64 {
	g.mustLive()
	if len(s1) != g.l || len(s2) != g.l {
		panic(fmt.Sprintf("impute: SlateForm of slates of length %d, %d; Γ has ℓ = %d", len(s1), len(s2), g.l))
	}
	if g.closed {
		match, overlap := 0, 0
		for j, a := range s1 {
			if s2[j] == a {
				match++
			}
			for _, b := range s2 {
				if a == b {
					overlap++
					break
				}
			}
		}
		fm, fl := float64(g.m), float64(g.l)
		if g.l < g.m {
			return 1 - fl*(fm-1)/(fm-fl) + (fm-1)*float64(match) + (fm-1)/(fm-fl)*float64(overlap)
		}
		return (fm-1)*float64(match) - fm + 2
	}
	if g.fast != nil {
		return g.fastSlateForm(s1, s2)
	}
	l, nc := g.l, g.nc
	lc := l * nc
	sum := 0.0
	for j, a := range s1 {
		ca := g.d.class(a)
		row := g.gPinv[(j*nc+ca)*lc:]
		for k, b := range s2 {
			cb := g.d.class(b)
			sum += row[k*nc+cb] * g.invSqrt[ca] * g.invSqrt[cb]
			if ca == cb && g.mPinv[ca] != nil {
				d := -1 / float64(g.size[ca])
				if a == b {
					d++
				}
				sum += g.mPinv[ca][j*l+k] * d
			}
		}
	}
	return sum
}

// SlateSum returns Σ_j w(j, s_j) = wᵀ1_s for an ℓm vector w, e.g. the PI
// weight 1_{s*}ᵀ Γ† 1_s of a logged slate s once w = Γ† 1_{s*} is computed
// for the query's target: O(ℓ) per logged slate.
func SlateSum(w []float64, m int, s []int32) float64 {
	sum := 0.0
	for j, a := range s {
		sum += w[j*m+int(a)]
	}
	return sum
}

// Indicator sets dst to 1_s, the ℓm indicator of slate s over m candidates
// (dst is allocated when too short).
func Indicator(dst []float64, m int, s []int32) []float64 {
	dst = resize(dst, len(s)*m)
	clear(dst)
	for j, a := range s {
		dst[j*m+int(a)] = 1
	}
	return dst
}

// GammaCache computes Γ once per distinct logging distribution: for one
// named policy (uniform, pa) Γ depends on a query only through its shape
// (m candidates, ℓ slots); for per-context policies (a policy file, or
// Plackett–Luce on a rank source's scores) once per distinct content
// (Dist.key), so a million contexts sharing a few policies cost a few
// pseudoinverses. A per-context cache drops a Γ once every context of its
// content has released it (Release), keeping a summary for reports: a
// log with a policy per impression never holds every Γ at once. It is
// safe for concurrent use; concurrent requests for one entry compute it
// once.
type GammaCache struct {
	lg    Logging
	opt   GammaOptions
	dists []*Dist // per context, or nil: one policy for every query
	mu    sync.Mutex
	byK   map[[2]int]*gammaEntry
	byKey map[string]*gammaEntry
	// ctxEnt is every context's entry of a per-context cache, built on
	// first use (indexContexts), with each entry's number of contexts.
	ctxOnce sync.Once
	ctxEnt  []*gammaEntry
}

type gammaEntry struct {
	mu    sync.Mutex // held while g is computed
	g     *Gamma
	err   error
	ready bool // set under GammaCache.mu once g and err are final
	// uses is the number of contexts of this content (per-context
	// caches), left how many of them have not released g since it was
	// computed; g is released (a summary) when left reaches 0.
	uses, left int32
}

// NewGammaCache returns an empty cache for lg.
func NewGammaCache(lg Logging, opt GammaOptions) *GammaCache {
	return &GammaCache{lg: lg, opt: opt, byK: make(map[[2]int]*gammaEntry), byKey: make(map[string]*gammaEntry)}
}

// NewContextGammas returns an empty cache for per-context distributions:
// context q draws its slates from dists[q].
func NewContextGammas(dists []*Dist, opt GammaOptions) *GammaCache {
	gc := NewGammaCache(Logging{}, opt)
	gc.dists = dists
	return gc
}

// Logging returns the cache's policy (uniform for per-context caches).
func (gc *GammaCache) Logging() Logging { return gc.lg }

// PerContext reports whether every context has its own distribution.
func (gc *GammaCache) PerContext() bool { return gc.dists != nil }

// Dist returns context q's distribution of a per-context cache, nil
// otherwise.
func (gc *GammaCache) Dist(q int) *Dist {
	if gc.dists == nil {
		return nil
	}
	return gc.dists[q]
}

// Query returns Γ of context q, which has m candidates and l slots. On a
// per-context cache, Γ released by every context of its content is
// computed again (the same bits).
func (gc *GammaCache) Query(q, m, l int) (*Gamma, error) {
	if gc.dists == nil {
		return gc.get(m, l)
	}
	d := gc.dists[q]
	if d.m != m || d.l != l {
		return nil, fmt.Errorf("impute: context %d has a policy over %d slots of %d candidates, not %d of %d", q, d.l, d.m, l, m)
	}
	gc.ctxOnce.Do(gc.indexContexts)
	return gc.compute(gc.ctxEnt[q], true, func() (*Dist, error) { return d, nil })
}

// get returns Γ for m candidates and l ≤ m slots of the cache's policy.
func (gc *GammaCache) get(m, l int) (*Gamma, error) {
	key := [2]int{m, l}
	gc.mu.Lock()
	e := gc.byK[key]
	if e == nil {
		e = &gammaEntry{}
		gc.byK[key] = e
	}
	gc.mu.Unlock()
	return gc.compute(e, false, func() (*Dist, error) { return gc.lg.Dist(m, l) })
}

// compute returns e's Γ, computing it when not yet computed or released.
// Γ of a per-context distribution (byDist, every context of a per-context
// cache) takes the fast path (newFastGamma); Γ of a named policy's shape
// keeps the eigendecomposition, its outputs unchanged.
func (gc *GammaCache) compute(e *gammaEntry, byDist bool, dist func() (*Dist, error)) (*Gamma, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	gc.mu.Lock()
	old, err, ready := e.g, e.err, e.ready
	gc.mu.Unlock()
	if ready && (old == nil || !old.released) {
		return old, err
	}
	var g *Gamma
	d, err := dist()
	switch {
	case err != nil:
	case byDist:
		g, err = newFastGamma(d, gc.opt)
	default:
		g, err = NewGamma(d, gc.opt)
	}
	if old != nil && g != nil && g.fast != nil {
		// The bound of Γ† as applied so far, over every computation.
		g.fastInfo.noteBound(old.SolveBound())
	}
	gc.mu.Lock()
	e.g, e.err, e.ready, e.left = g, err, true, e.uses
	gc.mu.Unlock()
	return g, err
}

// All returns every Γ computed so far, ordered by (m, ℓ) and then by
// content, for diagnostics (a released Γ as its summary, see Release).
func (gc *GammaCache) All() []*Gamma {
	type keyed struct {
		g   *Gamma
		key string
	}
	gc.mu.Lock()
	all := make([]keyed, 0, len(gc.byK)+len(gc.byKey))
	for _, e := range gc.byK {
		if e.ready && e.g != nil {
			all = append(all, keyed{g: e.g})
		}
	}
	for k, e := range gc.byKey {
		if e.ready && e.g != nil {
			all = append(all, keyed{e.g, k})
		}
	}
	gc.mu.Unlock()
	slices.SortFunc(all, func(a, b keyed) int {
		if c := cmp.Compare(a.g.m, b.g.m); c != 0 {
			return c
		}
		if c := cmp.Compare(a.g.l, b.g.l); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	out := make([]*Gamma, len(all))
	for i, k := range all {
		out[i] = k.g
	}
	return out
}

// Count returns how many distinct Γ were computed so far: len(All()),
// without sorting them.
func (gc *GammaCache) Count() int {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	n := 0
	for _, e := range gc.byK {
		if e.ready && e.g != nil {
			n++
		}
	}
	for _, e := range gc.byKey {
		if e.ready && e.g != nil {
			n++
		}
	}
	return n
}
