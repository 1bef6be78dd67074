package features

import (
	"context"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/internal/parallel"
)

// Matrix is a design matrix with its labels, row weights and query groups.
//
// Its rows are either stored in X or, for a PI-OPT matrix, made on demand
// from the dataset's features (X nil): row r is then the features of one
// document followed by the one-hot columns of one slot. Fill, AppendRow and
// Value read both kinds alike.
type Matrix struct {
	X          []float32 // Rows×Cols values, row-major; nil when the rows are made on demand
	Rows, Cols int
	Labels     []float32 // one per row; nil for a scoring matrix
	Weights    []float32 // one per row; nil when every row weighs 1
	Groups     []uint32  // sizes of consecutive query groups (LambdaMART); nil otherwise
	// Meta describes the model trained on the matrix (kind, slots, feature
	// count, metric, targets).
	Meta Meta

	// The rows made on demand: row r is base row doc[r] (baseCols values)
	// followed by Cols − baseCols one-hot columns with a 1 in column
	// baseCols + slot[r] − 1.
	base     []float32
	baseCols int
	doc      []int32
	slot     []int32
}

// Fill writes rows [lo, hi) of m, row-major, into dst[:(hi−lo)·Cols].
// It runs on up to GOMAXPROCS goroutines for large ranges.
func (m *Matrix) Fill(dst []float32, lo, hi int) {
	if m.X != nil {
		copy(dst[:(hi-lo)*m.Cols], m.X[lo*m.Cols:hi*m.Cols])
		return
	}
	parallelRows(hi-lo, func(a, b int) {
		for r := lo + a; r < lo+b; r++ {
			m.fillRow(dst[(r-lo)*m.Cols:(r-lo+1)*m.Cols], r)
		}
	})
}

// fillRow writes row r of an on-demand matrix into dst (Cols values).
func (m *Matrix) fillRow(dst []float32, r int) {
	F := m.baseCols
	copy(dst[:F], m.base[int(m.doc[r])*F:(int(m.doc[r])+1)*F])
	clear(dst[F:])
	dst[F+int(m.slot[r])-1] = 1
}

// AppendRow appends row i of m to dst and returns the extended slice.
func (m *Matrix) AppendRow(dst []float32, i int) []float32 {
	if m.X != nil {
		return append(dst, m.X[i*m.Cols:(i+1)*m.Cols]...)
	}
	n := len(dst)
	dst = slices.Grow(dst, m.Cols)[:n+m.Cols]
	m.fillRow(dst[n:], i)
	return dst
}

// SameRows reports whether m and o are on-demand matrices with the same
// rows (the same base features, the same documents and slots in the same
// order): the matrices of two targets of one log, whatever their labels
// and weights. Matrices holding their rows (X) are never the same, so that
// comparing them costs nothing.
func (m *Matrix) SameRows(o *Matrix) bool {
	if m.X != nil || o.X != nil || m.Rows != o.Rows || m.Cols != o.Cols || m.baseCols != o.baseCols ||
		len(m.base) != len(o.base) || len(m.base) == 0 || &m.base[0] != &o.base[0] {
		return false
	}
	return slices.Equal(m.doc, o.doc) && slices.Equal(m.slot, o.slot)
}

// Value returns the value of row r in column c.
func (m *Matrix) Value(r, c int) float32 {
	if m.X != nil {
		return m.X[r*m.Cols+c]
	}
	if c < m.baseCols {
		return m.base[int(m.doc[r])*m.baseCols+c]
	}
	if c-m.baseCols == int(m.slot[r])-1 {
		return 1
	}
	return 0
}

// SupTarget is what SUP regresses on.
type SupTarget int

const (
	// Gain is 2^rel − 1, the paper's SUP.
	Gain SupTarget = iota
	// Relevance is the raw grade, the paper's SUP-rel.
	Relevance
)

func (s SupTarget) String() string {
	if s == Relevance {
		return "relevance"
	}
	return "gain"
}

// ParseSupTarget parses "gain" or "relevance".
func ParseSupTarget(s string) (SupTarget, error) {
	switch s {
	case "gain":
		return Gain, nil
	case "relevance":
		return Relevance, nil
	}
	return 0, fmt.Errorf("SUP target %q: want gain or relevance", s)
}

// parallelRows calls fill(lo, hi) on disjoint row ranges covering [0, n),
// on up to GOMAXPROCS goroutines, in ranges of at least minChunk rows. Each
// row is written by one call, so the result does not depend on the number
// of goroutines.
func parallelRows(n int, fill func(lo, hi int)) {
	const minChunk = 1 << 14
	w := runtime.GOMAXPROCS(0)
	size := max(minChunk, (n+w-1)/w)
	// fill cannot fail and the context is never cancelled: no error.
	_ = parallel.Chunks(context.Background(), n, size, w, nil, func(_ struct{}, lo, hi int) error {
		fill(lo, hi)
		return nil
	})
}

func checkDataset(ds *data.Dataset) error {
	if ds == nil || ds.NumDocs() == 0 || ds.NumFeatures < 1 {
		return fmt.Errorf("features: empty dataset")
	}
	if err := ds.Validate(); err != nil {
		return fmt.Errorf("features: %s: %w", ds.Source, err)
	}
	return nil
}

// describeTargets turns a targets header into the model's description of
// how its targets were made: its key=value pairs, sorted.
func describeTargets(h map[string]string) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(h)) {
		kv = append(kv, k+"="+h[k])
	}
	return strings.Join(kv, " ")
}

// PIOPT builds the PI-OPT matrix: for target row r (query x, doc a, slot j)
// the row [f(x,a); onehot(j)] of ds.NumFeatures + t.Slots columns, the
// label t.Target[r] and the weight t.Weight[r]. Rows follow the targets'
// order. Every target row is checked against ds.
//
// The rows are not stored: they are made from ds.Features when read
// (Fill), so the matrix costs 16 bytes a row instead of 4·Cols (2.2 M rows ×
// 139 columns: 35 MB instead of 1.2 GB). Do not modify ds.Features while
// the matrix is in use.
func PIOPT(ds *data.Dataset, t *data.Targets) (*Matrix, error) {
	if err := checkDataset(ds); err != nil {
		return nil, err
	}
	if t == nil || t.Len() == 0 {
		return nil, fmt.Errorf("features: no targets for %s", ds.Source)
	}
	n := t.Len()
	if len(t.Query) != n || len(t.Doc) != n || len(t.Slot) != n || len(t.Weight) != n {
		return nil, fmt.Errorf("features: targets have %d targets but %d queries, %d docs, %d slots, %d weights",
			n, len(t.Query), len(t.Doc), len(t.Slot), len(t.Weight))
	}
	if t.Slots < 1 {
		return nil, fmt.Errorf("features: targets for %d slots", t.Slots)
	}
	for r := range n {
		q, a, j := int(t.Query[r]), int(t.Doc[r]), int(t.Slot[r])
		switch {
		case q < 0 || q >= ds.NumQueries():
			return nil, fmt.Errorf("features: targets row %d: query index %d outside the %d queries of %s", r, q, ds.NumQueries(), ds.Source)
		case a < 0 || a >= ds.QuerySize(q):
			return nil, fmt.Errorf("features: targets row %d: doc %d outside query %s's %d docs", r, a, ds.QIDs[q], ds.QuerySize(q))
		case j < 1 || j > t.Slots:
			return nil, fmt.Errorf("features: targets row %d: slot %d outside 1..%d", r, j, t.Slots)
		case math.IsNaN(t.Target[r]) || math.IsInf(t.Target[r], 0):
			return nil, fmt.Errorf("features: targets row %d: target %v", r, t.Target[r])
		case !(t.Weight[r] >= 0) || math.IsInf(t.Weight[r], 0):
			return nil, fmt.Errorf("features: targets row %d: weight %v", r, t.Weight[r])
		}
	}
	if ds.NumDocs() > math.MaxInt32 {
		return nil, fmt.Errorf("features: %s has %d documents, more than a PI-OPT matrix indexes (%d)", ds.Source, ds.NumDocs(), math.MaxInt32)
	}
	F := ds.NumFeatures
	cols := F + t.Slots
	m := &Matrix{
		Rows: n, Cols: cols,
		base: ds.Features, baseCols: F, doc: make([]int32, n), slot: make([]int32, n),
		Labels: make([]float32, n), Weights: make([]float32, n),
		Meta: Meta{
			Kind: KindPIOPT, Slots: t.Slots, Features: F,
			Metric: t.Header["metric"], Targets: describeTargets(t.Header),
		},
	}
	parallelRows(n, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			m.doc[r] = int32(ds.QueryOffsets[t.Query[r]] + int(t.Doc[r]))
			m.slot[r] = int32(t.Slot[r])
			m.Labels[r] = float32(t.Target[r])
			m.Weights[r] = float32(t.Weight[r])
		}
	})
	return m, nil
}

// SUP builds the SUP matrix: one row f(x,a) per document of ds, labelled
// with its gain 2^rel − 1 (or its grade), weighted 1/m_x. X shares
// ds.Features (no copy): do not modify it.
func SUP(ds *data.Dataset, target SupTarget) (*Matrix, error) {
	if err := checkDataset(ds); err != nil {
		return nil, err
	}
	n := ds.NumDocs()
	m := &Matrix{
		X: ds.Features, Rows: n, Cols: ds.NumFeatures,
		Labels: make([]float32, n), Weights: make([]float32, n),
		Meta: Meta{Kind: KindSUP, Features: ds.NumFeatures, Metric: target.String()},
	}
	var gain [256]float32
	for rel := range gain {
		gain[rel] = float32(math.Ldexp(1, rel) - 1)
		if target == Relevance {
			gain[rel] = float32(rel)
		}
	}
	for q := range ds.NumQueries() {
		lo, hi := ds.Query(q)
		w := 1 / float32(hi-lo)
		for d := lo; d < hi; d++ {
			m.Labels[d] = gain[ds.Labels[d]]
			m.Weights[d] = w
		}
	}
	return m, nil
}

// LambdaMART builds the matrix of the LambdaMART anchor: one row f(x,a) per
// document, labelled with its grade, one group per query, unweighted. X
// shares ds.Features.
func LambdaMART(ds *data.Dataset) (*Matrix, error) {
	if err := checkDataset(ds); err != nil {
		return nil, err
	}
	n := ds.NumDocs()
	m := &Matrix{
		X: ds.Features, Rows: n, Cols: ds.NumFeatures,
		Labels: make([]float32, n), Groups: make([]uint32, ds.NumQueries()),
		Meta: Meta{Kind: KindLambdaMART, Features: ds.NumFeatures, Metric: "relevance"},
	}
	for d, l := range ds.Labels {
		m.Labels[d] = float32(l)
	}
	for q := range m.Groups {
		m.Groups[q] = uint32(ds.QuerySize(q))
	}
	return m, nil
}
