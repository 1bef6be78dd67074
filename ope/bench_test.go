package ope

import (
	"context"
	"testing"
)

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

// BenchmarkSweepMSLRShape measures the fused streaming pass of the sweep
// (simulate a slate, score it, PI weight, IPS match, sums) at the paper's
// large setting: M = 100 candidates, ℓ = 10 slots, p_1 logging, on 600
// queries of 120 documents. It reports ns per logged sample.
func BenchmarkSweepMSLRShape(b *testing.B) {
	p := mslrPlan(b, 600)
	est, _ := ParseEstimators("pi,wpi,ips,wips,onpolicy")
	const n = 200000
	b.ResetTimer()
	for range b.N {
		if _, err := p.Sweep(context.Background(), SweepConfig{Samples: n, Runs: 1, Seed: 1, Estimators: est, Threads: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/sample")
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
