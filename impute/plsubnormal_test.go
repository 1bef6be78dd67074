package impute

import (
	"math"
	"testing"
)

// A Plackett–Luce logger over a feature spanning 0..725 at τ = 1 (a query
// of piopt synth's data, feature 12) gives weights e^{s−725} down to
// subnormal numbers. The interpolation over light classes divided by
// distances between such weights that underflow, and the moments came out
// NaN (impute failed: "eigendecomposition of Γ failed"); such classes are
// now summed one by one. Each slot's marginals must sum to 1.
func TestPlackettLuceSubnormalWeights(t *testing.T) {
	if testing.Short() {
		t.Skip("a 185-candidate quadrature")
	}
	scores := []struct{ s, n int }{{0, 71}, {2, 3}, {3, 1}, {4, 4}, {5, 1}, {6, 1}, {7, 5}, {8, 4}, {9, 4}, {10, 1}, {11, 6},
		{12, 1}, {13, 4}, {14, 1}, {15, 1}, {16, 1}, {18, 3}, {19, 3}, {20, 2}, {21, 1}, {22, 1}, {23, 1}, {24, 2}, {26, 2},
		{27, 5}, {28, 1}, {29, 1}, {30, 3}, {31, 1}, {32, 3}, {33, 1}, {34, 1}, {35, 1}, {36, 1}, {37, 3}, {38, 2}, {39, 1},
		{41, 1}, {44, 2}, {45, 1}, {46, 1}, {48, 1}, {61, 2}, {65, 1}, {66, 1}, {68, 1}, {70, 1}, {74, 1}, {75, 2}, {78, 1},
		{79, 1}, {82, 1}, {85, 1}, {87, 1}, {101, 1}, {105, 1}, {111, 1}, {113, 1}, {120, 1}, {125, 1}, {128, 1}, {163, 1},
		{180, 1}, {211, 1}, {259, 1}, {265, 1}, {271, 1}, {296, 1}, {304, 1}, {353, 1}, {725, 1}}
	var sizes []int
	var w []float64
	for _, c := range scores {
		sizes = append(sizes, c.n)
		w = append(w, math.Exp(float64(c.s-725)))
	}
	const l = 3
	mo, err := plackettLuceMoments(sizes, w, l, plOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !(mo.bound <= 1e-10) {
		t.Fatalf("bound %g", mo.bound)
	}
	for j := range l {
		sum := 0.0
		for c, n := range sizes {
			sum += float64(n) * mo.p1[j*len(sizes)+c]
		}
		if math.Abs(sum-1) > 185*mo.bound+1e-12 {
			t.Errorf("slot %d: marginals sum to %v (bound %g)", j+1, sum, mo.bound)
		}
	}
}
