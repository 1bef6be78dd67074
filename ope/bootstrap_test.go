package ope

import (
	"fmt"
	"math"
	"testing"

	"github.com/piopt/piopt/eval"
)

func TestPoissonTable(t *testing.T) {
	// The thresholds are the Poisson(1) CDF scaled to 2³²: the mean and
	// variance of the tabulated distribution are 1 to within 1e-8 (the 2⁻³² resolution of the cuts).
	var mean, second float64
	prev := 0.0
	for k, c := range poissonCut {
		p := (float64(c) - prev) / (1 << 32)
		prev = float64(c)
		mean += float64(k) * p
		second += float64(k*k) * p
	}
	if prev != 1<<32 {
		t.Fatal("the table does not end at 2³²")
	}
	if !near(mean, 1, 1e-8) || !near(second-mean*mean, 1, 1e-8) {
		t.Fatalf("tabulated Poisson mean %g variance %g", mean, second-mean*mean)
	}
	if poissonCut[0] != uint64(math.Round(math.Exp(-1)*(1<<32))) {
		t.Fatal("P(K = 0) is not e⁻¹")
	}
}

func TestBootstrapCounts(t *testing.T) {
	// With reward 1 and weight 1 every replicate's Σk is its resample size:
	// about n on average, with variance n across replicates.
	const n, reps = 1000, 4000
	b := NewBootstrap(reps, 1, 7)
	w := []float64{1}
	for range n {
		b.Add(1, w)
	}
	mean, std := eval.MeanStd(b.count)
	if !near(mean, n, 3*math.Sqrt(n/float64(reps))*2) || !near(std*std/n, 1, 0.1) {
		t.Fatalf("resample sizes: mean %g std %g", mean, std)
	}
	// Every replicate of a constant estimate is that constant.
	iv := b.Interval(0, true, 0.05)
	if iv != (Interval{1, 1}) {
		t.Fatalf("constant data: %+v", iv)
	}
}

func TestBootstrapDeterministic(t *testing.T) {
	run := func(seed uint64) Interval {
		b := NewBootstrap(100, 2, seed)
		for i := range 500 {
			r := float64(i%7) / 7
			b.Add(r, []float64{float64(i % 3), 1})
		}
		return b.Interval(0, false, 0.1)
	}
	if run(5) != run(5) {
		t.Fatal("same seed, different interval")
	}
	if run(5) == run(6) {
		t.Fatal("different seeds, same interval")
	}
}

func TestBootstrapChannelsShareCounts(t *testing.T) {
	// Channel 1 carries twice channel 0's weight: its self-normalised
	// replicates are identical, its plain replicates doubled.
	b := NewBootstrap(50, 2, 1)
	for i := range 300 {
		w := float64(i%4) + 0.5
		b.Add(float64(i%5)/5, []float64{w, 2 * w})
	}
	a, c := b.Estimates(0, true), b.Estimates(1, true)
	p, q := b.Estimates(0, false), b.Estimates(1, false)
	for j := range a {
		if !near(a[j], c[j], 1e-12) || !near(2*p[j], q[j], 1e-12) {
			t.Fatalf("replicate %d: %g %g %g %g", j, a[j], c[j], p[j], q[j])
		}
	}
}

func TestPercentileInterval(t *testing.T) {
	// Quantiles 0.25 and 0.75 of 1..5 by linear interpolation: 2 and 4.
	if iv := percentileInterval([]float64{5, 3, 1, 4, 2}, 0.5); iv != (Interval{2, 4}) {
		t.Fatalf("%+v", iv)
	}
	// 0.05 and 0.95 of 0..10: 0.5 and 9.5.
	xs := []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}
	if iv := percentileInterval(xs, 0.1); !near(iv.Lo, 0.5, 1e-12) || !near(iv.Hi, 9.5, 1e-12) {
		t.Fatalf("%+v", iv)
	}
}

func ExampleBootstrap() {
	// Two weight channels (PI weights and IPS ratios) of the same log share
	// their Poisson counts.
	b := NewBootstrap(200, 2, 42)
	for i := range 1000 {
		r := float64(i%10) / 10
		b.Add(r, []float64{1, 1})
	}
	iv := b.Interval(0, false, 0.05)
	fmt.Printf("[%.2f, %.2f]\n", iv.Lo, iv.Hi)
	// Output: [0.43, 0.47]
}

// BenchmarkBootstrapAdd measures one sample folded into 200 replicates of
// two channels, as `piopt evaluate` does for PI and IPS.
func BenchmarkBootstrapAdd(b *testing.B) {
	boot := NewBootstrap(200, 2, 1)
	w := []float64{1.5, 0}
	for i := range b.N {
		boot.Add(float64(i&7)/8, w)
	}
}
