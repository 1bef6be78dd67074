package ranker

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/data/xgbmodel"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/internal/xgbmodeltest"
)

// A PI-OPT model whose score is known by hand: 10 in slot 1, 20 in slot 2,
// plus 1 when feature 1 ≥ 5, plus the base score 0.5.
func handPIOPT(t *testing.T, format string) *Model {
	F, L := 2, 3
	xm := newXGB(features.KindPIOPT, F, L, 0.5,
		xgbmodeltest.Stump(F+L, uint32(F+0), 0.5, 0, 10),
		xgbmodeltest.Stump(F+L, uint32(F+1), 0.5, 0, 20),
		xgbmodeltest.Stump(F+L, 0, 5, 0, 1),
	)
	b := xgbmodeltest.Binary(xm)
	if format == "json" {
		b = xgbmodeltest.JSON(xm)
	}
	m, err := ParseModel(b, "hand-"+format)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestScorePIOPTHand(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	ds := testDataset(rng, 2, 4, 2, 1) // m = 4, then m = 2 and 1 < ℓ = 3
	for _, format := range []string{"binary", "json"} {
		m := handPIOPT(t, format)
		sc, err := m.Score(context.Background(), ds, ScoreOptions{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		if sc.Slots != 3 || sc.Stride() != 3 || len(sc.Values) != 7*3 {
			t.Fatalf("shape: %d slots, %d values", sc.Slots, len(sc.Values))
		}
		for q := range ds.NumQueries() {
			lo, hi := ds.Query(q)
			for d := lo; d < hi; d++ {
				for j := range 3 {
					got := sc.Values[d*3+j]
					if j >= hi-lo {
						if !math.IsNaN(got) {
							t.Errorf("%s doc %d slot %d of a %d-doc query: %v, want NaN", format, d, j+1, hi-lo, got)
						}
						continue
					}
					want := 0.5 + []float64{10, 20, 0}[j]
					if ds.Features[d*2] >= 5 {
						want++
					}
					if got != want {
						t.Errorf("%s doc %d slot %d: %v, want %v", format, d, j+1, got, want)
					}
				}
			}
		}
	}
}

// Scores of random deep models equal XGBoost's rule on the rows
// [f(x,a); onehot(j)] and do not depend on the thread count.
func TestScoreMatchesRowsAndThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	sizes := make([]int, 60)
	for i := range sizes {
		sizes[i] = 1 + rng.IntN(40)
	}
	for _, L := range []int{0, 3} {
		F := 5
		ds := testDataset(rng, F, sizes...)
		kind := features.KindSUP
		if L > 0 {
			kind = features.KindPIOPT
		}
		var trees []xgbmodel.Tree
		for range 50 {
			trees = append(trees, xgbmodeltest.RandomTree(rng, F+L, 30, []float32{0.5, 1, 2, 3, 5, 8, 9}))
		}
		xm := newXGB(kind, F, L, 0.25, trees...)
		m, err := ParseModel(xgbmodeltest.Binary(xm), "random")
		if err != nil {
			t.Fatal(err)
		}
		var first []float64
		for _, threads := range []int{1, 2, 7} {
			sc, err := m.Score(context.Background(), ds, ScoreOptions{Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = sc.Values
			} else if !slices.EqualFunc(first, sc.Values, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
				t.Fatalf("L=%d: scores with %d threads differ from 1 thread", L, threads)
			}
		}
		st := max(L, 1)
		eachPair(ds, L, func(d, j int, row []float32) {
			want := float64(xgbmodeltest.Predict(xm, row))
			if got := first[d*st+j]; math.Abs(got-want) > 1e-5*math.Max(1, math.Abs(want)) {
				t.Fatalf("L=%d doc %d slot %d: %v, want %v", L, d, j, got, want)
			}
		})
	}
}

func TestScoreRefusesOtherData(t *testing.T) {
	m := handPIOPT(t, "binary")
	ds := testDataset(rand.New(rand.NewPCG(3, 3)), 5, 3)
	ds.Source = "other.txt"
	_, err := m.Score(context.Background(), ds, ScoreOptions{})
	if err == nil || !strings.Contains(err.Error(), "trained on 2 features but other.txt has 5") {
		t.Errorf("got %v", err)
	}
}

func TestScoreCancelled(t *testing.T) {
	m := handPIOPT(t, "binary")
	ds := testDataset(rand.New(rand.NewPCG(4, 4)), 2, 50, 50)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Score(ctx, ds, ScoreOptions{}); err != context.Canceled {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// A PI-OPT model ranks a query by its greedy slate, then by best slot score.
func TestDocScoresPIOPT(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	ds := testDataset(rng, 2, 5, 2)
	// Feature 1 decides: documents with x ≥ 5 get +1 in every slot.
	ds.Features = []float32{
		1, 0, // doc 0
		7, 0, // doc 1: +1
		2, 0, // doc 2
		9, 0, // doc 3: +1
		0, 0, // doc 4
		6, 0, // query 2, doc 0: +1
		1, 0, // query 2, doc 1
	}
	m := handPIOPT(t, "binary")
	got, err := m.DocScores(context.Background(), ds, ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Greedy: slot 2 (20.5 + 1) takes doc 1, slot 1 (10.5 + 1) doc 3, slot 3
	// (0.5) doc 0; then docs 2 and 4 by best slot score (20.5 both: ties to
	// the lower position). Query 2: slot 2 doc 0, slot 1 doc 1.
	want := []float64{3, 4, 2, 5, 1, 1, 2}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	order := Order(ds, got)
	if wantOrder := []int32{3, 1, 0, 2, 4, 1, 0}; !slices.Equal(order, wantOrder) {
		t.Errorf("order %v, want %v", order, wantOrder)
	}
}

// mslrFold is a test fold of MSLR-WEB10K's size (≈ 240 K docs, 136
// integer-valued features) and a PI-OPT model for ℓ = 3 of 300 trees × 70
// leaves grown like lossguide trees: 720 K rows of 139 columns to score.
func mslrFold(rng *rand.Rand) (*data.Dataset, *xgbmodel.Model) {
	const F, L, docs = 136, 3, 240000
	sizes := make([]int, 0, docs/120)
	for n := 0; n < docs; {
		m := min(1+rng.IntN(240), docs-n)
		sizes = append(sizes, m)
		n += m
	}
	ds := testDataset(rng, F, sizes...)
	var trees []xgbmodel.Tree
	for range 300 {
		trees = append(trees, xgbmodeltest.RandomTree(rng, F+L, 70, []float32{0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5}))
	}
	return ds, newXGB(features.KindPIOPT, F, L, 0.5, trees...)
}

// BenchmarkScoreMSLR measures test-fold scoring throughput (rows/s) on
// mslrFold, with trees applied in blocks of 32 (the default) and in one
// block (leaves' own order: every tree for a row, then the next row).
func BenchmarkScoreMSLR(b *testing.B) {
	ds, xm := mslrFold(rand.New(rand.NewPCG(6, 6)))
	rows := 0
	for q := range ds.NumQueries() {
		rows += ds.QuerySize(q) * min(3, ds.QuerySize(q))
	}
	for _, perBlock := range []int{treesPerBlock, len(xm.Trees)} {
		m, err := parseModel(xgbmodeltest.Binary(xm), "bench", perBlock)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("trees-per-block=%d", perBlock), func(b *testing.B) {
			for b.Loop() {
				if _, err := m.Score(context.Background(), ds, ScoreOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// Score builds the same rows as the features package's scoring matrix (the
// layout the model was trained on): slot j's one-hot in column F + j − 1,
// docs in order, slots 1..min(ℓ, m) per doc.
func TestScoreMatchesFeaturesScoring(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const F, L = 4, 3
	ds := testDataset(rng, F, 5, 1, 2, 3, 9)
	var trees []xgbmodel.Tree
	for range 20 {
		trees = append(trees, xgbmodeltest.RandomTree(rng, F+L, 20, []float32{0.5, 1, 3, 5, 9}))
	}
	m, err := ParseModel(xgbmodeltest.Binary(newXGB(features.KindPIOPT, F, L, 0, trees...)), "layout")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := m.Score(context.Background(), ds, ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fm, offsets, err := features.Scoring(ds, L)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, fm.Rows)
	if err := m.predictRows(context.Background(), fm.X, want, 0); err != nil {
		t.Fatal(err)
	}
	for q := range ds.NumQueries() {
		lo, hi := ds.Query(q)
		lx := min(L, hi-lo)
		for a := range hi - lo {
			for j := range lx {
				if got, w := sc.Values[(lo+a)*L+j], want[offsets[q]+a*lx+j]; got != w {
					t.Fatalf("query %d doc %d slot %d: Score %v, features.Scoring row %v", q, a, j+1, got, w)
				}
			}
		}
	}
}

// Scoring allocates its outputs and per-worker buffers, nothing per row or
// per work unit: the count does not grow with the data.
func TestScoreAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	var trees []xgbmodel.Tree
	for range 10 {
		trees = append(trees, xgbmodeltest.RandomTree(rng, 13, 10, []float32{0.5, 1.5, 2.5}))
	}
	m, err := ParseModel(xgbmodeltest.Binary(newXGB(features.KindPIOPT, 10, 3, 0.5, trees...)), "alloc")
	if err != nil {
		t.Fatal(err)
	}
	small := testDataset(rng, 10, 150, 150) // several work units: both threads busy
	large := testDataset(rng, 10, 500, 300, 200, 1000, 2000)
	a := testing.AllocsPerRun(5, func() { m.Score(context.Background(), small, ScoreOptions{Threads: 2}) })
	b := testing.AllocsPerRun(5, func() { m.Score(context.Background(), large, ScoreOptions{Threads: 2}) })
	if a != b {
		t.Errorf("%v allocations for %d docs, %v for %d docs", a, small.NumDocs(), b, large.NumDocs())
	}
}
