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
// now summed one by one (plQuadrature's retry without interpolation, for
// an overflow in the barycentric weights (query 184) or further on (515)).
// Each slot's marginals must sum to 1.
func TestPlackettLuceSubnormalWeights(t *testing.T) {
	if testing.Short() {
		t.Skip("two quadratures of ~200 candidates")
	}
	for _, q := range []struct {
		name   string
		scores []scoreCount
	}{
		{"query 184", []scoreCount{{0, 71}, {2, 3}, {3, 1}, {4, 4}, {5, 1}, {6, 1}, {7, 5}, {8, 4}, {9, 4}, {10, 1}, {11, 6},
			{12, 1}, {13, 4}, {14, 1}, {15, 1}, {16, 1}, {18, 3}, {19, 3}, {20, 2}, {21, 1}, {22, 1}, {23, 1}, {24, 2}, {26, 2},
			{27, 5}, {28, 1}, {29, 1}, {30, 3}, {31, 1}, {32, 3}, {33, 1}, {34, 1}, {35, 1}, {36, 1}, {37, 3}, {38, 2}, {39, 1},
			{41, 1}, {44, 2}, {45, 1}, {46, 1}, {48, 1}, {61, 2}, {65, 1}, {66, 1}, {68, 1}, {70, 1}, {74, 1}, {75, 2}, {78, 1},
			{79, 1}, {82, 1}, {85, 1}, {87, 1}, {101, 1}, {105, 1}, {111, 1}, {113, 1}, {120, 1}, {125, 1}, {128, 1}, {163, 1},
			{180, 1}, {211, 1}, {259, 1}, {265, 1}, {271, 1}, {296, 1}, {304, 1}, {353, 1}, {725, 1}}},
		{"query 515", []scoreCount{{0, 99}, {1, 1}, {2, 2}, {3, 9}, {4, 4}, {5, 4}, {6, 8}, {7, 6}, {8, 5}, {9, 5}, {10, 5}, {11, 2}, {12, 2}, {13, 2}, {14, 4}, {15, 4}, {16, 2}, {17, 2}, {18, 2}, {19, 3}, {20, 2}, {21, 4}, {23, 3}, {25, 2}, {27, 3}, {31, 1}, {32, 2}, {34, 4}, {35, 1}, {36, 1}, {37, 1}, {38, 2}, {40, 1}, {41, 3}, {44, 1}, {45, 2}, {47, 4}, {48, 1}, {50, 1}, {55, 1}, {56, 1}, {59, 1}, {61, 2}, {64, 1}, {65, 1}, {66, 1}, {76, 1}, {77, 2}, {80, 1}, {105, 1}, {110, 1}, {115, 1}, {119, 1}, {133, 1}, {137, 1}, {157, 1}, {167, 1}, {168, 1}, {192, 1}, {197, 1}, {203, 1}, {214, 1}, {227, 1}, {275, 1}, {678, 1}}},
	} {
		checkPLMarginals(t, q.name, q.scores)
	}
}

// scoreCount is a score held by n candidates.
type scoreCount struct{ s, n int }

// checkPLMarginals checks the moments of pl:1 over scores (each s held by n
// candidates): finite, bounded by 1e-10, and each slot's marginals sum to 1.
func checkPLMarginals(t *testing.T, name string, scores []scoreCount) {
	t.Helper()
	top := 0
	for _, c := range scores {
		top = max(top, c.s)
	}
	var sizes []int
	var w []float64
	for _, c := range scores {
		sizes = append(sizes, c.n)
		w = append(w, math.Exp(float64(c.s-top)))
	}
	const l = 3
	mo, err := plackettLuceMoments(sizes, w, l, plOptions{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !(mo.bound <= 1e-10) {
		t.Fatalf("%s: bound %g", name, mo.bound)
	}
	for j := range l {
		sum := 0.0
		for c, n := range sizes {
			sum += float64(n) * mo.p1[j*len(sizes)+c]
		}
		if math.Abs(sum-1) > float64(len(w))*mo.bound+1e-12 {
			t.Errorf("%s: slot %d: marginals sum to %v (bound %g)", name, j+1, sum, mo.bound)
		}
	}
}
