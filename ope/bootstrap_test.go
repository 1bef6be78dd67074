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
	for i := range n {
		b.Add(ContextKey("q"), int64(i), 1, w)
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
			b.Add(uint64(i%11), int64(i/11), r, []float64{float64(i % 3), 1})
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
		b.Add(uint64(i%3), int64(i/3), float64(i%5)/5, []float64{w, 2 * w})
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
		// Context i mod 7, its (i/7)-th impression.
		b.Add(ContextKey(fmt.Sprint(i%7)), int64(i/7), r, []float64{1, 1})
	}
	iv := b.Interval(0, false, 0.05)
	fmt.Printf("[%.2f, %.2f]\n", iv.Lo, iv.Hi)
	// Output: [0.43, 0.47]
}

// TestBootstrapSplitAnyWay: the replicates of a log do not depend on the
// order of its samples across contexts, nor on how the log is split into
// parts merged later: a sample's counts depend on (seed, context, its
// index in its context) alone, and the sums are exact.
func TestBootstrapSplitAnyWay(t *testing.T) {
	type sample struct {
		key  uint64
		j    int64
		r, w float64
	}
	var log []sample
	seen := map[uint64]int64{}
	for i := range 600 {
		key := ContextKey(fmt.Sprint(i % 13))
		log = append(log, sample{key, seen[key], float64(i%7) / 7, math.Sin(float64(i)) * 3})
		seen[key]++
	}
	one := NewBootstrap(64, 1, 9)
	for _, s := range log {
		one.Add(s.key, s.j, s.r, []float64{s.w})
	}
	// Three parts by context, each read backwards.
	parts := []*Bootstrap{NewBootstrap(64, 1, 9), NewBootstrap(64, 1, 9), NewBootstrap(64, 1, 9)}
	for i := len(log) - 1; i >= 0; i-- {
		s := log[i]
		parts[s.key%3].Add(s.key, s.j, s.r, []float64{s.w})
	}
	for _, p := range parts[1:] {
		if err := parts[0].Merge(p); err != nil {
			t.Fatal(err)
		}
	}
	for _, selfNorm := range []bool{false, true} {
		a, b := one.Estimates(0, selfNorm), parts[0].Estimates(0, selfNorm)
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				t.Fatalf("replicate %d: one pass %v, merged parts %v", i, a[i], b[i])
			}
		}
	}
	if err := one.Merge(NewBootstrap(64, 1, 8)); err == nil {
		t.Fatal("bootstraps of different seeds merged")
	}
}

// TestBootstrapPoissonCounts: a sample's counts over many replicates are
// Poisson(1): mean 1, variance 1, P(0) = e⁻¹.
func TestBootstrapPoissonCounts(t *testing.T) {
	const reps = 20000
	b := NewBootstrap(reps, 1, 3)
	b.Add(ContextKey("x"), 5, 1, []float64{1})
	zeros, sum, sum2 := 0, 0.0, 0.0
	for _, k := range b.count {
		if k == 0 {
			zeros++
		}
		sum += k
		sum2 += k * k
	}
	mean := sum / reps
	if v := sum2/reps - mean*mean; !near(mean, 1, 0.03) || !near(v, 1, 0.05) || !near(float64(zeros)/reps, math.Exp(-1), 0.01) {
		t.Fatalf("counts: mean %g variance %g P(0) %g", mean, v, float64(zeros)/reps)
	}
}

// BenchmarkBootstrapAdd measures one sample folded into 200 replicates of
// two channels, as `piopt evaluate` does for PI and IPS.
func BenchmarkBootstrapAdd(b *testing.B) {
	boot := NewBootstrap(200, 2, 1)
	w := []float64{0.7, 1.3}
	for i := 0; i < b.N; i++ {
		boot.Add(uint64(i%97), int64(i/97), 0.5, w)
	}
}
