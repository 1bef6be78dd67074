package ope_test

import (
	"context"
	"fmt"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/ranker"
)

// exampleData is two queries of 4 documents with 2 features.
func exampleData() *data.Dataset {
	return &data.Dataset{
		NumFeatures: 2,
		Features: []float32{
			4, 1, 3, 4, 2, 2, 1, 3, // query a: feature 1 ranks 0,1,2,3; feature 2 ranks 1,3,2,0
			1, 2, 2, 1, 3, 4, 4, 3,
		},
		Labels:       []uint8{0, 2, 1, 0, 1, 0, 2, 0},
		QueryOffsets: []int{0, 4, 8},
		QIDs:         []string{"a", "b"},
		Source:       "example",
	}
}

// examplePlan is the plan of a target showing candidates 1 and 3 on both
// queries of exampleData, logged uniformly at random.
func examplePlan() *ope.Plan {
	cands, _ := impute.NewCandidates(exampleData(), nil, 0)
	target, _ := ope.NewDeterministicTarget("mine", cands, 2, func(int) []int32 { return []int32{1, 3} })
	plan, _ := ope.Prepare(context.Background(), ope.Setup{Candidates: cands, Slots: 2, Target: target,
		Gammas: impute.NewGammaCache(impute.Uniform(), impute.GammaOptions{})})
	return plan
}

// Evaluate a target policy on a log of five impressions drawn uniformly:
// PI and wPI weigh each logged slate by q_πᵀΓ†1_s, IPS and wIPS by
// 1{s = s*}/μ(s*|x) = 12 or 0.
func Example() {
	plan := examplePlan() // Γ† per query and the target's q_π, once
	ev, _ := plan.NewEvaluator(ope.EvalOptions{
		Estimators: ope.Estimators{PI: true, WPI: true, IPS: true, WIPS: true},
		Intervals:  ope.Intervals{Delta: 0.05, RewardLo: 0, RewardHi: 1}})
	log := []struct {
		query  int
		slate  []int32 // candidate indices, slot 1 first
		reward float64
	}{{0, []int32{1, 3}, 0.9}, {0, []int32{0, 1}, 0.4}, {1, []int32{3, 2}, 0.5}, {1, []int32{2, 0}, 0}, {0, []int32{1, 2}, 0.7}}
	for _, x := range log {
		ev.Add(x.query, x.slate, x.reward)
	}
	res, _ := ev.Result(context.Background())
	for _, name := range res.Names {
		e := res.Estimates[name]
		fmt.Printf("%-4s %.3f  mean weight %.2f, ESS %.2f\n", name, e.Value, e.Weights.Mean, e.Weights.ESS)
	}
	// Five samples are few: the estimates fall outside the reward range
	// [0, 1] (and warn so); ExampleEvaluator draws a long log. By the
	// closed form of uniform logging (docs/design.md) the five PI weights
	// are 7, −0.5, −0.5, −2 and 2.5, and only the first slate is s*.

	// Output:
	// pi   1.520  mean weight 1.30, ESS 0.71
	// wpi  1.169  mean weight 1.30, ESS 0.71
	// ips  2.160  mean weight 2.40, ESS 1.00
	// wips 0.900  mean weight 2.40, ESS 1.00
}

// Evaluate the top-2 slate of feature 2 from a log drawn uniformly, with
// the paper's Bernstein interval.
func ExampleEvaluator() {
	// Query a's labels are 0 2 1 0 and feature 2 ranks its docs 1, 3, 2, 0:
	// the target shows (1, 3), NDCG@2 = 3/(3 + 1/log2 3) = 0.826; query b
	// alike. Uniform logging over 4 docs, 2 slots: σ² = ρ = 1 + ℓ(m−1) = 7.
	ds := exampleData()
	cands, _ := impute.NewCandidates(ds, nil, 0)
	scores, _ := ranker.FeatureSource(2).Scores(context.Background(), ds)
	target, _ := ope.TopTarget("feature:2", cands, 2, scores)
	metric := eval.Metric{Kind: eval.KindNDCG, K: 2, Conventions: eval.Conventions{MaxRel: 2}}
	scorer := eval.NewScorer(metric, cands.Labels(), cands.Offsets())
	plan, _ := ope.Prepare(context.Background(), ope.Setup{
		Candidates: cands, Gammas: impute.NewGammaCache(impute.Uniform(), impute.GammaOptions{}),
		Slots: 2, Target: target, Scorer: scorer})

	ev, _ := plan.NewEvaluator(ope.EvalOptions{
		Estimators: ope.Estimators{PI: true, WPI: true, IPS: true},
		Intervals:  ope.Intervals{Delta: 0.05, RewardLo: 0, RewardHi: 1}})
	sim := impute.Simulation{Candidates: cands, Logging: impute.Uniform(), Slots: 2, Reward: scorer, Seed: 1}
	_ = sim.Run(context.Background(), 100000, func(q int, s []int32, r float64) error {
		ev.Add(q, s, r)
		return nil
	})
	res, _ := ev.Result(context.Background())
	fmt.Printf("V(π) = %.3f\n", res.TrueValue)
	for _, name := range res.Names {
		e := res.Estimates[name]
		fmt.Printf("%-4s %.3f  Theorem 1: [%.3f, %.3f]\n", name, e.Value, e.Bernstein.Lo, e.Bernstein.Hi)
	}
	fmt.Printf("σ² = %.0f, ρ = %.0f\n", plan.Sigma2, max(-plan.WeightLo, plan.WeightHi))
	// Output:
	// V(π) = 0.826
	// pi   0.823  Theorem 1: [0.800, 0.846]
	// wpi  0.829  Theorem 1: [0.805, 0.852]
	// ips  0.817  Theorem 1: [0.787, 0.847]
	// σ² = 7, ρ = 7
}
