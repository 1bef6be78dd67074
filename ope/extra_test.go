package ope_test

import (
	"context"
	"math"
	"testing"

	"github.com/piopt/piopt/ope"
)

// meanReward is a toy estimator, defined here alone: the mean logged
// reward, the value of the logging policy (not of the target).
type meanReward struct {
	n   int64
	sum float64
}

func (m *meanReward) Names() []string { return []string{"mean-reward"} }

func (m *meanReward) Add(s *ope.Sample) {
	m.n++
	m.sum += s.Reward
}

func (m *meanReward) Estimate(_ context.Context, sum *ope.Summary) ([]*ope.Estimate, error) {
	return []*ope.Estimate{{Value: ope.Float(m.sum / float64(max(m.n, 1))), N: sum.N}}, nil
}

// TestExtraEstimator: an estimator of the caller's own joins the Result
// after the built-in ones, which it leaves as they were.
func TestExtraEstimator(t *testing.T) {
	plan := examplePlan()
	log := [][3]float64{{0, 1, 1}, {1, 0, 0.5}, {0, 2, 0.25}, {1, 3, 0}} // query, slot-1 candidate, reward
	eval := func(extra ...ope.Estimator) *ope.Result {
		ev, err := plan.NewEvaluator(ope.EvalOptions{Estimators: ope.Estimators{PI: true, WPI: true},
			Intervals: ope.Intervals{Delta: 0.05, RewardHi: 1, Bootstrap: 10, Seed: 1}, Extra: extra})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range log {
			a := int32(x[1])
			ev.Add(int(x[0]), []int32{a, (a + 1) % 4}, x[2])
		}
		res, err := ev.Result(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res, base := eval(&meanReward{}), eval()
	if got := res.Names; len(got) != 3 || got[2] != "mean-reward" {
		t.Fatalf("names %v", got)
	}
	if v := float64(res.Estimates["mean-reward"].Value); math.Abs(v-1.75/4) > 1e-15 || res.Estimates["mean-reward"].N != 4 {
		t.Errorf("mean reward %v", res.Estimates["mean-reward"])
	}
	for _, name := range base.Names {
		if a, b := res.Estimates[name], base.Estimates[name]; a.Value != b.Value || *a.Bootstrap != *b.Bootstrap {
			t.Errorf("%s: %v with the extra estimator, %v without", name, a, b)
		}
	}
	ev, err := plan.NewEvaluator(ope.EvalOptions{Estimators: ope.Estimators{PI: true}, Intervals: ope.Intervals{Delta: 0.05, RewardHi: 1},
		Extra: []ope.Estimator{&meanReward{}, &meanReward{}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ev.Result(context.Background()); err == nil {
		t.Error("two estimators of one name: no error")
	}
}
