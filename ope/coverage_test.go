package ope

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/piopt/piopt/impute"
)

// coverageSetup is setup's candidates with a per-context logging policy
// dists[q] and the deterministic target slates[q].
func coverageSetup(t *testing.T, sizes []int, slots int, dists []*impute.Dist, slates [][]int32) Setup {
	t.Helper()
	s := setup(t, testData(sizes, 3, 11), 0, slots, "uniform")
	s.Gammas = impute.NewContextGammas(dists, impute.GammaOptions{})
	tg, err := NewDeterministicTarget("fixed", s.Candidates, slots, func(q int) []int32 { return slates[q] })
	if err != nil {
		t.Fatal(err)
	}
	s.Target = tg
	return s
}

// evaluateAll evaluates a log of n slates per context drawn from its
// policy, returning the result.
func evaluateAll(t *testing.T, p *Plan, n int, seed uint64, strict bool) (*Result, error) {
	t.Helper()
	ev, err := p.NewEvaluator(EvalOptions{Estimators: Estimators{PI: true, WPI: true, IPS: true},
		Intervals: Intervals{Delta: 0.05, RewardLo: 0, RewardHi: 1}, StrictCoverage: strict})
	if err != nil {
		t.Fatal(err)
	}
	src := rand.NewPCG(seed, 3)
	for q := range p.Candidates.NumQueries() {
		qp := &p.queries[q]
		s := make([]int32, qp.l)
		for range n {
			qp.dist.Sample(src, s)
			ev.Add(q, s, 0.5)
		}
	}
	return ev.Result(context.Background())
}

// exactBias is E_μ[PI_x] − V_x(π) under the additive reward φ, with the
// expectation summed over every slate the context's policy can log.
func exactBias(p *Plan, q int, phi []float64) float64 {
	qp := &p.queries[q]
	e := 0.0
	qp.dist.EachSlate(func(s []int32, mu float64) {
		e += mu * p.Weight(q, s) * impute.SlateSum(phi, qp.m, s)
	})
	return e - impute.SlateSum(phi, qp.m, qp.star)
}

// TestCoverageExplicitSlates: an explicit-slate logger over {(0,1), (1,0),
// (2,3)} spans only their indicators. A target slate in the span is
// covered and PI exactly unbiased; one outside is reported short, with the
// share outside the span, and the stated bound contains the exact bias
// (enumeration over the logged slates) for every additive reward tried.
func TestCoverageExplicitSlates(t *testing.T) {
	lg := mustLogging(t, "slates")
	const m, l = 5, 2
	slates := []int32{0, 1, 1, 0, 2, 3}
	cases := []struct {
		target []int32
		short  bool
	}{
		{[]int32{1, 0}, false},
		{[]int32{2, 3}, false},
		{[]int32{0, 4}, true},
		{[]int32{4, 3}, true},
		{[]int32{2, 1}, true},
		{[]int32{3, 2}, true},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.target), func(t *testing.T) {
			var dists []*impute.Dist
			var targets [][]int32
			for range 3 {
				d, err := lg.SlateDist(m, l, slates, []float64{0.5, 0.3, 0.2})
				if err != nil {
					t.Fatal(err)
				}
				dists, targets = append(dists, d), append(targets, c.target)
			}
			p := prepare(t, coverageSetup(t, []int{m, m, m}, l, dists, targets))
			res, err := evaluateAll(t, p, 200, 1, false)
			if err != nil {
				t.Fatal(err)
			}
			cov := res.Estimates[PI].Coverage
			if cov == nil || cov.Contexts != 3 {
				t.Fatalf("coverage %+v", cov)
			}
			if cov.Short() != c.short {
				t.Fatalf("short %v, want %v: %+v", cov.Short(), c.short, cov)
			}
			for seed := range uint64(5) {
				phi := additive(p.Candidates, l, seed)
				for q := range 3 {
					bias, bound := exactBias(p, q, phi[q]), p.queries[q].cov.bound(0, 1)
					if !c.short && math.Abs(bias) > 1e-12 {
						t.Errorf("covered target: exact bias %.3g", bias)
					}
					if math.Abs(bias) > bound+1e-12 {
						t.Errorf("query %d, reward %d: exact bias %.6g outside the bound %.6g", q, seed, bias, bound)
					}
					if seed == 0 && q == 0 {
						t.Logf("range share %.4g, exact bias %.4g, bound %.4g", p.queries[q].cov.outside, bias, bound)
					}
				}
			}
			checkCoverageJSON(t, res, c.short)
			if !c.short {
				return
			}
			// The share outside the span, against a projection by hand.
			basis := [][]float64{impute.Indicator(nil, m, slates[0:2]), impute.Indicator(nil, m, slates[2:4]), impute.Indicator(nil, m, slates[4:6])}
			want := outsideSpan(impute.Indicator(nil, m, c.target), basis)
			if math.Abs(cov.RangeShareMax-want) > 1e-9 || cov.ContextsShort != 3 || cov.ImpressionsShortShare != 1 || len(cov.WorstContexts) != 3 {
				t.Errorf("coverage %+v, want range share %.6g on every context", cov, want)
			}
			if !slices.ContainsFunc(res.Estimates[PI].Warnings, func(w string) bool { return strings.Contains(w, "outside the range of Γ") }) {
				t.Errorf("no coverage warning: %q", res.Estimates[PI].Warnings)
			}
			if _, err := evaluateAll(t, p, 10, 1, true); err == nil || !strings.Contains(err.Error(), "outside the range of Γ") {
				t.Errorf("strict coverage: error %v", err)
			}
		})
	}
}

// outsideSpan is ‖v − Proj v‖/‖v‖ for the span of basis (Gram–Schmidt).
func outsideSpan(v []float64, basis [][]float64) float64 {
	var qs [][]float64
	for _, b := range basis {
		u := slices.Clone(b)
		for _, e := range qs {
			axpyDot(u, e)
		}
		if n := math.Sqrt(dotv(u, u)); n > 1e-12 {
			for i := range u {
				u[i] /= n
			}
			qs = append(qs, u)
		}
	}
	r := slices.Clone(v)
	for _, e := range qs {
		axpyDot(r, e)
	}
	return math.Sqrt(dotv(r, r) / dotv(v, v))
}

func axpyDot(u, e []float64) {
	p := dotv(u, e)
	for i := range u {
		u[i] -= p * e[i]
	}
}

func dotv(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// checkCoverageJSON checks that PI's JSON carries the coverage object with
// its keys, contexts_short positive exactly when short.
func checkCoverageJSON(t *testing.T, res *Result, short bool) {
	t.Helper()
	b, err := json.Marshal(res.Estimates[PI])
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Coverage map[string]any `json:"coverage"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"contexts", "contexts_short", "impressions_short_share", "unseen_share", "max_bias_bound",
		"range_share_max", "rank_short_contexts", "worst_contexts"} {
		if _, ok := got.Coverage[k]; !ok {
			t.Errorf("coverage JSON %s has no %q", b, k)
		}
	}
	if (got.Coverage["contexts_short"].(float64) > 0) != short {
		t.Errorf("coverage JSON %v, short %v", got.Coverage, short)
	}
}

// TestCoveragePeakedPL: a Plackett–Luce logger with τ = 0.1 over m = 60
// candidates (ℓ = 4) is too peaked for the fast path to certify its solve
// (quadrature moments), so Γ† is today's eigenvalue cut-off, which keeps a
// rank below Γ's structural one. Coverage reports what that loses for a
// target of unlikely documents, and the stated bound contains the actual
// bias E[PI] − V: the expectation summed over all 11.7 million slates with
// their Plackett–Luce probabilities from the scores (not Γ's moments), for
// random additive rewards and for the worst reward of the box 0 ≤ φ ≤ 1/ℓ.
// (Keeping the full rank would not remove the bias: with Γ's moments exact
// to rounding, the fast path's full-rank Γ† gives targets of unlikely
// documents weights of 1e14 on marginals of 1e-22, and the moments'
// relative rounding alone moves E[PI] by ε·Σ_i q_i|Γ†q_π|_i ≈ 0.2.)
func TestCoveragePeakedPL(t *testing.T) {
	if testing.Short() {
		t.Skip("m = 60 Plackett–Luce moments")
	}
	const m, l = 60, 4
	// impute's peaked case: standard normal scores, sorted.
	rng := rand.New(rand.NewPCG(3, 4))
	scores := make([]float64, m)
	for a := range scores {
		scores[a] = rng.NormFloat64()
	}
	slices.Sort(scores)
	slices.Reverse(scores)
	d, err := mustLogging(t, "pl:0.1").ScoredDist(scores, l)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		target []int32
		short  bool
	}{
		{[]int32{0, 1, 2, 3}, false}, // the mode: in the kept range
		{[]int32{59, 58, 57, 56}, true},
		{[]int32{30, 5, 44, 12}, true},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.target), func(t *testing.T) {
			p := prepare(t, coverageSetup(t, []int{m}, l, []*impute.Dist{d}, [][]int32{c.target}))
			qc := p.queries[0].cov
			if !qc.rankShort || qc.rank >= qc.strRank || qc.strRank != l*(m-1)+1 {
				t.Fatalf("rank %d of structural %d: want a shortfall", qc.rank, qc.strRank)
			}
			if qc.rangeShort != c.short {
				t.Fatalf("range share %.3g: short %v, want %v", qc.outside, qc.rangeShort, c.short)
			}
			// E[PI] = eᵀφ for every additive reward φ, e = Σ_s μ(s)·w(s)·1_s.
			diff := plWeightedIndicators(scores, 0.1, l, p.queries[0].g)
			for j, a := range c.target {
				diff[j*m+int(a)]-- // e − 1_π: the bias is diffᵀφ
			}
			bound := qc.bound(0, 1)
			for seed := range uint64(6) {
				phi := additive(p.Candidates, l, seed)[0]
				if seed == 5 {
					worstReward(phi, diff, l)
				}
				bias := dotv(diff, phi)
				// Below rangeTol the bound is 0 and the bias within
				// rounding (κ·ε of this Γ): 1e-7.
				if math.Abs(bias) > bound+1e-7 {
					t.Errorf("reward %d: bias %.6g outside the bound %.6g", seed, bias, bound)
				}
				if seed == 5 && c.short && math.Abs(bias) < 0.1 {
					t.Errorf("worst reward: bias %.6g: the cut-off's loss should show", bias)
				}
				if seed == 5 {
					t.Logf("rank %d of %d, range share %.4g, worst-reward bias %.4g, bound %.4g", qc.rank, qc.strRank, qc.outside, bias, bound)
				}
			}
			res, err := evaluateAll(t, p, 50, 2, false)
			if err != nil {
				t.Fatal(err)
			}
			cov := res.Estimates[PI].Coverage
			if cov.RankShortContexts != 1 || cov.Short() != c.short {
				t.Errorf("coverage %+v", cov)
			}
			checkCoverageJSON(t, res, c.short)
		})
	}
}

// worstReward sets phi to the additive reward with entries in [0, 1/l]
// of the largest |diffᵀφ|: 1/l where diff has the sign of the larger of
// its positive and negative parts, 0 elsewhere.
func worstReward(phi, diff []float64, l int) {
	pos, neg := 0.0, 0.0
	for _, x := range diff {
		pos, neg = pos+max(x, 0), neg+max(-x, 0)
	}
	for i, x := range diff {
		phi[i] = 0
		if (pos >= neg && x > 0) || (pos < neg && x < 0) {
			phi[i] = 1 / float64(l)
		}
	}
}

// plWeightedIndicators returns Σ_s μ(s)·(gᵀ1_s)·1_s over every slate s of
// l distinct candidates, μ the Plackett–Luce distribution of weights
// exp((score − best)/τ) (scores in non-increasing order), each slate's
// probability a product of weight over the weight left, that sum taken
// afresh over the undrawn candidates (no cancellation).
func plWeightedIndicators(scores []float64, tau float64, l int, g []float64) []float64 {
	m := len(scores)
	w := make([]float64, m)
	for a, s := range scores {
		w[a] = math.Exp((s - scores[0]) / tau)
	}
	out := make([]float64, l*m)
	used := make([]bool, m)
	s := make([]int, l)
	var rec func(j int, p, gs float64)
	rec = func(j int, p, gs float64) {
		if j == l {
			for k, a := range s {
				out[k*m+a] += p * gs
			}
			return
		}
		left := 0.0
		for a, x := range w {
			if !used[a] {
				left += x
			}
		}
		for a, x := range w {
			if used[a] {
				continue
			}
			used[a], s[j] = true, a
			rec(j+1, p*x/left, gs+g[j*m+a])
			used[a] = false
		}
	}
	rec(0, 1, 0)
	return out
}

// TestCoverageComplete: 100 logs whose logging policies (uniform, p_α,
// Plackett–Luce with distinct scores) show every candidate, and whose
// targets are deterministic top-ℓ slates over those candidates, have full
// coverage: no coverage warning, and a coverage object of zeros.
func TestCoverageComplete(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 29))
	for i := range 100 {
		nq := 1 + rng.IntN(4)
		sizes := make([]int, nq)
		for q := range sizes {
			sizes[q] = 2 + rng.IntN(6)
		}
		l := 1 + rng.IntN(min(3, slices.Min(sizes)))
		kind := []string{"uniform", "pa:1", "pa:2", "pl:1", "pl:0.5"}[i%5]
		var dists []*impute.Dist
		var targets [][]int32
		for _, m := range sizes {
			var d *impute.Dist
			var err error
			if strings.HasPrefix(kind, "pl") {
				scores := make([]float64, m)
				for a := range scores {
					scores[a] = -float64(a) - rng.Float64()
				}
				d, err = mustLogging(t, kind).ScoredDist(scores, l)
			} else {
				d, err = mustLogging(t, kind).Dist(m, l)
			}
			if err != nil {
				t.Fatal(err)
			}
			dists = append(dists, d)
			var s []int32
			for _, a := range rng.Perm(m)[:l] {
				s = append(s, int32(a))
			}
			targets = append(targets, s)
		}
		p := prepare(t, coverageSetup(t, sizes, l, dists, targets))
		res, err := evaluateAll(t, p, 20, uint64(i), true)
		if err != nil {
			t.Fatalf("log %d (%s, sizes %v, ℓ %d): %v", i, kind, sizes, l, err)
		}
		// Per-context Plackett–Luce Γ take impute's fast path: only the
		// worst one's spectrum is computed and listed.
		if strings.HasPrefix(kind, "pl") && (len(res.Gamma) != 1 || res.GammaCount != nq) {
			t.Errorf("log %d: %d spectra of %d Γ, want 1 of %d", i, len(res.Gamma), res.GammaCount, nq)
		}
		cov := res.Estimates[PI].Coverage
		zero := Coverage{Contexts: nq, WorstContexts: []ContextShortfall{}}
		if cov == nil || fmt.Sprint(*cov) != fmt.Sprint(zero) {
			t.Errorf("log %d (%s, sizes %v, ℓ %d): coverage %+v", i, kind, sizes, l, cov)
		}
		for _, name := range res.Names {
			for _, w := range res.Estimates[name].Warnings {
				if strings.Contains(w, "coverage") {
					t.Errorf("log %d: %s warns %q", i, name, w)
				}
			}
		}
	}
}

// TestCoverageFastFallback: Plackett–Luce with τ = 0.1 over m = 20 (ℓ = 3)
// is on impute's fast path, which keeps Γ's full structural rank. For a
// target of the least likely documents that rank is not to be trusted:
// the moments' last bits move the full-rank E[PI] by O(1) (0.7512 against
// V = 0.2548 for one reward), so the target gets the eigenvalue cut-off,
// and coverage reports the shortfall with a bound that contains the actual
// bias (summed over all 6,840 slates, probabilities from the scores). A
// target the fast path keeps ([10 5 14]) is complete and unbiased to
// rounding.
func TestCoverageFastFallback(t *testing.T) {
	const m, l = 20, 3
	rng := rand.New(rand.NewPCG(3, 4))
	scores := make([]float64, m)
	for a := range scores {
		scores[a] = rng.NormFloat64()
	}
	slices.Sort(scores)
	slices.Reverse(scores)
	d, err := mustLogging(t, "pl:0.1").ScoredDist(scores, l)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		target []int32
		short  bool
	}{
		{[]int32{19, 18, 17}, true},
		{[]int32{10, 5, 14}, false},
	} {
		p := prepare(t, coverageSetup(t, []int{m}, l, []*impute.Dist{d}, [][]int32{c.target}))
		qc := p.queries[0].cov
		if qc.short != c.short || qc.rankShort != c.short || qc.strRank != l*(m-1)+1 {
			t.Fatalf("%v: coverage short %v, rank %d of %d: want short %v", c.target, qc.short, qc.rank, qc.strRank, c.short)
		}
		diff := plWeightedIndicators(scores, 0.1, l, p.queries[0].g)
		for j, a := range c.target {
			diff[j*m+int(a)]--
		}
		bound := qc.bound(0, 1)
		for seed := range uint64(6) {
			phi := additive(p.Candidates, l, seed)[0]
			if seed == 5 {
				worstReward(phi, diff, l)
			}
			bias := dotv(diff, phi)
			// Kept: within the fast path's tolerance (1e-8 for rewards in
			// [0, 1]) and the enumeration's own rounding.
			if !(math.Abs(bias) <= bound+1e-8) {
				t.Errorf("%v reward %d: bias %.6g outside the bound %.6g", c.target, seed, bias, bound)
			}
			if seed == 5 && c.short && math.Abs(bias) < 0.1 {
				t.Errorf("%v worst reward: bias %.6g: the cut-off's loss should show", c.target, bias)
			}
			if seed == 5 {
				t.Logf("%v: rank %d of %d, worst-reward bias %.4g, bound %.4g", c.target, qc.rank, qc.strRank, bias, bound)
			}
		}
		res, err := evaluateAll(t, p, 50, 2, false)
		if err != nil {
			t.Fatal(err)
		}
		cov := res.Estimates[PI].Coverage
		if cov.Short() != c.short || (cov.RankShortContexts == 1) != c.short {
			t.Errorf("%v: coverage %+v", c.target, cov)
		}
		checkCoverageJSON(t, res, c.short)
	}
}
