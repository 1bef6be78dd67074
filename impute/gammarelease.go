package impute

import (
	"fmt"
	"math"
)

// Release says that context q of a per-context cache is done with its Γ
// (from Query) for now: once every context of Γ's content has released
// it, the cache keeps only a summary (M, L, Dist, Exact, StdErr, Method,
// ErrorBound, SolveBound, Coverage's solver and rank, and Spectrum, known
// or recomputed on demand), so that a pass over a million contexts with a
// policy each holds the Γ of the contexts in flight only. A later Query
// computes Γ again, the same bits. Callers Query and Release each context
// once per pass; a no-op on a cache of one named policy.
func (gc *GammaCache) Release(q int) {
	if gc.dists == nil {
		return
	}
	gc.ctxOnce.Do(gc.indexContexts)
	e := gc.ctxEnt[q]
	gc.mu.Lock()
	defer gc.mu.Unlock()
	if !e.ready || e.g == nil || e.g.released {
		return
	}
	if e.left--; e.left > 0 {
		return
	}
	e.g = e.g.summary(&gc.opt)
}

// indexContexts gives every context of a per-context cache its entry,
// one per distinct content, counting its contexts.
func (gc *GammaCache) indexContexts() {
	ent := make([]*gammaEntry, len(gc.dists))
	gc.mu.Lock()
	defer gc.mu.Unlock()
	for q, d := range gc.dists {
		key := d.key()
		e := gc.byKey[key]
		if e == nil {
			e = &gammaEntry{}
			gc.byKey[key] = e
		}
		e.uses++
		ent[q] = e
	}
	gc.ctxEnt = ent
}

// releasedSolver marks a released Γ of the fast path (Gamma.fast is not
// nil there, so Coverage and SolveBound report the fast path); it is
// never applied.
var releasedSolver = new(rangeSolver)

// summary is the released form of g: what reports read, without the
// blocks, the moments and the factorisation (about 100 KB at m = 20,
// ℓ = 3).
func (g *Gamma) summary(opt *GammaOptions) *Gamma {
	if r := g.reported(); r != g {
		return r.summary(opt)
	}
	s := &Gamma{d: g.d, m: g.m, l: g.l, nc: g.nc, size: g.size, closed: g.closed, spec: g.spec, released: true, opt: opt,
		mo: &moments{l: g.mo.l, nc: g.mo.nc, exact: g.mo.exact, stderr: g.mo.stderr, states: g.mo.states, bound: g.mo.bound, method: g.mo.method}}
	known := true
	if g.fast != nil {
		s.fast = releasedSolver
		s.fastInfo.rank, s.fastInfo.cutoff, s.fastInfo.blockBound = g.fastInfo.rank, g.fastInfo.cutoff, g.fastInfo.blockBound
		s.fastInfo.maxBound.Store(g.fastInfo.maxBound.Load())
		known = g.specDone.Load()
	}
	if known {
		s.fastInfo.once.Do(func() {})
	}
	if !g.d.FullSupport() {
		r := g.StructuralRank()
		s.fastInfo.structOnce.Do(func() { s.fastInfo.structRank = r })
	}
	return s
}

// rebuiltSpectrum is Spectrum of a released Γ whose spectrum was not
// computed: Γ computed again, as the cache computed it.
func (g *Gamma) rebuiltSpectrum() {
	full, err := newFastGamma(g.d, *g.opt)
	if err != nil {
		g.spec = Spectrum{Max: math.NaN(), MinKept: math.NaN()}
		return
	}
	g.spec = full.Spectrum()
}

// mustLive panics on a released Γ, whose Γ† is gone.
func (g *Gamma) mustLive() {
	if g.released {
		panic(fmt.Sprintf("impute: Γ (m=%d, ℓ=%d) applied after every context released it (GammaCache.Release)", g.m, g.l))
	}
}
