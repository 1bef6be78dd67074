package impute

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestParseLogging(t *testing.T) {
	tests := []struct {
		spec, canon string
		uniform     bool
	}{
		{"uniform", "uniform", true},
		{"pa:1", "pa:1", false},
		{"pa:0.5", "pa:0.5", false},
		{"pa:0", "pa:0", true},
		{" pa:2 ", "pa:2", false},
		{"eps:0.1,pa:1", "eps:0.1,pa:1", false},
		{"eps:1,pa:1", "eps:1,pa:1", true},
		{"eps:0.25,uniform", "eps:0.25,uniform", true},
	}
	for _, tc := range tests {
		lg, err := ParseLogging(tc.spec)
		if err != nil {
			t.Fatalf("%q: %v", tc.spec, err)
		}
		if lg.String() != tc.canon || lg.isUniform() != tc.uniform {
			t.Errorf("%q: String %q IsUniform %v, want %q %v", tc.spec, lg, lg.isUniform(), tc.canon, tc.uniform)
		}
		back, err := ParseLogging(lg.String())
		if err != nil || back != lg {
			t.Errorf("%q does not round-trip: %v %v", tc.spec, back, err)
		}
	}
	for _, bad := range []string{"", "unif", "pa", "pa:", "pa:x", "pa:-1", "pa:33", "pa:NaN", "eps:0.1", "eps:2,pa:1",
		"eps:-0.1,uniform", "eps:0.1,eps:0.1,pa:1", "eps:x,pa:1", "eps:0.1,pa:y"} {
		if _, err := ParseLogging(bad); err == nil {
			t.Errorf("ParseLogging(%q) accepted", bad)
		}
	}
}

func TestDistShapes(t *testing.T) {
	for _, bad := range [][2]int{{0, 0}, {3, 0}, {3, 4}, {-1, 1}} {
		if _, err := Uniform().Dist(bad[0], bad[1]); err == nil {
			t.Errorf("Dist(%d, %d) accepted", bad[0], bad[1])
		}
	}
	lg, _ := pa(1)
	for _, tc := range []struct {
		m     int
		sizes []int
	}{{1, []int{1}}, {2, []int{1, 1}}, {3, []int{1, 2}}, {7, []int{1, 2, 4}}, {8, []int{1, 2, 4, 1}}, {100, []int{1, 2, 4, 8, 16, 32, 37}}} {
		d, _ := lg.Dist(tc.m, 1)
		if got := d.classSizes(); fmt.Sprint(got) != fmt.Sprint(tc.sizes) {
			t.Errorf("pa m=%d: classes %v, want %v", tc.m, got, tc.sizes)
		}
	}
}

// Probabilities sum to 1 and agree with a hand computation.
func TestProbSumsToOne(t *testing.T) {
	for _, spec := range testSpecs {
		for _, sh := range shapes(1, 7) {
			d, _ := mustLogging(t, spec).Dist(sh[0], sh[1])
			sum, n := 0.0, 0
			d.EachSlate(func(s []int32, p float64) { sum += p; n++ })
			if math.Abs(sum-1) > 1e-12 || float64(n) != d.numSlates() {
				t.Errorf("%s %v: Σμ = %v over %d slates (NumSlates %v)", spec, sh, sum, n, d.numSlates())
			}
		}
	}
	d, _ := mustLogging(t, "eps:0.2,pa:1").Dist(3, 2)
	// p_1: weights 1, ½, ½. μ(2,0) = 0.8·(¼·(1/1.5)) + 0.2·(1/6).
	if got, want := d.Prob([]int32{2, 0}), 0.8*(0.25/1.5)+0.2/6; math.Abs(got-want) > 1e-15 {
		t.Errorf("μ(2,0) = %v, want %v", got, want)
	}
	for _, bad := range [][]int32{{0}, {0, 0}, {0, 3}, {-1, 0}, {0, 1, 2}} {
		if p := d.Prob(bad); p != 0 {
			t.Errorf("μ(%v) = %v, want 0", bad, p)
		}
	}
}

// Sampled slate frequencies match μ (within 5 standard errors).
func TestSampleFrequencies(t *testing.T) {
	const n = 200000
	for _, spec := range []string{"uniform", "pa:1", "pa:2", "eps:0.3,pa:2"} {
		d, _ := mustLogging(t, spec).Dist(5, 2)
		src := rand.NewPCG(12, 13)
		counts := map[[2]int32]int{}
		s := make([]int32, 2)
		for range n {
			d.Sample(src, s)
			counts[[2]int32{s[0], s[1]}]++
		}
		d.EachSlate(func(s []int32, p float64) {
			got := float64(counts[[2]int32{s[0], s[1]}]) / n
			if se := math.Sqrt(p * (1 - p) / n); math.Abs(got-p) > 5*se {
				t.Errorf("%s: slate %v frequency %.5f, μ = %.5f (se %.2g)", spec, s, got, p, se)
			}
		})
	}
}

// Sampling is a pure function of the generator and never repeats a doc.
func TestSampleDeterministicAndValid(t *testing.T) {
	for _, spec := range testSpecs {
		d, _ := mustLogging(t, spec).Dist(40, 6)
		a, b := rand.NewPCG(1, 1), rand.NewPCG(1, 1)
		s1, s2 := make([]int32, 6), make([]int32, 6)
		for range 1000 {
			d.Sample(a, s1)
			d.Sample(b, s2)
			if fmt.Sprint(s1) != fmt.Sprint(s2) {
				t.Fatalf("%s: same stream gave %v and %v", spec, s1, s2)
			}
			if d.Prob(s1) <= 0 {
				t.Fatalf("%s: sampled invalid slate %v", spec, s1)
			}
		}
	}
}

func TestSampleDoesNotAllocate(t *testing.T) {
	for _, spec := range []string{"uniform", "eps:0.5,pa:1"} {
		d, _ := mustLogging(t, spec).Dist(100, 10)
		src := rand.NewPCG(1, 2)
		s := make([]int32, 10)
		if n := testing.AllocsPerRun(100, func() { d.Sample(src, s) }); n != 0 {
			t.Errorf("%s: Sample allocates %v times", spec, n)
		}
	}
}

func ExampleParseLogging() {
	lg, err := ParseLogging("eps:0.1,pa:1")
	if err != nil {
		panic(err)
	}
	d, _ := lg.Dist(3, 2) // 3 ranked candidates, 2 slots
	fmt.Println(lg, lg.NeedsRanks())
	fmt.Printf("μ(0,1) = %.4f\n", d.Prob([]int32{0, 1}))
	// Output:
	// eps:0.1,pa:1 true
	// μ(0,1) = 0.2417
}
