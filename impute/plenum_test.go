package impute

import (
	"fmt"
	"slices"
	"testing"
)

// Enumerated Plackett–Luce moments equal the dynamic programme's and the
// brute force's, with distinct and tied weights, and keep the relative
// precision of a peaked logger's tiny probabilities.
func TestPlackettLuceEnum(t *testing.T) {
	for _, tc := range []struct {
		m, l int
		tau  float64
		tied bool
	}{{6, 1, 1, false}, {6, 2, 1, false}, {7, 3, 0.5, false}, {7, 3, 0.5, true}, {9, 3, 0.05, false}, {5, 5, 1, false}, {12, 4, 0.3, true}} {
		sizes, w := plScores(tc.m, tc.tau, uint64(tc.m*10+tc.l))
		slices.Sort(w)
		slices.Reverse(w)
		if tc.tied {
			sizes, w = []int{2, 1, tc.m - 5, 2}, []float64{1, 0.5, 0.2, 0.01}
		}
		name := fmt.Sprintf("m=%d/l=%d/tau=%g/tied=%v", tc.m, tc.l, tc.tau, tc.tied)
		got := plEnumMoments(sizes, w, tc.l)
		dp, ok := weightedMoments(sizes, w, tc.l, 1<<20)
		if !ok {
			t.Fatal("dp")
		}
		checkWithin(t, name+" vs dp", got, dp, 1e-15)
		brute := plBrute(sizes, w, tc.l)
		// Relative precision on every moment, tiny ones included.
		worst := 0.0
		for i, v := range brute.p1 {
			if v > 0 {
				worst = max(worst, abs(got.p1[i]-v)/v)
			}
		}
		for i, v := range brute.p2 {
			if v > 0 {
				worst = max(worst, abs(got.p2[i]-v)/v)
			}
		}
		if worst > 1e-12 {
			t.Errorf("%s: relative error %.3g against brute force", name, worst)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
