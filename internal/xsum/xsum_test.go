package xsum

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exact returns the correctly rounded sum of xs (all finite) by big.Float
// with enough precision to hold every partial sum.
func exact(xs []float64) float64 {
	acc := new(big.Float).SetPrec(4096)
	for _, x := range xs {
		acc.Add(acc, new(big.Float).SetPrec(4096).SetFloat64(x))
	}
	f, _ := acc.Float64()
	return f
}

func sumOf(xs []float64) float64 {
	var s Sum
	for _, x := range xs {
		s.Add(x)
	}
	return s.Float64()
}

// TestHandCases: cancellations a float loop gets wrong, subnormals, the
// largest float64 and an overflow.
func TestHandCases(t *testing.T) {
	max := math.MaxFloat64
	tiny := math.SmallestNonzeroFloat64
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{1e100, 1, -1e100}, 1},                 // a float loop gives 0
		{[]float64{0.1, 0.2, 0.3}, 0.6},                  // 0.1+0.2+0.3 is 0.6000000000000001 in a loop
		{[]float64{1, 1e-16, 1e-16}, 1.0000000000000002}, // a loop gives 1
		{[]float64{tiny, tiny, -tiny}, tiny},
		{[]float64{max, -max, max}, max},
		{[]float64{max, max}, math.Inf(1)},
		{[]float64{-3.5, 2.25}, -1.25},
		{[]float64{math.Inf(1), 1}, math.Inf(1)},
	} {
		if got := sumOf(c.xs); got != c.want {
			t.Errorf("sum %v = %v, want %v", c.xs, got, c.want)
		}
	}
	if got := sumOf([]float64{math.Inf(1), math.Inf(-1)}); !math.IsNaN(got) {
		t.Errorf("Inf − Inf = %v, want NaN", got)
	}
}

// TestRandomOrders: random terms over the whole exponent range sum to
// big.Float's correctly rounded sum, in any order and split in any way.
func TestRandomOrders(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 1 + rng.IntN(300)
		xs := make([]float64, n)
		for i := range xs {
			e := rng.IntN(80) - 40
			if trial%5 == 0 {
				e = rng.IntN(2000) - 1070
			}
			xs[i] = math.Ldexp(rng.Float64()-0.5, e)
		}
		want := exact(xs)
		if got := sumOf(xs); got != want {
			t.Fatalf("trial %d: sum %v, want %v", trial, got, want)
		}
		rng.Shuffle(n, func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
		cut := rng.IntN(n + 1)
		var a, b Sum
		for _, x := range xs[:cut] {
			a.Add(x)
		}
		for _, x := range xs[cut:] {
			b.Add(x)
		}
		b.AddSum(&a)
		if got := b.Float64(); got != want {
			t.Fatalf("trial %d: merged sum %v, want %v", trial, got, want)
		}
		p, err := Parse(b.String())
		if err != nil || p.Float64() != want {
			t.Fatalf("trial %d: %q parses to %v (%v), want %v", trial, b.String(), p.Float64(), err, want)
		}
	}
}

// TestCarry: the carry pass taken every 2²⁹ additions keeps the value.
func TestCarry(t *testing.T) {
	var s Sum
	s.adds = carryEvery - 3
	for range 7 {
		s.Add(-0.75)
		s.Add(math.Ldexp(1, 60))
	}
	if got, want := s.Float64(), 7*(math.Ldexp(1, 60)-0.75); got != want {
		t.Fatalf("sum across a carry %v, want %v", got, want)
	}
	if s.adds >= carryEvery {
		t.Fatalf("no carry pass: %d adds pending", s.adds)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, bad := range []string{"", "-", "xyz", "1/2", "1/", "10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	s, err := Parse("-a/+Inf")
	if err != nil || !math.IsInf(s.Float64(), 1) {
		t.Errorf("Parse(-a/+Inf) = %v, %v", s.Float64(), err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("1f")
	f.Add("-3/NaN")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Parse(text)
		if err != nil {
			return
		}
		back, err := Parse(s.String())
		if err != nil || back.String() != s.String() {
			t.Fatalf("%q → %q → %q (%v)", text, s.String(), back.String(), err)
		}
	})
}

func BenchmarkAdd(b *testing.B) {
	xs := make([]float64, 1024)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range xs {
		xs[i] = rng.NormFloat64()
	}
	var s Sum
	for i := 0; i < b.N; i++ {
		s.Add(xs[i&1023])
	}
}
