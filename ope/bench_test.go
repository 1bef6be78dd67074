package ope

import "testing"

// mslrPlan prepares the paper's large setting, which every benchmark here
// measures: M = 100 candidates, ℓ = 10 slots, p_1 logging, on queries of
// 120 documents with 4 features.
func mslrPlan(b *testing.B, queries int) *Plan {
	sizes := make([]int, queries)
	for i := range sizes {
		sizes[i] = 120
	}
	return prepare(b, setup(b, testData(sizes, 4, 1), 100, 10, "pa:1"))
}

// BenchmarkEvaluatorAdd measures folding one logged sample into every
// streaming estimator with a 200-replicate bootstrap, as `piopt evaluate`
// does (M = 100, ℓ = 10, p_1).
func BenchmarkEvaluatorAdd(b *testing.B) {
	p := mslrPlan(b, 100)
	ev, _ := p.NewEvaluator(EvalOptions{Estimators: Estimators{PI: true, WPI: true, IPS: true, WIPS: true},
		Intervals: Intervals{Delta: 0.05, RewardHi: 1, Bootstrap: 200}})
	slate := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	b.ResetTimer()
	for i := range b.N {
		ev.Add(i%100, slate, 0.5)
	}
}
