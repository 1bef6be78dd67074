package ope

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
)

// foldFitter is a PhiFitter that records what it was given and returns,
// for its k-th call, the model every slate of which is worth
// 0.1·k + the mean reward of its samples (a model that depends on the
// samples, as a real fit does).
type foldFitter struct {
	calls   int
	samples [][]float32 // rewards per call
}

func (f *foldFitter) FitPhi(_ context.Context, p *Plan, q, s []int32, r []float32) (RewardModel, error) {
	f.samples = append(f.samples, append([]float32(nil), r...))
	mean := 0.0
	for _, x := range r {
		mean += float64(x)
	}
	mean /= float64(len(r))
	f.calls++
	return ConstantModel(p.Candidates, p.Slots, 0.1*float64(f.calls)+mean), nil
}

type logged struct {
	q  int
	sl []int32
	r  float64
}

// TestCrossFitDR checks the evaluator's dr and wdr, cross-fitted over K
// folds, against the folds computed by hand: sample i is evaluated with
// the model fitted on exactly the samples j with j mod K ≠ i mod K, and
// dr is the mean of b + G(r − c) over every sample with its fold's model.
func TestCrossFitDR(t *testing.T) {
	ds := testData([]int{6, 8, 5, 9, 7, 4}, 3, 21)
	for _, k := range []int{2, 3} {
		s := setup(t, ds, 0, 3, "pa:1")
		p := prepare(t, s)
		iv := Intervals{Delta: 0.1, RewardHi: 1}
		f := &foldFitter{}
		ev, err := p.NewEvaluator(EvalOptions{Estimators: Estimators{DR: true, WDR: true}, Intervals: iv, Baseline: Baseline{Fitter: f, Folds: k}})
		if err != nil {
			t.Fatal(err)
		}
		var log []logged
		simulate(t, s, 1001, 9, ev.Add, func(q int, sl []int32, r float64) {
			log = append(log, logged{q, append([]int32(nil), sl...), r})
		})
		res, err := ev.Result(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if f.calls != k {
			t.Fatalf("K = %d: %d fits", k, f.calls)
		}
		var want, base, corrRW, corrW float64
		for fold := range k {
			var fitted []float32
			for i, x := range log {
				if i%k != fold {
					fitted = append(fitted, float32(x.r))
				}
			}
			if !slices.Equal(f.samples[fold], fitted) {
				t.Fatalf("K = %d fold %d: fitted on %d samples, want the %d of the other folds", k, fold, len(f.samples[fold]), len(fitted))
			}
			mean := 0.0
			for _, x := range fitted {
				mean += float64(x)
			}
			v := 0.1*float64(fold+1) + mean/float64(len(fitted)) // every slate's value
			for i := fold; i < len(log); i += k {
				w := p.Weight(log[i].q, log[i].sl)
				want += v + w*(log[i].r-v)
				base += v
				corrRW += w * (log[i].r - v)
				corrW += w
			}
		}
		n := float64(len(log))
		dr, wdr := res.Estimates[DR], res.Estimates[WDR]
		if !near(float64(dr.Value), want/n, 1e-12) || !near(float64(wdr.Value), base/n+corrRW/corrW, 1e-12) || dr.N != 1001 {
			t.Errorf("K = %d: dr %.15g wdr %.15g, want %.15g %.15g", k, dr.Value, wdr.Value, want/n, base/n+corrRW/corrW)
		}
		b := dr.Baseline
		if b == nil || b.Kind != "crossfit" || b.Folds != k || len(b.FoldSamples) != k || b.FoldSamples[0] != int64((1001+k-1)/k) {
			t.Errorf("K = %d: baseline %+v", k, b)
		}
		if !dr.EmpiricalBernstein.contains(min(max(float64(dr.Value), 0), 1)) || wdr.Baseline != b {
			t.Errorf("K = %d: dr %+v, wdr %+v", k, dr, wdr)
		}
	}
}

// TestCrossFitZeroModelIsPI: a fitter that always returns φ̄ ≡ 0 makes the
// cross-fitted dr PI and wdr wPI; a fixed model evaluates every sample with
// it, as NewDR does.
func TestCrossFitZeroModelIsPI(t *testing.T) {
	ds := testData([]int{6, 8, 5, 9}, 3, 4)
	s := setup(t, ds, 0, 2, "uniform")
	p := prepare(t, s)
	iv := Intervals{Delta: 0.1, RewardHi: 1}
	zero := ConstantModel(s.Candidates, 2, 0)
	fixed := randomModel(s.Candidates, 2, 5)
	all := Estimators{PI: true, WPI: true, DR: true, WDR: true}
	cross, _ := p.NewEvaluator(EvalOptions{Estimators: all, Intervals: iv, Baseline: Baseline{Fitter: constFitter{zero}, Folds: 4}})
	model, _ := p.NewEvaluator(EvalOptions{Estimators: all, Intervals: iv, Baseline: Baseline{Model: fixed, Name: "model:x"}})
	direct := newDR(t, p, fixed)
	simulate(t, s, 500, 3, cross.Add, model.Add, direct.Add)
	a, err := cross.Result(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !near(float64(a.Estimates[DR].Value), float64(a.Estimates[PI].Value), 1e-12) || !near(float64(a.Estimates[WDR].Value), float64(a.Estimates[WPI].Value), 1e-12) {
		t.Errorf("φ̄ ≡ 0: dr %v wdr %v, pi %v wpi %v", a.Estimates[DR].Value, a.Estimates[WDR].Value, a.Estimates[PI].Value, a.Estimates[WPI].Value)
	}
	b, err := model.Result(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	dr, wdr := direct.Estimates(iv)
	if b.Estimates[DR].Value != dr.Value || b.Estimates[WDR].Value != wdr.Value || b.Estimates[DR].Baseline.Kind != "model:x" ||
		float64(b.Estimates[DR].Baseline.ModelLo) != direct.ModelLo {
		t.Errorf("fixed model: %+v, NewDR %v %v", b.Estimates[DR], dr.Value, wdr.Value)
	}
}

type constFitter struct{ m RewardModel }

func (f constFitter) FitPhi(context.Context, *Plan, []int32, []int32, []float32) (RewardModel, error) {
	return f.m, nil
}

// TestCrossFitTooFewSamples: with fewer than 2K samples dr and wdr are NaN
// and say why; without a model or a fitter the evaluator refuses.
func TestCrossFitTooFewSamples(t *testing.T) {
	ds := testData([]int{6, 8}, 3, 4)
	s := setup(t, ds, 0, 2, "uniform")
	p := prepare(t, s)
	iv := Intervals{Delta: 0.1, RewardHi: 1}
	ev, _ := p.NewEvaluator(EvalOptions{Estimators: Estimators{DR: true}, Intervals: iv, Baseline: Baseline{Fitter: constFitter{ConstantModel(s.Candidates, 2, 0)}, Folds: 2}})
	simulate(t, s, 3, 1, ev.Add)
	res, err := ev.Result(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	e := res.Estimates[DR]
	if !math.IsNaN(float64(e.Value)) || len(e.Warnings) != 1 || !strings.Contains(e.Warnings[0], "at least 4 samples, the log has 3") {
		t.Errorf("dr on 3 samples: %+v", e)
	}
	if _, ok := res.Estimates[WDR]; ok {
		t.Error("wdr reported though not asked")
	}
	if _, err := p.NewEvaluator(EvalOptions{Estimators: Estimators{WDR: true}, Intervals: iv}); err == nil {
		t.Error("wdr without a baseline accepted")
	}
}

func TestParseEstimatorsDR(t *testing.T) {
	e, err := ParseEstimators("wdr,pi,dr")
	if err != nil || !e.DR || !e.WDR || strings.Join(e.Names(), ",") != "pi,dr,wdr" {
		t.Errorf("dr, wdr: %+v %v", e, err)
	}
	all, _ := ParseEstimators("all")
	if got := strings.Join(all.Names(), ","); got != "pi,wpi,pi-cv,dr,wdr,ips,wips,dm,dm-clip,dm-linear,dm-linear-clip,onpolicy" {
		t.Errorf("all: %s", got)
	}
}

// targetsFitter's model is the PI targets φ̂_x of its samples themselves
// (0 for queries without samples): a noisy model that depends on the data,
// the hard case for cross-fitting.
type targetsFitter struct{}

func (targetsFitter) FitPhi(ctx context.Context, p *Plan, q, s []int32, r []float32) (RewardModel, error) {
	t, err := p.PhiTargets(ctx, q, s, r)
	if err != nil {
		return nil, err
	}
	out := make(PhiTable, len(t.Phi))
	for x, phi := range t.Phi {
		if phi == nil {
			phi = make([]float64, p.Candidates.Slots(x, p.Slots)*p.Candidates.Size(x))
		}
		out[x] = phi
	}
	return out, nil
}

// TestCrossFitCoverage: the empirical-Bernstein intervals of the
// cross-fitted dr and wdr hold V with probability at least 1 − δ over
// repeated logs (their folds' terms are independent given the other
// folds, not i.i.d., so this is checked, not assumed).
func TestCrossFitCoverage(t *testing.T) {
	const delta, reps, n = 0.1, 100, 3000
	ds := testData([]int{6, 8, 5, 9, 7, 4}, 3, 21)
	s := setup(t, ds, 0, 3, "pa:1")
	p := prepare(t, s)
	iv := Intervals{Delta: delta, RewardHi: 1}
	miss, bias := map[string]float64{}, map[string]float64{}
	for rep := range reps {
		ev, _ := p.NewEvaluator(EvalOptions{Estimators: Estimators{DR: true, WDR: true}, Intervals: iv, Baseline: Baseline{Fitter: targetsFitter{}, Folds: 5}})
		simulate(t, s, n, uint64(rep)+500, ev.Add)
		res, err := ev.Result(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{DR, WDR} {
			e := res.Estimates[name]
			if !e.EmpiricalBernstein.contains(p.TrueValue) {
				miss[name] += 1.0 / reps
			}
			bias[name] += (float64(e.Value) - p.TrueValue) / reps
		}
	}
	for _, name := range []string{DR, WDR} {
		t.Logf("%s: miss rate %.3f, mean error %.4f", name, miss[name], bias[name])
		if miss[name] > delta {
			t.Errorf("%s misses V in %.3f of the logs (δ = %g)", name, miss[name], delta)
		}
	}
}
