package ranker

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// mat flattens a docs × slots matrix given row by row (one row per doc).
func mat(rows ...[]float64) ([]float64, int) {
	var s []float64
	for _, r := range rows {
		s = append(s, r...)
	}
	return s, len(rows[0])
}

func TestGreedyHandMade(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name  string
		rows  [][]float64
		slots int
		want  []int32
	}{
		{"distinct", [][]float64{{1, 5, 2}, {4, 3, 9}, {8, 0, 1}}, 3, []int32{2, 0, 1}},
		// (doc 1, slot 3) = 9 first; then (doc 2, slot 1) = 8; then doc 0 in slot 2.
		{"greedy loses", [][]float64{{10, 9}, {9, 0}}, 2, []int32{0, 1}},
		// All equal: lower slot first, then lower doc.
		{"all ties", [][]float64{{1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}}, 3, []int32{0, 1, 2}},
		// Tie between (doc 1, slot 2) and (doc 2, slot 1): slot 1 wins.
		{"slot tie", [][]float64{{0, 0}, {0, 7}, {7, 0}}, 2, []int32{2, 1}},
		// Tie between docs 1 and 2 in slot 1: doc 1 wins.
		{"doc tie", [][]float64{{0, 0}, {7, 1}, {7, 2}}, 2, []int32{1, 2}},
		// m = 2 < ℓ = 3: two slots, the third column (NaN) is never read.
		{"m < l", [][]float64{{1, 3, nan}, {2, 0, nan}}, 2, []int32{1, 0}},
		{"one doc", [][]float64{{-4, nan, nan}}, 1, []int32{0}},
		{"negative", [][]float64{{-1, -2}, {-3, -0.5}, {-2, -9}}, 2, []int32{0, 1}},
	}
	var s SlateSolver
	for _, c := range cases {
		sc, stride := mat(c.rows...)
		slate := make([]int32, c.slots)
		obj := s.Greedy(sc, stride, slate)
		if !slices.Equal(slate, c.want) {
			t.Errorf("%s: slate %v, want %v", c.name, slate, c.want)
		}
		if want := objective(sc, stride, c.want); obj != want {
			t.Errorf("%s: objective %v, want %v", c.name, obj, want)
		}
	}
}

func TestExactHandMade(t *testing.T) {
	cases := []struct {
		name  string
		rows  [][]float64
		slots int
		want  []int32
		obj   float64
	}{
		// Greedy takes (doc 0, slot 1) = 10 and is left with 0: 10 < 18.
		{"greedy loses", [][]float64{{10, 9}, {9, 0}}, 2, []int32{1, 0}, 18},
		// Greedy is optimal: exact keeps its slate among tied maximisers.
		{"ties keep greedy", [][]float64{{1, 1}, {1, 1}, {1, 1}}, 2, []int32{0, 1}, 2},
		{"m < l", [][]float64{{5, 4, 0}, {4, 0, 0}}, 2, []int32{1, 0}, 8},
		// Three slots, greedy optimal.
		{"three slots", [][]float64{{9, 9, 9}, {8, 9, 1}, {1, 1, 9}, {7, 0, 0}}, 3, []int32{0, 1, 2}, 27},
	}
	var s SlateSolver
	for _, c := range cases {
		sc, stride := mat(c.rows...)
		slate := make([]int32, c.slots)
		obj := s.Exact(sc, stride, slate)
		if !slices.Equal(slate, c.want) || obj != c.obj {
			t.Errorf("%s: slate %v objective %v, want %v %v", c.name, slate, obj, c.want, c.obj)
		}
	}
}

// bruteForce returns the best objective over all slates without repetition.
func bruteForce(sc []float64, stride, lx int) float64 {
	m := len(sc) / stride
	best := math.Inf(-1)
	slate := make([]int32, lx)
	used := make([]bool, m)
	var rec func(j int, acc float64)
	rec = func(j int, acc float64) {
		if j == lx {
			best = math.Max(best, acc)
			return
		}
		for a := range m {
			if !used[a] {
				used[a] = true
				slate[j] = int32(a)
				rec(j+1, acc+sc[a*stride+j])
				used[a] = false
			}
		}
	}
	rec(0, 0)
	return best
}

func validSlate(t *testing.T, slate []int32, m int) {
	t.Helper()
	seen := map[int32]bool{}
	for _, a := range slate {
		if a < 0 || int(a) >= m || seen[a] {
			t.Fatalf("invalid slate %v for %d docs", slate, m)
		}
		seen[a] = true
	}
}

// Exact matches brute force on random small cases (continuous scores and
// small integers with many ties); greedy never beats it.
func TestExactBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var s SlateSolver
	losses := 0
	const trials = 20000
	for trial := range trials {
		m := 1 + rng.IntN(7)
		stride := 1 + rng.IntN(5)
		lx := min(m, stride, 1+rng.IntN(5))
		sc := make([]float64, m*stride)
		for i := range sc {
			if trial%2 == 0 {
				sc[i] = rng.NormFloat64()
			} else {
				sc[i] = float64(rng.IntN(4))
			}
		}
		bf := bruteForce(sc, stride, lx)
		ex := make([]int32, lx)
		obj := s.Exact(sc, stride, ex)
		validSlate(t, ex, m)
		if math.Abs(obj-bf) > 1e-9 || math.Abs(objective(sc, stride, ex)-bf) > 1e-9 {
			t.Fatalf("trial %d: exact %v (slate %v), brute force %v; scores %v stride %d", trial, obj, ex, bf, sc, stride)
		}
		gr := make([]int32, lx)
		g := s.Greedy(sc, stride, gr)
		validSlate(t, gr, m)
		if g > obj+1e-12 {
			t.Fatalf("trial %d: greedy %v beats exact %v", trial, g, obj)
		}
		if g < obj-1e-9 {
			losses++
		} else if !slices.Equal(gr, ex) {
			t.Fatalf("trial %d: greedy optimal but exact returned another slate %v vs %v", trial, ex, gr)
		}
	}
	t.Logf("greedy suboptimal in %d of %d random cases", losses, trials)
	if losses == 0 {
		t.Error("greedy was never suboptimal: the comparison is not exercised")
	}
}

func TestTop(t *testing.T) {
	var s SlateSolver
	cases := []struct {
		scores []float64
		k      int
		want   []int32
	}{
		{[]float64{3, 1, 4, 1, 5, 9, 2, 6}, 3, []int32{5, 7, 4}},
		{[]float64{2, 2, 2, 2}, 3, []int32{0, 1, 2}},
		{[]float64{1, 2, 2, 3}, 3, []int32{3, 1, 2}},
		{[]float64{-1, -1, 0}, 3, []int32{2, 0, 1}},
		{[]float64{7}, 1, []int32{0}},
		{[]float64{7, 8}, 0, []int32{}},
	}
	for _, c := range cases {
		slate := make([]int32, c.k)
		s.Top(c.scores, slate)
		if !slices.Equal(slate, c.want) {
			t.Errorf("Top(%v, %d) = %v, want %v", c.scores, c.k, slate, c.want)
		}
	}
}

// Every ordered pair of distinct docs is equally likely.
func TestRandomUniform(t *testing.T) {
	var s SlateSolver
	rng := rand.New(rand.NewPCG(7, 8))
	const m, l, n = 4, 2, 120000
	counts := map[[2]int32]int{}
	slate := make([]int32, l)
	for range n {
		s.Random(m, rng, slate)
		validSlate(t, slate, m)
		counts[[2]int32{slate[0], slate[1]}]++
	}
	if len(counts) != m*(m-1) {
		t.Fatalf("%d distinct slates, want %d", len(counts), m*(m-1))
	}
	p := 1.0 / float64(m*(m-1))
	sd := math.Sqrt(n * p * (1 - p))
	for k, c := range counts {
		if math.Abs(float64(c)-n*p) > 5*sd {
			t.Errorf("slate %v drawn %d times, expected %.0f ± %.0f", k, c, n*p, sd)
		}
	}
}

func TestSolverDoesNotAllocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	sc := make([]float64, 200*3)
	for i := range sc {
		sc[i] = rng.NormFloat64()
	}
	var s SlateSolver
	slate := make([]int32, 3)
	s.Exact(sc, 3, slate)
	s.Random(200, rng, slate)
	for name, f := range map[string]func(){
		"greedy": func() { s.Greedy(sc, 3, slate) },
		"exact":  func() { s.Exact(sc, 3, slate) },
		"top":    func() { s.Top(sc, slate) },
		"random": func() { s.Random(200, rng, slate) },
	} {
		if a := testing.AllocsPerRun(100, f); a != 0 {
			t.Errorf("%s: %v allocations per slate", name, a)
		}
	}
}

func BenchmarkSlate(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, m := range []int{120, 1200} {
		sc := make([]float64, m*3)
		for i := range sc {
			sc[i] = rng.NormFloat64()
		}
		slate := make([]int32, 3)
		var s SlateSolver
		b.Run(fmt.Sprintf("greedy/m=%d", m), func(b *testing.B) {
			for b.Loop() {
				s.Greedy(sc, 3, slate)
			}
		})
		b.Run(fmt.Sprintf("exact/m=%d", m), func(b *testing.B) {
			for b.Loop() {
				s.Exact(sc, 3, slate)
			}
		})
	}
}

func ExampleSlateSolver_Greedy() {
	// Two documents, two slots: scores[doc*2 + slot].
	scores := []float64{
		10, 9, // doc 0
		9, 0, // doc 1
	}
	var s SlateSolver
	slate := make([]int32, 2)
	g := s.Greedy(scores, 2, slate)
	fmt.Println("greedy", slate, g)
	e := s.Exact(scores, 2, slate)
	fmt.Println("exact", slate, e)
	// Output:
	// greedy [0 1] 10
	// exact [1 0] 18
}
