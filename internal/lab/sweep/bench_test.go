package sweep

import (
	"context"
	"testing"

	"github.com/piopt/piopt/ope"
)

// mslrPlan prepares the paper's large setting: M = 100 candidates, ℓ = 10
// slots, p_1 logging, on queries of 120 documents with 4 features.
func mslrPlan(b *testing.B, queries int) *ope.Plan {
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
	est, _ := ope.ParseEstimators("pi,wpi,ips,wips,onpolicy")
	const n = 200000
	b.ResetTimer()
	for range b.N {
		if _, err := Sweep(context.Background(), p, Config{Samples: n, Runs: 1, Seed: 1, Estimators: est, Threads: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/sample")
}
