package ope

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/parallel"
)

// Setup is one off-policy evaluation problem: the candidates of every query,
// the logging policy over them, the slate length and the target policy.
type Setup struct {
	Candidates *impute.Candidates
	Gammas     *impute.GammaCache // Γ per query shape of the logging policy
	Slots      int
	Target     *Target
	// Scorer, when not nil, scores slates of candidate indices with the
	// dataset's labels (eval.NewScorer over Candidates.Labels and
	// Candidates.Offsets): it gives the true value of a deterministic target
	// (semi-synthetic mode) and the rewards of simulated logs.
	Scorer *eval.Scorer
	// Threads bounds the goroutines of Prepare; 0 means all cores. Results
	// do not depend on it.
	Threads int
}

// Plan holds everything the estimators need per query, computed once from
// a Setup: the PI weight vector g_x = Γ_x† q_π(x) (so that the weight of a
// logged slate s is g_xᵀ1_s, O(ℓ) per sample), the terms of σ² and ρ, the
// target's slate probability under μ for IPS, the true value, and the
// coverage: how much of q_π(x) the log cannot see (Coverage).
type Plan struct {
	Setup
	queries []queryPlan

	targetOnce sync.Once
	targetX    []float32 // DM covariates of the target slates

	// Sigma2 is σ² = E_x[q_πᵀ Γ† q_π] with x uniform over the queries.
	Sigma2 float64
	// WeightLo and WeightHi are the exact extremes of the PI weight q_πᵀΓ†1_s
	// over all queries and all slates μ can log; ρ = max(|WeightLo|, |WeightHi|).
	WeightLo, WeightHi float64
	// IPSSigma2 is E_x[Σ_s π(s|x)²/μ(s|x)] = E_x[1/μ(s*|x)] for a
	// deterministic target (x uniform), IPSMax = max_x 1/μ(s*|x): IPS's σ²
	// and ρ. NaN for a stochastic target.
	IPSSigma2, IPSMax float64
	// TrueValue is V(π) = mean over queries of the target slate's metric
	// (deterministic target with a Scorer; NaN otherwise).
	TrueValue float64
}

type queryPlan struct {
	m, l   int
	dist   *impute.Dist
	g      []float64 // Γ† q_π, ℓ·m, index j·m + a
	sigma2 float64   // q_πᵀ Γ† q_π
	wlo    float64   // min_s g ᵀ1_s
	whi    float64   // max_s g ᵀ1_s
	star   []int32   // deterministic target slate
	invMu  float64   // 1/μ(s*|x)
	value  float64   // metric of s* (NaN without a Scorer)
	cov    queryCoverage
}

// Prepare computes the plan of a setup. Every logging policy of impute but
// an explicit slate distribution gives every slate of ℓ_x distinct
// candidates a positive probability, so ρ's supremum over loggable slates
// is over all of them: max_s |gᵀ1_s| is the larger of max_s gᵀ1_s and
// −min_s gᵀ1_s, two rectangular assignment problems (slots to distinct
// candidates) solved exactly by impute.SlateSolver.Exact; over an explicit
// distribution's listed slates it is a maximum over that list. ρ is
// therefore exact, not a bound.
func Prepare(ctx context.Context, s Setup) (*Plan, error) {
	plans, _, err := PrepareTargets(ctx, s, []*Target{s.Target})
	if err != nil {
		return nil, err
	}
	return plans[0], nil
}

// PrepareTargets computes the plans of several targets over one setup
// (s.Target is ignored), as Prepare computes each: every context's Γ is
// computed once for all of them, then released (impute.GammaCache.Release),
// so that a log with a policy per impression never holds every Γ at once;
// a plan keeps per context only its vectors and scalars. On error, failed
// is the target it belongs to: the first target that fails, at its lowest
// failing query, as Prepare of each in turn reports.
func PrepareTargets(ctx context.Context, s Setup, targets []*Target) (plans []*Plan, failed int, err error) {
	c := s.Candidates
	if c == nil || s.Gammas == nil || len(targets) == 0 || slices.Contains(targets, nil) {
		return nil, 0, fmt.Errorf("offpolicy: setup needs candidates, Γ cache and target")
	}
	plans = make([]*Plan, len(targets))
	for i, t := range targets {
		if t.slots != s.Slots {
			return nil, i, fmt.Errorf("offpolicy: target %s has %d slots, setup %d", t.Name(), t.slots, s.Slots)
		}
		ps := s
		ps.Target = t
		plans[i] = &Plan{Setup: ps, queries: make([]queryPlan, c.NumQueries())}
	}
	errs := newQueryErrors(len(targets))
	// Every query writes only its own plans, and the plans are reduced in
	// query order below: the plans do not depend on the number of threads
	// (the solver's scratch carries nothing from one query to the next).
	err = parallel.For(ctx, c.NumQueries(), s.Threads, newPrepareScratch, func(sc *prepareScratch, q int) error {
		g, err := s.Gammas.Query(q, c.Size(q), c.Slots(q, s.Slots))
		if err != nil {
			errs.note(0, q, err)
			return nil
		}
		for i, p := range plans {
			if err := p.prepareQuery(q, g, &sc.solver, &sc.buf); err != nil {
				errs.note(i, q, err)
			}
		}
		s.Gammas.Release(q)
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	if i, q, err := errs.first(); err != nil {
		return nil, i, fmt.Errorf("offpolicy: query %q: %w", c.Name(q), err)
	}
	for _, p := range plans {
		p.reduce()
	}
	return plans, 0, nil
}

// queryErrors keeps each target's error at its lowest query.
type queryErrors struct {
	mu    sync.Mutex
	query []int
	err   []error
}

func newQueryErrors(n int) *queryErrors {
	return &queryErrors{query: make([]int, n), err: make([]error, n)}
}

func (e *queryErrors) note(i, q int, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err[i] == nil || q < e.query[i] {
		e.query[i], e.err[i] = q, err
	}
}

// first returns the error of the first target that has one.
func (e *queryErrors) first() (int, int, error) {
	for i, err := range e.err {
		if err != nil {
			return i, e.query[i], err
		}
	}
	return 0, 0, nil
}

// reduce sums the per-query terms, in query order.
func (p *Plan) reduce() {
	t, nq := p.Target, len(p.queries)
	p.WeightLo, p.WeightHi = math.Inf(1), math.Inf(-1)
	p.IPSSigma2, p.IPSMax, p.TrueValue = math.NaN(), math.NaN(), math.NaN()
	var sigma2, ipsSigma2, ipsMax, value float64
	for q := range p.queries {
		qp := &p.queries[q]
		sigma2 += qp.sigma2
		p.WeightLo, p.WeightHi = min(p.WeightLo, qp.wlo), max(p.WeightHi, qp.whi)
		if !math.IsInf(qp.invMu, 1) { // μ(s*|x) = 0: IPS is blind there (Evaluator warns)
			ipsSigma2 += qp.invMu
			ipsMax = max(ipsMax, qp.invMu)
		}
		value += qp.value
	}
	p.Sigma2 = sigma2 / float64(nq)
	if t.Deterministic() {
		p.IPSSigma2, p.IPSMax = ipsSigma2/float64(nq), ipsMax
		if p.Scorer != nil {
			p.TrueValue = value / float64(nq)
		}
	}
}

// prepareScratch is one Prepare worker's reusable state.
type prepareScratch struct {
	solver impute.SlateSolver
	buf    []float64
}

func newPrepareScratch() *prepareScratch { return new(prepareScratch) }

func (p *Plan) prepareQuery(q int, g *impute.Gamma, solver *impute.SlateSolver, scratch *[]float64) error {
	c, t := p.Candidates, p.Target
	m, l := c.Size(q), c.Slots(q, p.Slots)
	qp := &p.queries[q]
	qp.m, qp.l, qp.dist = m, l, g.Dist()
	qp.g = make([]float64, l*m)
	qp.value = math.NaN()
	var qpi []float64
	if t.Deterministic() {
		qp.star = t.slate(q)
		qpi = seenIndicator(m, qp.star)
		unseen := slices.Contains(qp.star, Unseen)
		if unseen {
			qp.invMu = math.Inf(1) // μ(s*|x) = 0
		} else {
			qp.invMu = 1 / qp.dist.Prob(qp.star)
		}
		if p.Scorer != nil && !unseen {
			qp.value = p.Scorer.Score(q, qp.star)
		}
	} else {
		qpi = t.marginals(q)
	}
	g.PinvMulVec(qp.g, qpi)
	for i, x := range qp.g {
		qp.sigma2 += x * qpi[i]
	}
	u := 0.0
	if t.unseen != nil {
		u = t.unseen[q]
	}
	qp.cov = newQueryCoverage(g, qpi, qp.g, u, m, l)
	if !qp.dist.FullSupport() {
		// An explicit slate distribution: ρ's supremum is over its slates.
		qp.wlo, qp.whi = math.Inf(1), math.Inf(-1)
		qp.dist.EachSupportSlate(func(s []int32) {
			w := impute.SlateSum(qp.g, m, s)
			qp.wlo, qp.whi = min(qp.wlo, w), max(qp.whi, w)
		})
		return nil
	}
	// Assignment problems on g (ℓm, as the solver reads) and on −g.
	*scratch = grow(*scratch, m*l)
	sc := *scratch
	copy(sc, qp.g)
	slate := make([]int32, l)
	qp.whi = solver.Exact(sc, m, slate)
	for i := range sc {
		sc[i] = -sc[i]
	}
	qp.wlo = -solver.Exact(sc, m, slate)
	return nil
}

// seenIndicator is 1_s over m candidates, its Unseen slots left at 0.
func seenIndicator(m int, s []int32) []float64 {
	v := make([]float64, len(s)*m)
	for j, a := range s {
		if a != Unseen {
			v[j*m+int(a)] = 1
		}
	}
	return v
}

// seenSum is Σ_j w(j, s_j) over the slots of s that are not Unseen.
func seenSum(w []float64, m int, s []int32) float64 {
	sum := 0.0
	for j, a := range s {
		if a != Unseen {
			sum += w[j*m+int(a)]
		}
	}
	return sum
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// Query exposes the per-query terms of the plan (for tests and reports).
type Query struct {
	m, l     int
	sigma2   float64 // q_πᵀ Γ† q_π
	wLo, wHi float64 // extremes of the PI weight over slates
	invMu    float64 // 1/μ(s*|x) (deterministic target)
	Value    float64 // metric of the target slate (NaN without a Scorer)
}

// Query returns query q's terms.
func (p *Plan) Query(q int) Query {
	qp := &p.queries[q]
	return Query{m: qp.m, l: qp.l, sigma2: qp.sigma2, wLo: qp.wlo, wHi: qp.whi, invMu: qp.invMu, Value: qp.value}
}

// Rho returns ρ = max |q_πᵀΓ†1_s|, the PI weights' bound of the paper's
// Theorem 1, over every query.
func (p *Plan) Rho() float64 {
	return BoundSpec{WeightLo: p.WeightLo, WeightHi: p.WeightHi}.rho()
}

// Weight returns the PI weight q_πᵀ Γ† 1_s of slate s (candidate indices)
// on query q.
func (p *Plan) Weight(q int, s []int32) float64 {
	qp := &p.queries[q]
	return impute.SlateSum(qp.g, qp.m, s)
}

// Ratio returns the IPS ratio π(s|x)/μ(s|x) of slate s on query q: for a
// deterministic target 1{s = s*}/μ(s*|x); for a stochastic one π(s)/μ(s),
// NaN when the target's slate probabilities are unknown.
func (p *Plan) Ratio(q int, s []int32) float64 {
	qp := &p.queries[q]
	if qp.star != nil {
		if slices.Equal(qp.star, s) {
			return qp.invMu
		}
		return 0
	}
	pi := p.Target.slateProb(q, s)
	if math.IsNaN(pi) || pi == 0 {
		return pi
	}
	return pi / qp.dist.Prob(s)
}

// Spectra returns the conditioning of every Γ the plan used, ordered by
// shape. A log with a policy per context has a Γ per context, applied on
// impute's fast path without an eigendecomposition; there the spectrum of
// only the worst of those (largest solve bound) is computed and listed,
// with every other Γ, so a report does not undo the fast path (Coverage
// says per context what rank Γ† kept). GammaCount counts them all.
func (p *Plan) Spectra() []GammaInfo {
	all := p.Gammas.All()
	fast := make([]bool, len(all))
	worst := -1
	for i, g := range all {
		fast[i] = p.Gammas.PerContext() && g.Coverage(nil).Solver == "cholesky"
		if fast[i] && (worst < 0 || g.SolveBound() > all[worst].SolveBound()) {
			worst = i
		}
	}
	var out []GammaInfo
	for i, g := range all {
		if !fast[i] || i == worst {
			out = append(out, gammaInfo(g))
		}
	}
	return out
}

// GammaCount returns the number of distinct Γ the plan used.
func (p *Plan) GammaCount() int { return p.Gammas.Count() }

// gammaInfo describes g, computing its spectrum if not yet known.
func gammaInfo(g *impute.Gamma) GammaInfo {
	sp := g.Spectrum()
	info := GammaInfo{
		M: g.M(), Slots: g.L(), Rank: sp.Rank, MaxEigenvalue: sp.Max,
		MinKeptEigenvalue: sp.MinKept, MaxDroppedEigenvalue: sp.MaxDropped,
		Condition: sp.Condition(), Exact: g.Exact(), StdErr: g.StdErr(),
	}
	if !g.Exact() {
		info.Method, info.ErrorBound = g.Method(), g.ErrorBound()
	}
	return info
}

// GammaInfo describes one Γ: its shape and what its pseudoinverse kept.
type GammaInfo struct {
	M                    int     `json:"m"`
	Slots                int     `json:"slots"`
	Rank                 int     `json:"rank"`
	MaxEigenvalue        float64 `json:"max_eigenvalue"`
	MinKeptEigenvalue    float64 `json:"min_kept_eigenvalue"`
	MaxDroppedEigenvalue float64 `json:"max_dropped_eigenvalue"`
	Condition            float64 `json:"condition"`
	Exact                bool    `json:"exact"`
	StdErr               float64 `json:"stderr,omitempty"`
	// Method is how Γ was computed when not exactly (e.g. monte-carlo);
	// ErrorBound bounds the error of its entries (0 when exact).
	Method     string  `json:"method,omitempty"`
	ErrorBound float64 `json:"error_bound,omitempty"`
}
