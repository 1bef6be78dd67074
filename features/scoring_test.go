package features

import (
	"slices"
	"testing"
)

// ScoringRows from the middle of a query, in float64, for a PI-OPT model
// and for a pointwise one; stale buffer contents are overwritten.
func TestScoringRows(t *testing.T) {
	ds := tiny() // query a: docs 0..2, query b: docs 3..4; 2 features
	dst := make([]float64, 20*5)
	for i := range dst {
		dst[i] = -7
	}
	// Docs 2..3 with ℓ = 3: doc 2 (query a, 3 docs) has 3 rows, doc 3
	// (query b, 2 docs) has min(3, 2) = 2.
	n := ScoringRows(dst, ds, 3, 2, 4)
	if n != 5 {
		t.Fatalf("%d rows, want 5", n)
	}
	want := []float64{
		5, 6, 1, 0, 0, // doc 2 = (5, 6), slots 1..3
		5, 6, 0, 1, 0,
		5, 6, 0, 0, 1,
		7, 8, 1, 0, 0, // doc 3 = (7, 8), slots 1..2
		7, 8, 0, 1, 0,
	}
	if got := dst[:n*5]; !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	// Pointwise: one row f(x,a) per document.
	if n := ScoringRows(dst, ds, 0, 1, 4); n != 3 {
		t.Fatalf("pointwise: %d rows, want 3", n)
	}
	if got := dst[:6]; !slices.Equal(got, []float64{3, 4, 5, 6, 7, 8}) {
		t.Fatalf("pointwise rows %v, want docs 1..3", got)
	}
	if RowsPerDoc(2, 3) != 2 || RowsPerDoc(5, 3) != 3 || RowsPerDoc(5, 0) != 1 {
		t.Error("RowsPerDoc")
	}
}
