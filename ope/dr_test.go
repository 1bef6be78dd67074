package ope

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/piopt/piopt/impute"
)

// randomModel returns a reward model far from any true one: φ̄_x(j, a)
// normal with mean 0.2 and spread 0.5.
func randomModel(c *impute.Candidates, slots int, seed uint64) PhiTable {
	rng := rand.New(rand.NewPCG(seed, 77))
	t := make(PhiTable, c.NumQueries())
	for q := range t {
		t[q] = make([]float64, c.Slots(q, slots)*c.Size(q))
		for i := range t[q] {
			t[q][i] = 0.2 + 0.5*rng.NormFloat64()
		}
	}
	return t
}

func newDR(t testing.TB, p *Plan, model RewardModel) *drEvaluator {
	t.Helper()
	d, err := p.newDR(context.Background(), model)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// termMoments returns, for query q, the exact mean and variance under μ of
// dr's term b + G(r − c) with the additive reward r(s) = 1_sᵀφ_x, each
// term read from what drEvaluator.Add adds to its sums.
func termMoments(d *drEvaluator, q int, phi []float64) (mean, second float64) {
	qp := &d.plan.queries[q]
	qp.dist.EachSlate(func(s []int32, mu float64) {
		d.sums = drSums{} // the sums are exact: read the one term alone
		d.Add(q, s, impute.SlateSum(phi, qp.m, s))
		z := d.sums.Terms.Sums().RW
		mean += mu * z
		second += mu * z * z
	})
	return mean, second
}

// TestDRUnbiasedByEnumeration checks E_μ[b + G(r − c)] = V(π) exactly, by
// summing over every slate μ can log, under an additive reward, for a fixed
// random reward model unrelated to the reward, for uniform and p_α logging,
// m ≤ 5, ℓ ≤ 3 (ℓ < m and ℓ = m), a deterministic target and a stochastic
// one (p_3's marginals, π ≠ μ).
func TestDRUnbiasedByEnumeration(t *testing.T) {
	ds := testData([]int{4, 5, 3, 2, 5}, 3, 13)
	for _, logging := range []string{"uniform", "pa:1", "pa:2"} {
		for _, slots := range []int{1, 2, 3} {
			for _, stochastic := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/l=%d/stochastic=%v", logging, slots, stochastic), func(t *testing.T) {
					s := setup(t, ds, 0, slots, logging)
					if stochastic {
						tg, err := loggingTarget("pa:3", s.Candidates, slots, impute.NewGammaCache(mustLogging(t, "pa:3"), impute.GammaOptions{}))
						if err != nil {
							t.Fatal(err)
						}
						s.Target = tg
					}
					p := prepare(t, s)
					phi := additive(s.Candidates, slots, uint64(slots))
					d := newDR(t, p, randomModel(s.Candidates, slots, uint64(slots)+100))
					for q := range ds.NumQueries() {
						got, _ := termMoments(d, q, phi[q])
						if want := p.modelValue(q, phi[q]); !near(got, want, 1e-10) {
							t.Fatalf("query %d: E[dr term] %.12g, V %.12g", q, got, want)
						}
					}
				})
			}
		}
	}
}

func mustLogging(t testing.TB, spec string) impute.Logging {
	t.Helper()
	lg, err := impute.ParseLogging(spec)
	if err != nil {
		t.Fatal(err)
	}
	return lg
}

// TestDRVarianceShrinks computes dr's exact variance by enumeration with
// the model φ̄ = tφ, a share t of the true additive reward φ: for one
// context the term is tV + (1 − t)G r, so Var = (1 − t)² Var_PI, and
// φ̄ = φ leaves no variance at all; with contexts uniform over the queries
// Var_dr(φ) is the spread of V_x alone, below PI's.
func TestDRVarianceShrinks(t *testing.T) {
	ds := testData([]int{4, 5, 3, 5}, 3, 17)
	for _, logging := range []string{"uniform", "pa:1"} {
		s := setup(t, ds, 0, 3, logging)
		p := prepare(t, s)
		phi := additive(s.Candidates, 3, 5)
		nq := float64(ds.NumQueries())
		var mixPI, mixDR [2]float64 // first and second moments over contexts and slates
		var vx [2]float64           // of V_x over contexts
		for _, share := range []float64{0, 0.25, 0.5, 1} {
			model := make(PhiTable, len(phi))
			for q := range phi {
				model[q] = make([]float64, len(phi[q]))
				for i, x := range phi[q] {
					model[q][i] = share * x
				}
			}
			d := newDR(t, p, model)
			for q := range ds.NumQueries() {
				m, m2 := termMoments(d, q, phi[q])
				variance := m2 - m*m
				zero := newDR(t, p, ConstantModel(s.Candidates, 3, 0))
				pm, pm2 := termMoments(zero, q, phi[q])
				varPI := pm2 - pm*pm
				if varPI < 1e-4 {
					t.Fatalf("%s query %d: Var_PI %.3g, want a case with variance", logging, q, varPI)
				}
				if want := (1 - share) * (1 - share) * varPI; !near(variance, want, 1e-9) {
					t.Errorf("%s query %d, φ̄ = %gφ: Var_dr %.12g, want (1 − t)²·Var_PI = %.12g", logging, q, share, variance, want)
				}
				switch share {
				case 0:
					mixPI[0], mixPI[1] = mixPI[0]+pm/nq, mixPI[1]+pm2/nq
				case 1:
					mixDR[0], mixDR[1] = mixDR[0]+m/nq, mixDR[1]+m2/nq
					v := p.modelValue(q, phi[q])
					vx[0], vx[1] = vx[0]+v/nq, vx[1]+v*v/nq
				}
			}
		}
		varPI, varDR, varV := mixPI[1]-mixPI[0]*mixPI[0], mixDR[1]-mixDR[0]*mixDR[0], vx[1]-vx[0]*vx[0]
		t.Logf("%s: contexts uniform: Var_PI %.4g, Var_dr(φ) %.4g", logging, varPI, varDR)
		if !near(varDR, varV, 1e-9) || !(varDR < varPI) {
			t.Errorf("%s: Var_dr(φ) %.12g, want Var_x(V_x) %.12g < Var_PI %.12g", logging, varDR, varV, varPI)
		}
	}
}

// simulate draws a log of n samples from the setup's logging policy with
// the scorer's (NDCG, additive) reward and feeds it to every add.
func simulate(t testing.TB, s Setup, n int64, seed uint64, add ...func(q int, sl []int32, r float64)) {
	t.Helper()
	sim := impute.Simulation{Candidates: s.Candidates, Logging: s.Gammas.Logging(), Slots: s.Slots, Reward: s.Scorer, Seed: seed}
	err := sim.Run(context.Background(), n, func(q int, sl []int32, r float64) error {
		for _, f := range add {
			f(q, sl, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNewEstimatorsMatchPI checks on a simulated log, through the plan's
// evaluators: dr with φ̄ ≡ 0 is PI and wdr is wPI (values and
// empirical-Bernstein intervals); pi-cv with every coefficient 0 is PI; dr
// with a model worth β on every slate is pi-cv with coefficient β.
func TestNewEstimatorsMatchPI(t *testing.T) {
	ds := testData([]int{6, 8, 5, 9, 7, 4}, 3, 21)
	for _, logging := range []string{"uniform", "pa:1"} {
		s := setup(t, ds, 0, 3, logging)
		p := prepare(t, s)
		iv := Intervals{Delta: 0.1, RewardHi: 1}
		ev, err := p.NewEvaluator(EvalOptions{Estimators: Estimators{PI: true, WPI: true}, Intervals: iv})
		if err != nil {
			t.Fatal(err)
		}
		zero := newDR(t, p, ConstantModel(s.Candidates, 3, 0))
		const beta = 0.37
		flat := newDR(t, p, ConstantModel(s.Candidates, 3, beta))
		cv, err := p.newCV(4)
		if err != nil {
			t.Fatal(err)
		}
		simulate(t, s, 3000, 5, ev.Add, zero.Add, flat.Add, cv.Add)
		res, err := ev.Result(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		dr, wdr := zero.Estimates(iv)
		for _, x := range []struct {
			name      string
			got, want *Estimate
		}{{"dr/pi", dr, res.Estimates[PI]}, {"wdr/wpi", wdr, res.Estimates[WPI]}} {
			g, w := x.got, x.want
			if !near(float64(g.Value), float64(w.Value), 1e-12) || g.N != w.N || g.Weights.ESS != w.Weights.ESS {
				t.Errorf("%s %s: %v (n %d), want %v (n %d)", logging, x.name, g.Value, g.N, w.Value, w.N)
			}
			if x.name == "dr/pi" && (!near(g.EmpiricalBernstein.Lo, w.EmpiricalBernstein.Lo, 1e-12) || !near(g.EmpiricalBernstein.Hi, w.EmpiricalBernstein.Hi, 1e-12)) {
				t.Errorf("%s dr interval %+v, PI's %+v", logging, *g.EmpiricalBernstein, *w.EmpiricalBernstein)
			}
		}
		if got, want := cv.Folds().Value(make([]float64, 4)), float64(res.Estimates[PI].Value); !near(got, want, 1e-12) {
			t.Errorf("%s: pi-cv with β = 0 %.15g, PI %.15g", logging, got, want)
		}
		if got, want := flat.Sums().Value(), cv.Folds().Value([]float64{beta, beta, beta, beta}); !near(got, want, 1e-12) {
			t.Errorf("%s: dr with a constant model %.15g, pi-cv with β = %g %.15g", logging, got, beta, want)
		}
		e, diag := cv.Estimate(iv)
		if len(diag.FoldBetas) != 4 || e.N != 3000 || !e.EmpiricalBernstein.contains(min(max(float64(e.Value), 0), 1)) {
			t.Errorf("%s: pi-cv %+v, diagnostics %+v", logging, e, diag)
		}
	}
}

// TestModelRangeIsExact compares NewDR's range of the model's slate values
// with brute force over every slate, and checks the model's value of the
// target.
func TestModelRangeIsExact(t *testing.T) {
	ds := testData([]int{6, 5, 7, 3}, 3, 11)
	for _, logging := range []string{"uniform", "pa:1"} {
		s := setup(t, ds, 0, 3, logging)
		p := prepare(t, s)
		model := randomModel(s.Candidates, 3, 3)
		d := newDR(t, p, model)
		lo, hi := math.Inf(1), math.Inf(-1)
		for q := range ds.NumQueries() {
			qp := &p.queries[q]
			qp.dist.EachSlate(func(sl []int32, _ float64) {
				v := impute.SlateSum(model[q], qp.m, sl)
				lo, hi = min(lo, v), max(hi, v)
			})
			if want := impute.SlateSum(model[q], qp.m, s.Target.slate(q)); d.base[q] != want {
				t.Errorf("%s query %d: model's target value %g, want %g", logging, q, d.base[q], want)
			}
		}
		if !near(d.ModelLo, lo, 1e-12) || !near(d.ModelHi, hi, 1e-12) {
			t.Errorf("%s: model range [%g, %g], brute force [%g, %g]", logging, d.ModelLo, d.ModelHi, lo, hi)
		}
	}
}

// TestNewDRRejectsWrongShape: a model vector of the wrong length is an
// error naming the query.
func TestNewDRRejectsWrongShape(t *testing.T) {
	ds := testData([]int{4, 5}, 3, 1)
	s := setup(t, ds, 0, 2, "uniform")
	p := prepare(t, s)
	model := ConstantModel(s.Candidates, 2, 0)
	model[1] = model[1][:3]
	if _, err := p.newDR(context.Background(), model); err == nil || !strings.Contains(err.Error(), `query "2"`) {
		t.Errorf("error %v, want one naming query \"2\"", err)
	}
	if _, err := p.newCV(0); err == nil {
		t.Error("pi-cv with 0 folds accepted")
	}
}

// TestNewEstimatorsCoverage checks that the empirical-Bernstein intervals
// of pi-cv, dr (with a fixed model unrelated to the reward) and wdr cover
// the true value in at least 1 − δ of seeded simulated logs (0.2 s: not
// skipped in -short).
func TestNewEstimatorsCoverage(t *testing.T) {
	const delta, reps, n = 0.1, 100, 5000
	ds := testData([]int{6, 8, 5, 9, 7, 4}, 3, 21)
	for _, logging := range []string{"uniform", "pa:1"} {
		s := setup(t, ds, 0, 3, logging)
		p := prepare(t, s)
		model := additive(s.Candidates, 3, 99)
		iv := Intervals{Delta: delta, RewardHi: 1}
		miss, width := map[string]float64{}, map[string]float64{}
		for rep := range reps {
			d := newDR(t, p, PhiTable(model))
			cv, _ := p.newCV(DefaultCVFolds)
			simulate(t, s, n, uint64(rep)+1000, d.Add, cv.Add)
			dr, wdr := d.Estimates(iv)
			picv, _ := cv.Estimate(iv)
			for name, e := range map[string]*Estimate{PICV: picv, DR: dr, WDR: wdr} {
				if !e.EmpiricalBernstein.contains(p.TrueValue) {
					miss[name] += 1.0 / reps
				}
				width[name] += e.EmpiricalBernstein.width() / reps
			}
		}
		for _, name := range []string{PICV, DR, WDR} {
			t.Logf("%s %-5s miss rate %.3f, mean width %.3f", logging, name, miss[name], width[name])
			if miss[name] > delta {
				t.Errorf("%s %s misses V in %.3f of the logs (δ = %g)", logging, name, miss[name], delta)
			}
		}
	}
}

// TestDRCheckAgainstNumpy recomputes, with piopt's code, what
// testdata/drcheck/gen.py computed with numpy alone (Γ by enumeration,
// numpy.linalg.pinv, centred moments) on the log it wrote: PI, wPI, the
// coefficients, pi-cv (3 folds), dr, wdr, two intervals and the ranges.
func TestDRCheckAgainstNumpy(t *testing.T) {
	chk := readDRCheck(t, "testdata/drcheck")
	p, model := chk.plan(t)
	iv := Intervals{Delta: chk.Setup.Delta, RewardHi: 1}
	ev, err := p.NewEvaluator(EvalOptions{Estimators: Estimators{PI: true, WPI: true}, Intervals: iv})
	if err != nil {
		t.Fatal(err)
	}
	d := newDR(t, p, model)
	cv, err := p.newCV(chk.Setup.Folds)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range chk.Log {
		ev.Add(x.q, x.s, x.r)
		d.Add(x.q, x.s, x.r)
		cv.Add(x.q, x.s, x.r)
	}
	res, err := ev.Result(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	dr, wdr := d.Estimates(iv)
	picv, diag := cv.Estimate(iv)
	want := chk.Expected
	checks := []struct {
		name      string
		got, want float64
	}{
		{"pi", float64(res.Estimates[PI].Value), want.PI},
		{"wpi", float64(res.Estimates[WPI].Value), want.WPI},
		{"beta", float64(diag.Beta), want.Beta},
		{"pi-cv", float64(picv.Value), want.PICV},
		{"pi-cv interval lo", picv.EmpiricalBernstein.Lo, want.PICVEB[0]},
		{"pi-cv interval hi", picv.EmpiricalBernstein.Hi, want.PICVEB[1]},
		{"dr", float64(dr.Value), want.DR},
		{"dr interval lo", dr.EmpiricalBernstein.Lo, want.DREB[0]},
		{"dr interval hi", dr.EmpiricalBernstein.Hi, want.DREB[1]},
		{"wdr", float64(wdr.Value), want.WDR},
		{"weight lo", p.WeightLo, want.WeightRange[0]},
		{"weight hi", p.WeightHi, want.WeightRange[1]},
		{"model lo", d.ModelLo, want.ModelRange[0]},
		{"model hi", d.ModelHi, want.ModelRange[1]},
	}
	for k, b := range want.FoldBetas {
		checks = append(checks, struct {
			name      string
			got, want float64
		}{fmt.Sprintf("β_{−%d}", k), float64(diag.FoldBetas[k]), b})
	}
	for _, c := range checks {
		if !near(c.got, c.want, 1e-9) {
			t.Errorf("%s = %.15g, numpy %.15g", c.name, c.got, c.want)
		}
	}
	// The check must not be vacuous: the estimators differ from each other.
	if near(want.PICV, want.PI, 1e-3) || near(want.DR, want.PI, 1e-3) {
		t.Errorf("pi-cv %g, dr %g and PI %g are too close for the check to tell them apart", want.PICV, want.DR, want.PI)
	}
}
