package ranker

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/dmitryikh/leaves"
	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/data/xgbmodel"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/internal/parallel"
)

// Model is a piopt model (an XGBoost gbtree regressor or ranker with piopt's
// metadata) loaded for inference in pure Go with leaves. A PI-OPT model
// scores (document, slot) pairs on rows [f(x,a); onehot(j)]; a SUP or
// LambdaMART model scores documents on rows f(x,a).
//
// A Model is safe for concurrent use.
type Model struct {
	name string
	meta features.Meta
	// blocks are consecutive groups of at most treesPerBlock trees, each a
	// leaves ensemble; the first carries the base score, the others 0.
	blocks    []*leaves.Ensemble
	trees     int
	objective string // XGBoost's objective name, e.g. "reg:squarederror"
}

// LoadModel reads a model file saved by `piopt train`: XGBoost's legacy
// binary format or its JSON format (decided by content, as XGBoost does).
func LoadModel(path string) (*Model, error) {
	b, err := data.ReadFileCapped(path, data.MaxModelBytes, "--model")
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return ParseModel(b, path)
}

// ParseModel reads a model from the bytes of a saved file; name is used in
// messages (usually the path).
func ParseModel(b []byte, name string) (*Model, error) {
	return parseModel(b, name, treesPerBlock)
}

// parseModel is ParseModel with perBlock trees per block.
func parseModel(b []byte, name string, perBlock int) (*Model, error) {
	xm, err := xgbmodel.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", name, err)
	}
	meta, err := features.MetaFromAttrs(xm.Attrs)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", name, err)
	}
	if uint64(xm.NumFeature) != uint64(meta.Columns()) {
		return nil, fmt.Errorf("model %s: XGBoost was trained on %d columns but piopt's metadata says %d features + %d slots",
			name, xm.NumFeature, meta.Features, meta.Slots)
	}
	m := &Model{name: name, meta: meta, trees: len(xm.Trees), objective: xm.Objective}
	for lo := 0; lo < len(xm.Trees); lo += perBlock {
		part := *xm
		part.Trees = xm.Trees[lo:min(lo+perBlock, len(xm.Trees))]
		if lo > 0 {
			part.BaseScore = 0
		}
		ens, err := part.Leaves()
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", name, err)
		}
		m.blocks = append(m.blocks, ens)
	}
	return m, nil
}

// Name returns the path or name the model was loaded from.
func (m *Model) Name() string { return m.name }

// Meta returns piopt's metadata stored in the model.
func (m *Model) Meta() features.Meta { return m.meta }

// Trees returns the number of trees.
func (m *Model) Trees() int { return m.trees }

// Fits reports whether ds has the model's feature count, with an error
// naming both when not.
func (m *Model) Fits(ds *data.Dataset) error {
	if ds.NumFeatures != m.meta.Features {
		return fmt.Errorf("model %s was trained on %d features but %s has %d (read it with --features %d)",
			m.name, m.meta.Features, ds.Source, ds.NumFeatures, m.meta.Features)
	}
	return nil
}

// predictRows scores rows of a dense row-major matrix with Meta().Columns()
// columns (for a PI-OPT model, the slot one-hot in the last Slots columns),
// one score per row into out, using up to threads goroutines (0: all cores).
// The result does not depend on threads.
func (m *Model) predictRows(ctx context.Context, x []float32, out []float64, threads int) error {
	cols := m.meta.Columns()
	if len(x)%cols != 0 || len(out) != len(x)/cols {
		return fmt.Errorf("model %s: %d values and %d outputs for rows of %d columns", m.name, len(x), len(out), cols)
	}
	rows := len(out)
	return m.run(ctx, rows, batchRows, batchRows, threads, nil, func(lo, hi int, buf, pred []float64) {
		for i, v := range x[lo*cols : hi*cols] {
			buf[i] = float64(v)
		}
		m.predict(buf, hi-lo, pred)
		copy(out[lo:hi], pred[:hi-lo])
	})
}

// Scores are a model's scores of every document of a dataset, or of every
// (document, slot) pair for a PI-OPT model.
type Scores struct {
	// Slots is the number of slot columns per document: the PI-OPT model's ℓ,
	// or 0 for one score per document.
	Slots int
	// Values holds Stride() scores per document in dataset order: the score
	// of document d in slot j+1 is Values[d*Stride()+j]. For a query with
	// m < ℓ documents only slots 1..m are scored; the others are NaN.
	Values []float64
}

// Stride returns the number of values per document: max(Slots, 1).
func (s *Scores) Stride() int { return max(s.Slots, 1) }

// query returns query q's scores: its documents' Stride() values each.
func (s *Scores) query(ds *data.Dataset, q int) []float64 {
	lo, hi := ds.Query(q)
	st := s.Stride()
	return s.Values[lo*st : hi*st : hi*st]
}

// ScoreOptions control batch inference.
type ScoreOptions struct {
	// Threads is the number of goroutines; 0 means all cores. Results do
	// not depend on it.
	Threads int
	// Progress, when not nil, is called with the number of documents
	// scored after each batch (e.g. a progress bar's Add).
	Progress func(n int64)
}

// batchRows is the number of rows built and scored per work unit: small
// enough that a unit's float64 buffer (batchRows × columns) stays in cache,
// large enough that handing out units costs nothing.
const batchRows = 256

// treesPerBlock is the number of trees applied to a unit's rows at a time:
// 32 trees of 70 leaves are ≈ 100 KB of leaves' nodes, which stay in the
// core's cache while the unit's rows go through them.
const treesPerBlock = 32

// Score scores every row the model needs on ds: every document for a SUP or
// LambdaMART model, every (document, slot j ≤ ℓ_x) pair for a PI-OPT model,
// with ℓ_x = min(ℓ, m) for a query of m documents. Rows [f(x,a); onehot(j)]
// are built by features.ScoringRows in per-worker buffers, so scoring
// allocates nothing per row.
func (m *Model) Score(ctx context.Context, ds *data.Dataset, opt ScoreOptions) (*Scores, error) {
	if err := m.Fits(ds); err != nil {
		return nil, err
	}
	L := m.meta.Slots
	sc := &Scores{Slots: L, Values: make([]float64, ds.NumDocs()*max(L, 1))}
	cols := m.meta.Columns()
	st := sc.Stride()
	// A work unit is a range of documents; with ℓ slots it holds up to
	// ℓ rows per document.
	docsPerUnit := max(batchRows/st, 1)
	off := ds.QueryOffsets
	err := m.run(ctx, ds.NumDocs(), docsPerUnit, docsPerUnit*st, opt.Threads, opt.Progress, func(lo, hi int, buf, pred []float64) {
		rows := features.ScoringRows(buf, ds, L, lo, hi)
		m.predict(buf[:rows*cols], rows, pred)
		rows = 0
		q := sort.SearchInts(off, lo+1) - 1 // query of document lo
		for d := lo; d < hi; d++ {
			for d >= off[q+1] {
				q++
			}
			lx := features.RowsPerDoc(off[q+1]-off[q], L)
			v := sc.Values[d*st : (d+1)*st]
			copy(v, pred[rows:rows+lx])
			for j := lx; j < st; j++ {
				v[j] = math.NaN()
			}
			rows += lx
		}
	})
	if err != nil {
		return nil, err
	}
	return sc, nil
}

// predict scores rows of buf (rows × Columns()) into pred[:rows] on the
// calling goroutine.
//
// Trees are applied a block at a time to all rows of the unit (blocked like
// XGBoost's own predictor): one block's nodes stay in cache while the rows
// pass through it, where leaves alone walks every tree for one row before
// the next. Each row's sum is base + block 1 + block 2 + … in float64, the
// same for any thread count. Rows go through leaves' Predict one by one:
// PredictDense heap-allocates its goroutine closure on every call, Predict
// allocates nothing. It fails only on shapes, which the callers guarantee.
func (m *Model) predict(buf []float64, rows int, pred []float64) {
	cols := m.meta.Columns()
	// The block's contribution goes to pred[rows], a spare slot the
	// workers allocate, so that nothing escapes per call.
	part := pred[len(pred)-1:]
	for b, ens := range m.blocks {
		for i := range rows {
			if err := ens.Predict(buf[i*cols:(i+1)*cols], 0, part); err != nil {
				panic(fmt.Sprintf("ranker: leaves Predict: %v", err))
			}
			if b == 0 {
				pred[i] = part[0]
			} else {
				pred[i] += part[0]
			}
		}
	}
}

// run splits [0, n) items into units of per items (parallel.Chunks) over
// threads workers; each worker owns buffers for rowsPerUnit rows and calls
// fill for its units. Units write disjoint outputs, so the result is the
// same for any thread count. It stops early when ctx is cancelled.
func (m *Model) run(ctx context.Context, n, per, rowsPerUnit, threads int, progress func(n int64), fill func(lo, hi int, buf, pred []float64)) error {
	cols := m.meta.Columns()
	newScratch := func() *unitScratch {
		return &unitScratch{
			buf:  make([]float64, rowsPerUnit*cols),
			pred: make([]float64, rowsPerUnit+1), // +1: predict's spare slot
		}
	}
	return parallel.Chunks(ctx, n, per, threads, newScratch, func(s *unitScratch, lo, hi int) error {
		fill(lo, hi, s.buf, s.pred)
		if progress != nil {
			progress(int64(hi - lo))
		}
		return nil
	})
}

// unitScratch is one worker's buffers: the unit's rows and their scores.
type unitScratch struct{ buf, pred []float64 }
