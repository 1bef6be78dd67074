package features

import (
	"testing"

	"github.com/piopt/piopt/data"
)

// mslrLike is an MSLR-WEB10K training fold in size: 6000 queries of 120
// docs (720 K docs) × 136 features.
func mslrLike() *data.Dataset {
	const queries, m, F = 6000, 120, 136
	ds := &data.Dataset{NumFeatures: F, Features: make([]float32, queries*m*F), Labels: make([]uint8, queries*m),
		QueryOffsets: make([]int, queries+1), QIDs: make([]string, queries), Source: "mslr-like"}
	for i := range ds.Features {
		ds.Features[i] = float32(i % 1013)
	}
	for q := range queries {
		ds.QueryOffsets[q+1] = (q + 1) * m
		ds.QIDs[q] = "q"
	}
	return ds
}

// BenchmarkPIOPT builds the 2.16 M × 139 PI-OPT matrix of an MSLR-size fold
// at ℓ = 3 (its labels, weights and row indexes: the rows are made on
// demand, see BenchmarkFill).
func BenchmarkPIOPT(b *testing.B) {
	ds := mslrLike()
	tg := fullTargets(ds, 3)
	for b.Loop() {
		if _, err := PIOPT(ds, tg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFill makes every row of that matrix once, in batches of 64 Ki
// rows into one reused buffer, as XGBoost reads them (once per pass).
func BenchmarkFill(b *testing.B) {
	ds := mslrLike()
	m, err := PIOPT(ds, fullTargets(ds, 3))
	if err != nil {
		b.Fatal(err)
	}
	const batch = 1 << 16
	buf := make([]float32, batch*m.Cols)
	b.SetBytes(int64(m.Rows) * int64(m.Cols) * 4)
	for b.Loop() {
		for lo := 0; lo < m.Rows; lo += batch {
			m.Fill(buf, lo, min(lo+batch, m.Rows))
		}
	}
}

// BenchmarkSUP builds the SUP labels and weights of an MSLR-size fold.
func BenchmarkSUP(b *testing.B) {
	ds := mslrLike()
	for b.Loop() {
		if _, err := SUP(ds, Gain); err != nil {
			b.Fatal(err)
		}
	}
}
