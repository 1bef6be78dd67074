package impute

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// slotMajor turns a score table given one row per candidate (rows[a][j] =
// score of candidate a in slot j+1, readable as written) into the ℓm vector
// w[j*m+a] the solver reads.
func slotMajor(rows ...[]float64) (w []float64, m int) {
	m = len(rows)
	l := len(rows[0])
	w = make([]float64, l*m)
	for a, r := range rows {
		for j, v := range r {
			w[j*m+a] = v
		}
	}
	return w, m
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
		// m = 2 < 3 slots of scores: two slots, the third (NaN) is never read.
		{"m < l", [][]float64{{1, 3, nan}, {2, 0, nan}}, 2, []int32{1, 0}},
		{"one doc", [][]float64{{-4, nan, nan}}, 1, []int32{0}},
		{"negative", [][]float64{{-1, -2}, {-3, -0.5}, {-2, -9}}, 2, []int32{0, 1}},
	}
	var s SlateSolver
	for _, c := range cases {
		w, m := slotMajor(c.rows...)
		slate := make([]int32, c.slots)
		obj := s.Greedy(w, m, slate)
		if !slices.Equal(slate, c.want) {
			t.Errorf("%s: slate %v, want %v", c.name, slate, c.want)
		}
		if want := SlateSum(w, m, c.want); obj != want {
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
		w, m := slotMajor(c.rows...)
		slate := make([]int32, c.slots)
		obj := s.Exact(w, m, slate)
		if !slices.Equal(slate, c.want) || obj != c.obj {
			t.Errorf("%s: slate %v objective %v, want %v %v", c.name, slate, obj, c.want, c.obj)
		}
	}
}

// bruteForce returns the best objective over all slates of lx distinct
// candidates out of m.
func bruteForce(w []float64, m, lx int) float64 {
	best := math.Inf(-1)
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
				rec(j+1, acc+w[j*m+a])
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
			t.Fatalf("invalid slate %v for %d candidates", slate, m)
		}
		seen[a] = true
	}
}

// Exact matches brute force on random small cases (continuous scores and
// small integers with many ties); greedy never beats it, and where greedy is
// optimal Exact returns greedy's slate.
func TestExactBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var s SlateSolver
	losses := 0
	const trials = 20000
	for trial := range trials {
		m := 1 + rng.IntN(7)
		stride := 1 + rng.IntN(5) // slots of scores, ≥ the slate's
		lx := min(m, stride, 1+rng.IntN(5))
		w := make([]float64, stride*m)
		for i := range w {
			if trial%2 == 0 {
				w[i] = rng.NormFloat64()
			} else {
				w[i] = float64(rng.IntN(4))
			}
		}
		bf := bruteForce(w, m, lx)
		ex := make([]int32, lx)
		obj := s.Exact(w, m, ex)
		validSlate(t, ex, m)
		if math.Abs(obj-bf) > 1e-9 || math.Abs(SlateSum(w, m, ex)-bf) > 1e-9 {
			t.Fatalf("trial %d: exact %v (slate %v), brute force %v; w %v m %d", trial, obj, ex, bf, w, m)
		}
		gr := make([]int32, lx)
		g := s.Greedy(w, m, gr)
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

// weightRange returns the smallest and largest Σ_j w(j, s_j) over all slates
// of l distinct candidates out of m: the maxima of w and −w.
func weightRange(s *SlateSolver, w []float64, m, l int) (lo, hi float64) {
	slate := make([]int32, l)
	hi = s.Exact(w, m, slate)
	neg := make([]float64, len(w))
	for i, x := range w {
		neg[i] = -x
	}
	return -s.Exact(neg, m, slate), hi
}

// The extremes of Σ_j w(j, s_j) equal the extremes over every slate of
// Dist.EachSlate, and the maximising slate is a slate of the distribution.
func TestExactMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	var s SlateSolver
	for _, sh := range shapes(1, 8) {
		m, l := sh[0], sh[1]
		for range 5 {
			w := make([]float64, l*m)
			for i := range w {
				w[i] = rng.NormFloat64()
			}
			lo, hi := math.Inf(1), math.Inf(-1)
			d, _ := Uniform().Dist(m, l)
			d.EachSlate(func(sl []int32, _ float64) {
				v := SlateSum(w, m, sl)
				lo, hi = min(lo, v), max(hi, v)
			})
			glo, ghi := weightRange(&s, w, m, l)
			if math.Abs(glo-lo) > 1e-12 || math.Abs(ghi-hi) > 1e-12 {
				t.Fatalf("m=%d ℓ=%d: range [%v, %v], brute force [%v, %v]", m, l, glo, ghi, lo, hi)
			}
			sl := make([]int32, l)
			v := s.Exact(w, m, sl)
			if d.Prob(sl) == 0 || math.Abs(SlateSum(w, m, sl)-v) > 1e-15 {
				t.Fatalf("Exact returned invalid slate %v", sl)
			}
		}
	}
}

// ρ for a deterministic target under uniform logging is 1 + ℓ(m−1), reached
// at the target itself (the paper's appendix).
func TestRhoUniform(t *testing.T) {
	var s SlateSolver
	for _, sh := range [][2]int{{10, 3}, {100, 10}, {5, 5}} {
		m, l := sh[0], sh[1]
		g := mustGamma(t, Uniform(), m, l)
		target := make([]int32, l)
		for j := range target {
			target[j] = int32(j)
		}
		w := make([]float64, l*m)
		g.PinvMulVec(w, Indicator(nil, m, target))
		lo, hi := weightRange(&s, w, m, l)
		want := float64(1 + l*(m-1))
		if l == m {
			want = float64(m*m - 2*m + 2)
		}
		if math.Abs(hi-want) > 1e-9*want || lo >= 1 {
			t.Errorf("m=%d ℓ=%d: weight range [%v, %v], want max %v", m, l, lo, hi, want)
		}
	}
}

func TestTop(t *testing.T) {
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
		out := make([]int32, c.k)
		if n := Top(c.scores, out); n != c.k || !slices.Equal(out, c.want) {
			t.Errorf("Top(%v, %d) = %v (%d placed), want %v", c.scores, c.k, out, n, c.want)
		}
	}
	// Fewer values than places: all of them, the rest untouched.
	out := []int32{-1, -1, -1}
	if n := Top([]float64{1, 2}, out); n != 2 || !slices.Equal(out, []int32{1, 0, -1}) {
		t.Errorf("Top of 2 values into 3: %v, %d placed", out, n)
	}
}

func TestSolverDoesNotAllocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const m = 200
	w := make([]float64, 3*m)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	var s SlateSolver
	slate := make([]int32, 3)
	s.Exact(w, m, slate)
	for name, f := range map[string]func(){
		"greedy": func() { s.Greedy(w, m, slate) },
		"exact":  func() { s.Exact(w, m, slate) },
		"top":    func() { Top(w[:m], slate) },
	} {
		if a := testing.AllocsPerRun(100, f); a != 0 {
			t.Errorf("%s: %v allocations per slate", name, a)
		}
	}
}

func BenchmarkSlate(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, m := range []int{120, 1200} {
		w := make([]float64, 3*m)
		for i := range w {
			w[i] = rng.NormFloat64()
		}
		slate := make([]int32, 3)
		var s SlateSolver
		b.Run(fmt.Sprintf("greedy/m=%d", m), func(b *testing.B) {
			for b.Loop() {
				s.Greedy(w, m, slate)
			}
		})
		b.Run(fmt.Sprintf("exact/m=%d", m), func(b *testing.B) {
			for b.Loop() {
				s.Exact(w, m, slate)
			}
		})
	}
}

func ExampleSlateSolver_Greedy() {
	// Two candidates, two slots: w[slot*2 + candidate].
	w := []float64{
		10, 9, // slot 1: candidates 0 and 1
		9, 0, // slot 2
	}
	var s SlateSolver
	slate := make([]int32, 2)
	g := s.Greedy(w, 2, slate)
	fmt.Println("greedy", slate, g)
	e := s.Exact(w, 2, slate)
	fmt.Println("exact", slate, e)
	// Output:
	// greedy [0 1] 10
	// exact [1 0] 18
}
