package features

import (
	"fmt"
	"sort"

	"github.com/piopt/piopt/data"
)

// RowsPerDoc returns the number of scoring rows of each document of a query
// with m documents, for a model with slots one-hot slot columns: one row
// [f(x,a); onehot(j)] per usable slot j ≤ ℓ_x = min(slots, m), or the one
// row f(x,a) of a pointwise model (slots = 0).
func RowsPerDoc(m, slots int) int {
	if slots == 0 {
		return 1
	}
	return min(slots, m)
}

// ScoringRows writes into dst the scoring rows of documents [lo, hi) of ds
// (global positions) for a model with slots slot columns, and returns how
// many rows it wrote: for each document a of query x in order, the rows
// [f(x,a); onehot(j)] for j = 1..RowsPerDoc(m_x, slots), slot 1 first (with
// slots = 0, the row f(x,a)). Rows have ds.NumFeatures + slots columns;
// dst must have room for them all. It is the one place such rows are built:
// scoring a PI-OPT model builds them batch by batch into reused float64
// buffers (allocating nothing), Scoring builds all of them as float32.
func ScoringRows[T float32 | float64](dst []T, ds *data.Dataset, slots, lo, hi int) int {
	F := ds.NumFeatures
	cols := F + slots
	off := ds.QueryOffsets
	q := sort.SearchInts(off, lo+1) - 1 // query of document lo
	rows := 0
	for d := lo; d < hi; d++ {
		for d >= off[q+1] {
			q++
		}
		lx := RowsPerDoc(off[q+1]-off[q], slots)
		r0 := dst[rows*cols : (rows+1)*cols]
		for k, v := range ds.Features[d*F : (d+1)*F] {
			r0[k] = T(v)
		}
		for j := range lx {
			r := dst[(rows+j)*cols : (rows+j+1)*cols]
			if j > 0 {
				copy(r[:F], r0[:F])
			}
			if slots > 0 {
				clear(r[F:])
				r[F+j] = 1
			}
		}
		rows += lx
	}
	return rows
}

// Scoring builds the unlabelled PI-OPT rows of every (doc, slot) pair of ds
// that a slate of ℓ = slots can use (ScoringRows over the whole dataset):
// for query x with m_x docs, its docs in order, and for each doc the slots
// 1..min(ℓ, m_x). Query q's rows start at offsets[q]; doc a's slot j is row
// offsets[q] + a·min(ℓ, m_x) + j − 1.
func Scoring(ds *data.Dataset, slots int) (m *Matrix, offsets []int, err error) {
	if err := checkDataset(ds); err != nil {
		return nil, nil, err
	}
	if slots < 1 {
		return nil, nil, fmt.Errorf("features: %d slots", slots)
	}
	nq := ds.NumQueries()
	offsets = make([]int, nq+1)
	for q := range nq {
		offsets[q+1] = offsets[q] + ds.QuerySize(q)*RowsPerDoc(ds.QuerySize(q), slots)
	}
	F := ds.NumFeatures
	n, cols := offsets[nq], F+slots
	m = &Matrix{X: make([]float32, n*cols), Rows: n, Cols: cols,
		Meta: Meta{Kind: KindPIOPT, Slots: slots, Features: F}}
	// Split by query so that each range's rows start at a known offset.
	parallelRows(nq, func(qlo, qhi int) {
		ScoringRows(m.X[offsets[qlo]*cols:offsets[qhi]*cols], ds, slots, ds.QueryOffsets[qlo], ds.QueryOffsets[qhi])
	})
	return m, offsets, nil
}
