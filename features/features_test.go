package features

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
)

// tiny has query "a" with 3 docs and query "b" with 2, F = 2.
func tiny() *data.Dataset {
	return &data.Dataset{
		Features:     []float32{1, 2, 3, 4, 5, 6, 7, 8, 0, 0},
		NumFeatures:  2,
		Labels:       []uint8{0, 2, 1, 4, 0},
		QueryOffsets: []int{0, 3, 5},
		QIDs:         []string{"a", "b"},
		Source:       "tiny.txt",
	}
}

// fullTargets has a target for every (doc, slot ≤ ℓ_x) of ds with ℓ = 2,
// target 10·q + doc + slot/10 and weight 1/(ℓ_x·m_x).
func fullTargets(ds *data.Dataset, slots int) *data.Targets {
	t := &data.Targets{Slots: slots, Header: map[string]string{"metric": "ndcg", "slots": "2", "logging": "uniform"}}
	for q := range ds.NumQueries() {
		m := ds.QuerySize(q)
		lx := min(slots, m)
		for a := range m {
			for j := 1; j <= lx; j++ {
				t.Query = append(t.Query, int32(q))
				t.Doc = append(t.Doc, int32(a))
				t.Slot = append(t.Slot, uint8(j))
				t.Target = append(t.Target, float64(10*q+a)+float64(j)/10)
				t.Weight = append(t.Weight, 1/float64(lx*m))
			}
		}
	}
	return t
}

func TestPIOPT(t *testing.T) {
	ds := tiny()
	m, err := PIOPT(ds, fullTargets(ds, 2))
	if err != nil {
		t.Fatal(err)
	}
	// Σ_x ℓ_x·m_x = 2·3 + 2·2 rows of F + ℓ = 4 columns.
	// The rows are made on demand, never stored.
	if m.Rows != 10 || m.Cols != 4 || m.X != nil {
		t.Fatalf("%d×%d matrix, %d stored values", m.Rows, m.Cols, len(m.X))
	}
	want := [][]float32{
		{1, 2, 1, 0}, {1, 2, 0, 1}, {3, 4, 1, 0}, {3, 4, 0, 1}, {5, 6, 1, 0}, {5, 6, 0, 1},
		{7, 8, 1, 0}, {7, 8, 0, 1}, {0, 0, 1, 0}, {0, 0, 0, 1},
	}
	for i, w := range want {
		if !slices.Equal(m.AppendRow(nil, i), w) {
			t.Errorf("row %d = %v, want %v", i, m.AppendRow(nil, i), w)
		}
	}
	if m.Labels[3] != 1.2 || m.Labels[9] != 11.2 {
		t.Errorf("labels %v", m.Labels)
	}
	// Every query weighs 1 in total.
	var wa, wb float64
	for i, w := range m.Weights {
		if i < 6 {
			wa += float64(w)
		} else {
			wb += float64(w)
		}
	}
	if math.Abs(wa-1) > 1e-6 || math.Abs(wb-1) > 1e-6 {
		t.Errorf("query weights %g %g", wa, wb)
	}
	if m.Meta.Kind != KindPIOPT || m.Meta.Slots != 2 || m.Meta.Features != 2 || m.Meta.Metric != "ndcg" ||
		m.Meta.Targets != "logging=uniform metric=ndcg slots=2" {
		t.Errorf("meta %+v", m.Meta)
	}
}

// allRows returns every row of m, row-major, as Fill writes them.
func allRows(m *Matrix) []float32 {
	rows := make([]float32, m.Rows*m.Cols)
	m.Fill(rows, 0, m.Rows)
	return rows
}

// Only logged queries have targets: rows follow the targets, not the dataset.
func TestPIOPTPartialTargets(t *testing.T) {
	ds := tiny()
	tg := &data.Targets{Slots: 3, Query: []int32{1, 1}, Doc: []int32{1, 0}, Slot: []uint8{2, 1},
		Target: []float64{-3, 5}, Weight: []float64{0.25, 0.75}}
	m, err := PIOPT(ds, tg)
	if err != nil {
		t.Fatal(err)
	}
	if m.Rows != 2 || m.Cols != 5 || !slices.Equal(allRows(m), []float32{0, 0, 0, 1, 0, 7, 8, 1, 0, 0}) ||
		!slices.Equal(m.Labels, []float32{-3, 5}) || !slices.Equal(m.Weights, []float32{0.25, 0.75}) {
		t.Fatalf("matrix %+v", m)
	}
}

func TestPIOPTErrors(t *testing.T) {
	ds := tiny()
	cases := []struct {
		edit func(*data.Targets)
		want string
	}{
		{func(t *data.Targets) { t.Query[3] = 2 }, "row 3: query index 2"},
		{func(t *data.Targets) { t.Query[0] = -1 }, "row 0: query index -1"},
		{func(t *data.Targets) { t.Doc[7] = 2 }, "row 7: doc 2 outside query b's 2 docs"},
		{func(t *data.Targets) { t.Slot[1] = 0 }, "row 1: slot 0"},
		{func(t *data.Targets) { t.Slot[1] = 3 }, "row 1: slot 3 outside 1..2"},
		{func(t *data.Targets) { t.Target[2] = math.NaN() }, "row 2: target NaN"},
		{func(t *data.Targets) { t.Target[2] = math.Inf(1) }, "row 2: target +Inf"},
		{func(t *data.Targets) { t.Weight[4] = -1 }, "row 4: weight -1"},
		{func(t *data.Targets) { t.Weight[4] = math.NaN() }, "row 4: weight NaN"},
		{func(t *data.Targets) { t.Weight = t.Weight[:5] }, "5 weights"},
		{func(t *data.Targets) { *t = data.Targets{Slots: 2} }, "no targets"},
		{func(t *data.Targets) { t.Slots = 0 }, "targets for 0 slots"},
	}
	for _, c := range cases {
		tg := fullTargets(ds, 2)
		c.edit(tg)
		_, err := PIOPT(ds, tg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
	if _, err := PIOPT(&data.Dataset{}, fullTargets(ds, 2)); err == nil {
		t.Error("empty dataset accepted")
	}
	bad := tiny()
	bad.QueryOffsets[1] = 6
	if _, err := PIOPT(bad, fullTargets(ds, 2)); err == nil {
		t.Error("inconsistent dataset accepted")
	}
}

func TestSUP(t *testing.T) {
	ds := tiny()
	for _, c := range []struct {
		target SupTarget
		labels []float32
	}{
		{Gain, []float32{0, 3, 1, 15, 0}},
		{Relevance, []float32{0, 2, 1, 4, 0}},
	} {
		m, err := SUP(ds, c.target)
		if err != nil {
			t.Fatal(err)
		}
		if m.Rows != 5 || m.Cols != 2 || &m.X[0] != &ds.Features[0] {
			t.Fatalf("%v: %d×%d, shares features: %v", c.target, m.Rows, m.Cols, &m.X[0] == &ds.Features[0])
		}
		if !slices.Equal(m.Labels, c.labels) {
			t.Errorf("%v: labels %v, want %v", c.target, m.Labels, c.labels)
		}
		w := []float32{1. / 3, 1. / 3, 1. / 3, 0.5, 0.5}
		if !slices.Equal(m.Weights, w) {
			t.Errorf("weights %v, want %v", m.Weights, w)
		}
		if m.Meta.Kind != KindSUP || m.Meta.Metric != c.target.String() || m.Meta.Slots != 0 {
			t.Errorf("meta %+v", m.Meta)
		}
	}
	if s, err := ParseSupTarget("relevance"); err != nil || s != Relevance {
		t.Error("ParseSupTarget(relevance)")
	}
	if _, err := ParseSupTarget("grade"); err == nil {
		t.Error("ParseSupTarget(grade) accepted")
	}
}

func TestLambdaMART(t *testing.T) {
	m, err := LambdaMART(tiny())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Labels, []float32{0, 2, 1, 4, 0}) || !slices.Equal(m.Groups, []uint32{3, 2}) || m.Weights != nil {
		t.Fatalf("labels %v groups %v weights %v", m.Labels, m.Groups, m.Weights)
	}
	if m.Meta.Kind != KindLambdaMART {
		t.Errorf("meta %+v", m.Meta)
	}
}

func TestScoring(t *testing.T) {
	ds := tiny()
	m, off, err := Scoring(ds, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Query a: 3 docs × 3 slots; query b: 2 docs × min(3, 2) slots.
	if !slices.Equal(off, []int{0, 9, 13}) || m.Rows != 13 || m.Cols != 5 {
		t.Fatalf("offsets %v, %d×%d", off, m.Rows, m.Cols)
	}
	// Doc 1 of query b, slot 2: row 9 + 1·2 + 1.
	if got := m.AppendRow(nil, 12); !slices.Equal(got, []float32{0, 0, 0, 1, 0}) {
		t.Fatalf("row 12 = %v", got)
	}
	if got := m.AppendRow(nil, 5); !slices.Equal(got, []float32{3, 4, 0, 0, 1}) {
		t.Fatalf("row 5 = %v", got)
	}
	// The scoring rows of a full set of targets are the training rows.
	tm, err := PIOPT(ds, fullTargets(ds, 3))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(allRows(tm), m.X) {
		t.Fatal("scoring rows differ from the rows of full targets")
	}
}

func randomDataset(queries, F int, seed uint64) *data.Dataset {
	r := rand.New(rand.NewPCG(seed, 3))
	ds := &data.Dataset{NumFeatures: F, QueryOffsets: []int{0}, Source: "random"}
	for q := range queries {
		m := 1 + r.IntN(200)
		for range m {
			for range F {
				ds.Features = append(ds.Features, r.Float32())
			}
			ds.Labels = append(ds.Labels, uint8(r.IntN(5)))
		}
		ds.QueryOffsets = append(ds.QueryOffsets, len(ds.Labels))
		ds.QIDs = append(ds.QIDs, string(rune('a'+q%26))+string(rune('0'+q/26%10)))
	}
	return ds
}

// The matrix does not depend on how many goroutines build it.
func TestPIOPTThreadsInvariant(t *testing.T) {
	ds := randomDataset(300, 7, 1)
	tg := fullTargets(ds, 3)
	a, err := PIOPT(ds, tg)
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	b, err := PIOPT(ds, tg)
	if err != nil {
		t.Fatal(err)
	}
	if a.Rows < 1<<15 || !slices.Equal(allRows(a), allRows(b)) || !slices.Equal(a.Labels, b.Labels) || !slices.Equal(a.Weights, b.Weights) {
		t.Fatalf("%d rows; parallel and serial builds differ", a.Rows)
	}
}

// Fill, AppendRow and Value read the same rows, whether stored (SUP) or made
// on demand (PI-OPT), over any row range.
func TestMatrixReaders(t *testing.T) {
	ds := tiny()
	pi, err := PIOPT(ds, fullTargets(ds, 2))
	if err != nil {
		t.Fatal(err)
	}
	sup, err := SUP(ds, Gain)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*Matrix{pi, sup} {
		var rows []float32
		for i := range m.Rows {
			rows = m.AppendRow(rows, i)
		}
		if len(rows) != m.Rows*m.Cols {
			t.Fatalf("%s: %d values from AppendRow, want %d", m.Meta.Kind, len(rows), m.Rows*m.Cols)
		}
		for r := range m.Rows {
			for c := range m.Cols {
				if got := m.Value(r, c); got != rows[r*m.Cols+c] {
					t.Errorf("%s: Value(%d, %d) = %v, AppendRow gave %v", m.Meta.Kind, r, c, got, rows[r*m.Cols+c])
				}
			}
		}
		for lo := range m.Rows {
			for hi := lo; hi <= m.Rows; hi++ {
				dst := make([]float32, (hi-lo)*m.Cols+1)
				dst[len(dst)-1] = 42 // past the range: untouched
				m.Fill(dst, lo, hi)
				if !slices.Equal(dst[:len(dst)-1], rows[lo*m.Cols:hi*m.Cols]) || dst[len(dst)-1] != 42 {
					t.Fatalf("%s: Fill(%d, %d) = %v, want %v", m.Meta.Kind, lo, hi, dst, rows[lo*m.Cols:hi*m.Cols])
				}
			}
		}
	}
	// A PI-OPT row's one-hot part is rewritten, not left from a previous row.
	dst := []float32{9, 9, 9, 9}
	pi.Fill(dst, 0, 1)
	if !slices.Equal(dst, []float32{1, 2, 1, 0}) {
		t.Errorf("Fill over a used buffer = %v", dst)
	}
}

// SameRows holds for two targets of one log (other targets and weights)
// and fails on a moved slot, a copy of the features and stored rows.
func TestSameRows(t *testing.T) {
	ds := randomDataset(20, 4, 1)
	base := fullTargets(ds, 3)
	mk := func(d *data.Dataset, tg *data.Targets) *Matrix {
		m, err := PIOPT(d, tg)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	retarget := func(moveSlot bool) *data.Targets {
		o := *base
		o.Target, o.Weight, o.Slot = slices.Clone(base.Target), slices.Clone(base.Weight), slices.Clone(base.Slot)
		for i := range o.Target {
			o.Target[i], o.Weight[i] = 1-o.Target[i], 2*o.Weight[i]
		}
		if moveSlot {
			o.Slot[5] = o.Slot[5]%3 + 1
		}
		return &o
	}
	a := mk(ds, base)
	copied := *ds
	copied.Features = slices.Clone(ds.Features)
	for _, c := range []struct {
		name string
		o    *Matrix
		want bool
	}{
		{"other targets and weights", mk(ds, retarget(false)), true},
		{"one slot moved", mk(ds, retarget(true)), false},
		{"a copy of the features", mk(&copied, base), false},
		{"rows stored", &Matrix{X: make([]float32, a.Rows*a.Cols), Rows: a.Rows, Cols: a.Cols}, false},
	} {
		if got := a.SameRows(c.o); got != c.want {
			t.Errorf("%s: SameRows %v, want %v", c.name, got, c.want)
		}
	}
}
