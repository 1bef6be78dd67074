package ranker

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/piopt/piopt/impute"
)

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

// slotMajor transposes a query's document rows into impute's ℓm vector,
// keeping only the slate's slots.
func TestSlotMajor(t *testing.T) {
	nan := math.NaN()
	// 3 documents × 3 slot scores; a slate of 2 reads slots 1 and 2.
	v := []float64{
		1, 2, nan, // doc 0
		3, 4, nan, // doc 1
		5, 6, nan, // doc 2
	}
	w := slotMajor(make([]float64, 1, 100), v, 3, 2)
	if want := []float64{1, 3, 5, 2, 4, 6}; !slices.Equal(w, want) {
		t.Fatalf("slotMajor = %v, want %v", w, want)
	}
}

// Solve dispatches to the greedy and the exact solver of impute: on the
// table where greedy loses (doc 0 is best in both slots), they differ.
func TestSlateMethodSolve(t *testing.T) {
	w := []float64{10, 9, 9, 0} // slot 1: docs 0, 1; slot 2: docs 0, 1
	var s impute.SlateSolver
	slate := make([]int32, 2)
	if g := SlateGreedy.Solve(&s, w, 2, slate); g != 10 || !slices.Equal(slate, []int32{0, 1}) {
		t.Errorf("greedy: %v %v", slate, g)
	}
	if e := SlateExact.Solve(&s, w, 2, slate); e != 18 || !slices.Equal(slate, []int32{1, 0}) {
		t.Errorf("exact: %v %v", slate, e)
	}
}

// Every ordered pair of distinct docs is equally likely.
func TestRandomUniform(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const m, l, n = 4, 2, 120000
	counts := map[[2]int32]int{}
	slate := make([]int32, l)
	var perm []int32
	for range n {
		perm = randomSlate(perm, m, rng, slate)
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
	if a := testing.AllocsPerRun(100, func() { perm = randomSlate(perm, 200, rng, slate) }); a != 0 {
		t.Errorf("random: %v allocations per slate", a)
	}
}
