package ope

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/piopt/piopt/data"
)

// handResult evaluates TestHandComputedUniform's two-sample log (PI 2.25,
// wPI 1.125, IPS 3, wIPS 1, OnPolicy 1) with the reward range [0, hi].
func handResult(t *testing.T, hi float64) *Result {
	t.Helper()
	ds := &data.Dataset{NumFeatures: 2, Features: []float32{9, 9, 5, 5, 1, 1}, Labels: []uint8{2, 1, 0},
		QueryOffsets: []int{0, 3}, QIDs: []string{"q"}}
	p := prepare(t, setup(t, ds, 0, 2, "uniform"))
	ev, err := p.NewEvaluator(EvalOptions{Estimators: Estimators{PI: true, WPI: true, IPS: true, WIPS: true, OnPolicy: true},
		Intervals: Intervals{Delta: 0.05, RewardHi: hi, Bootstrap: 20, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	ev.Add(0, []int32{0, 1}, 1)
	ev.Add(0, []int32{1, 2}, 0.5)
	res, err := ev.Result(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestValueOutsideRewardRange: an estimate outside the reward range keeps
// its value, and its intervals (clipped to the range) come with a warning;
// within the range, nothing is added (internal/evalreport marks them in
// the table).
func TestValueOutsideRewardRange(t *testing.T) {
	const msg = "the estimate %s is outside the reward range [0, %g]: its intervals are clipped to the range, the estimate is not"
	for _, tc := range []struct {
		hi      float64
		outside map[string]string // estimator: its value as printed
	}{
		{1, map[string]string{PI: "2.25", WPI: "1.125", IPS: "3"}}, // wIPS is 1, OnPolicy has no interval
		{3, map[string]string{}},                                   // 3 itself is inside
		{2, map[string]string{PI: "2.25", IPS: "3"}},
	} {
		res := handResult(t, tc.hi)
		for _, name := range res.Names {
			e := res.Estimates[name]
			v, out := tc.outside[name]
			want := fmt.Sprintf(msg, v, tc.hi)
			if has := slices.Contains(e.Warnings, want); has != out {
				t.Errorf("hi %g, %s %g: warnings %q, want the range warning: %v", tc.hi, name, float64(e.Value), e.Warnings, out)
			}
			if out && e.Bernstein.Hi != tc.hi {
				t.Errorf("hi %g, %s: Bernstein %+v not clipped to the range", tc.hi, name, *e.Bernstein)
			}
		}
	}
}

// TestOnPolicyWarningNamesCause: OnPolicy without a true value says what
// is missing: the log's metric (no Scorer), a deterministic target, or both.
func TestOnPolicyWarningNamesCause(t *testing.T) {
	const noMetric = "the reward metric, which the log's header does not give (no metric=; give --metric ndcg or err)"
	ds := testData([]int{4, 5}, 3, 1)
	for _, tc := range []struct {
		scorer, stochastic bool
		want               string
	}{
		{false, false, "OnPolicy needs " + noMetric},
		{true, true, "OnPolicy needs a deterministic target (logging is stochastic)"},
		{false, true, "OnPolicy needs a deterministic target (logging is stochastic) and " + noMetric},
	} {
		s := setup(t, ds, 0, 2, "uniform")
		if !tc.scorer {
			s.Scorer = nil
		}
		if tc.stochastic {
			tg, err := loggingTarget("logging", s.Candidates, 2, s.Gammas)
			if err != nil {
				t.Fatal(err)
			}
			s.Target = tg
		}
		ev, err := prepare(t, s).NewEvaluator(EvalOptions{Estimators: Estimators{OnPolicy: true}, Intervals: Intervals{Delta: 0.05, RewardHi: 1}})
		if err != nil {
			t.Fatal(err)
		}
		ev.Add(0, []int32{0, 1}, 1)
		res, err := ev.Result(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if w := res.Estimates[OnPolicy].Warnings; len(w) != 1 || w[0] != tc.want {
			t.Errorf("scorer %v, stochastic %v: warnings %q, want %q", tc.scorer, tc.stochastic, w, tc.want)
		}
	}
}
