package ope

import (
	"fmt"
	"slices"
	"testing"
)

func TestSlateFeatures(t *testing.T) {
	// 3 docs × 2 features.
	rows := []float32{1, 2, 3, 4, 5, 6}
	dst := []float32{9, 9, 9, 9, 9, 9, 9, 9}
	slateFeatures(dst, rows, 2, []int32{2, 0}, 3)
	if want := []float32{5, 6, 1, 2, 0, 0}; !slices.Equal(dst[:6], want) {
		t.Fatalf("got %v, want %v (short slate padded with zeros)", dst[:6], want)
	}
	if dst[6] != 9 {
		t.Fatal("wrote past slots·nf")
	}
}

func TestDMValue(t *testing.T) {
	preds := []float64{0.5, 1.4, -0.2, 0.9}
	counts := []int64{2, 1, 1, 0}
	v, ok := dmValue(preds, counts, nil)
	if !ok || !near(v, (1+1.4-0.2)/4, 1e-15) {
		t.Fatalf("DM = %g, %v", v, ok)
	}
	v, ok = dmValue(preds, counts, &Interval{0, 1})
	if !ok || !near(v, (1+1+0)/4.0, 1e-15) {
		t.Fatalf("clipped DM = %g, %v", v, ok)
	}
	if v, ok := dmValue(preds, make([]int64, 4), nil); ok || v != 0 {
		t.Fatalf("no evaluation samples: %g, %v", v, ok)
	}
}

func Example_directMethod() {
	// Predicted reward of the target slate of each of 3 queries, and how
	// often each query occurs in the evaluation half of the log.
	preds := []float64{0.2, 0.6, 1.3}
	counts := []int64{5, 3, 2}
	dm, _ := dmValue(preds, counts, nil)
	clipped, _ := dmValue(preds, counts, &Interval{Lo: 0, Hi: 1})
	fmt.Printf("DM %.2f, clipped %.2f\n", dm, clipped)
	// Output: DM 0.54, clipped 0.48
}
