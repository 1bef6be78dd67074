package data

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// The fixtures in testdata/rowlog were written by DuckDB
// (testdata/rowlog/duckdb.mjs), an independent writer, as a warehouse
// exports a table.

func pqF(x float64) *float64 { return &x }

// readAllParquet reads every row of path, copying each (the reader
// reuses its LogRow).
func readAllParquet(path string) ([]LogRow, error) {
	var rows []LogRow
	err := ReadParquetLog(path, func(row int64, r *LogRow) error {
		if row != int64(len(rows)+1) {
			return fmt.Errorf("row %d after %d rows", row, len(rows))
		}
		rows = append(rows, pqCopyRow(r))
		return nil
	})
	return rows, err
}

func pqCopyRow(r *LogRow) LogRow {
	c := LogRow{Context: r.Context, Slate: slices.Clone(r.Slate), Policy: pqCopyPolicy(r.Policy), Target: pqCopyPolicy(r.Target)}
	if r.Reward != nil {
		c.Reward = pqF(*r.Reward)
	}
	return c
}

func pqCopyPolicy(p *RowPolicy) *RowPolicy {
	if p == nil {
		return nil
	}
	c := &RowPolicy{Spec: p.Spec, Candidates: slices.Clone(p.Candidates), Scores: slices.Clone(p.Scores), Probs: slices.Clone(p.Probs)}
	if p.Slates != nil {
		c.Slates = make([][]string, len(p.Slates))
		for i, s := range p.Slates {
			c.Slates[i] = slices.Clone(s)
		}
	}
	return c
}

// TestReadParquetLogDuckDB reads DuckDB's files field by field: every
// column OPTIONAL, columns out of order, an extra column, struct columns
// with null fields, empty lists (kept as empty, not nil), null structs
// (nil), rewards as DOUBLE, DECIMAL and integers, and no policy column.
func TestReadParquetLogDuckDB(t *testing.T) {
	cands := []string{"d1", "d3", "d9", "d4"}
	tests := []struct {
		file string
		want []LogRow
	}{
		{"good.parquet", []LogRow{
			{Context: "q17", Slate: []string{"d3", "d1", "d9"}, Reward: pqF(0.42),
				Policy: &RowPolicy{Spec: "pl:1", Candidates: cands, Scores: []float64{0.2, 1.3, -0.4, 0}}},
			{Context: "q17@b", Slate: []string{"d4", "d1"}, Reward: pqF(0),
				Policy: &RowPolicy{Spec: "uniform", Candidates: cands},
				Target: &RowPolicy{Spec: "rank", Candidates: []string{"d4", "d3", "d1", "d9"}}},
			{Context: "q18", Slate: []string{"é1", "d2"}, Reward: pqF(1),
				Policy: &RowPolicy{Spec: "eps:0.2,pa:1", Candidates: []string{"d2", "é1", "d5"}},
				Target: &RowPolicy{Spec: "pl:0.5", Candidates: []string{"d2", "é1", "d5"}, Scores: []float64{1e-300, -2.5, 3}}},
			{Context: "q19", Slate: []string{"a:b", "c=d"}, Reward: pqF(-0.25),
				Policy: &RowPolicy{Spec: "slates", Slates: [][]string{{"a:b", "c=d"}, {"c=d", "a:b"}, {}}, Probs: []float64{0.75, 0.25, 0}}},
			{Context: "q20", Slate: []string{}, Reward: pqF(3.5)},
			{Context: "q21", Slate: []string{"x"}, Reward: pqF(2),
				Policy: &RowPolicy{Spec: "pl:2", Candidates: []string{}, Scores: []float64{}, Slates: [][]string{}, Probs: []float64{}}},
		}},
		{"bare.parquet", []LogRow{
			{Context: "q1", Slate: []string{"d1", "d2"}, Reward: pqF(0.42)},
			{Context: "q2", Slate: []string{"d2"}, Reward: pqF(1.5)},
		}},
		{"intreward.parquet", []LogRow{
			{Context: "q1", Slate: []string{"d1"}, Reward: pqF(1)},
			{Context: "q2", Slate: []string{"d2"}, Reward: pqF(-3)},
		}},
	}
	for _, tc := range tests {
		got, err := readAllParquet(filepath.Join("testdata", "rowlog", tc.file))
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\ngot  %s\nwant %s", tc.file, pqShowRows(got), pqShowRows(tc.want))
		}
	}
}

func pqShowRows(rows []LogRow) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "\n  %q %#v %v", r.Context, r.Slate, *r.Reward)
		for _, p := range []*RowPolicy{r.Policy, r.Target} {
			fmt.Fprintf(&b, " %#v", p)
		}
	}
	return b.String()
}

// TestReadParquetLogRowGroups reads DuckDB's 5000 rows in three row groups
// (2048, 2048, 904) and several pages per column, each as the generator
// wrote it.
func TestReadParquetLogRowGroups(t *testing.T) {
	got, err := readAllParquet(filepath.Join("testdata", "rowlog", "many.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5000 {
		t.Fatalf("%d rows, want 5000", len(got))
	}
	for k, r := range got {
		i := k + 1
		want := LogRow{Context: fmt.Sprintf("q%d", i%7), Slate: []string{fmt.Sprintf("d%d", i%5), fmt.Sprintf("d%d", (i+1)%5)},
			Reward: pqF(float64(i%16) / 8)}
		if i%3 != 0 {
			s := float64(i%4) / 4
			want.Policy = &RowPolicy{Spec: "pl:1", Candidates: []string{"d0", "d1", "d2", "d3", "d4"}, Scores: []float64{s, s + 1, s + 2, s + 3, s + 4}}
		}
		if !reflect.DeepEqual(r, want) {
			t.Fatalf("row %d:%s\nwant%s", i, pqShowRows([]LogRow{r}), pqShowRows([]LogRow{want}))
		}
	}
}

// TestReadParquetLogBad: each bad fixture is refused with one line naming
// file, row (when a row is at fault) and field, of the right kind; the
// rows before it reached fn.
func TestReadParquetLogBad(t *testing.T) {
	tests := []struct {
		file string
		rows int // read before the error
		kind error
		msg  string
	}{
		{"null_reward.parquet", 1, ErrParquetLog, "row 2: field reward: null"},
		{"null_candidate.parquet", 0, ErrParquetLog, "row 1: field policy.candidates[1]: null"},
		{"null_score.parquet", 1, ErrParquetLog, "row 2: field policy.scores[3]: null"},
		{"null_slates_entry.parquet", 0, ErrParquetLog, "row 1: field policy.slates[1]: null"},
		{"null_context.parquet", 0, ErrParquetLog, "row 1: field context: null"},
		{"null_spec.parquet", 0, ErrParquetLog, "row 1: field target.spec: null"},
		{"nan_reward.parquet", 0, ErrValue, "row 1: field reward: NaN is not a finite number"},
		{"bad_id.parquet", 0, ErrDocID, `row 1: field slate[1]: "d\t2": document id contains a space, tab or line end`},
		{"missing_slate.parquet", 0, ErrParquetLog, "column slate missing (a log needs context, slate and reward)"},
		{"wrong_type.parquet", 0, ErrParquetLog, "column reward: BYTE_ARRAY (STRING), want a number (DOUBLE, FLOAT, INT32 or INT64, or a DECIMAL on these)"},
		{"wrong_list_type.parquet", 0, ErrParquetLog, "column slate: INT32 (INT(32,true)), want a LIST of string (BYTE_ARRAY, plain, STRING or ENUM)"},
		{"unknown_field.parquet", 0, ErrParquetLog, "column policy.temperature: unknown field (a policy has spec, candidates, scores, slates, probs)"},
	}
	for _, tc := range tests {
		path := filepath.Join("testdata", "rowlog", tc.file)
		rows, err := readAllParquet(path)
		if want := path + ": " + tc.msg; err == nil || err.Error() != want {
			t.Errorf("%s: error %v\nwant %s", tc.file, err, want)
			continue
		}
		if !errors.Is(err, tc.kind) || len(rows) != tc.rows {
			t.Errorf("%s: kind %v (want %v), %d rows before it (want %d)", tc.file, err, tc.kind, len(rows), tc.rows)
		}
	}
}

// TestReadParquetLogPaths refuses what is not a regular Parquet file.
func TestReadParquetLogPaths(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short.parquet")
	notpq := filepath.Join(dir, "text.parquet")
	if err := os.WriteFile(short, []byte("PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notpq, []byte("context,slate,reward\nq1,d1,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{dir, dir + ": not a regular file (a folder), refused: a Parquet log is read from its footer at the end"},
		{os.DevNull, os.DevNull + ": not a regular file (a device), refused: a Parquet log is read from its footer at the end"},
		{short, short + ": not a Parquet file: 4 bytes, fewer than a Parquet file's 12-byte frame"},
		{notpq, notpq + ": not a Parquet file (no PAR1 at its end: truncated, or another format)"},
	}
	for _, tc := range tests {
		if _, err := readAllParquet(tc.path); err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v\nwant %s", tc.path, err, tc.want)
		}
	}
	if _, err := readAllParquet(filepath.Join(dir, "none.parquet")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestReadParquetLogCorrupt truncates and damages a fixture: every
// prefix and every single-byte change either reads or is an error naming
// the file, never a panic.
func TestReadParquetLogCorrupt(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "rowlog", "good.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bad.parquet")
	try := func(b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readAllParquet(path); err != nil {
			checkParquetError(t, err, path)
		}
	}
	// Every prefix that cuts into the footer (the last 800 bytes: schema,
	// row groups), every 11th before; every 3rd byte changed (17th with
	// -short).
	for n := 0; n < len(src); n++ {
		if n%11 == 0 || n > len(src)-800 {
			try(src[:n])
		}
	}
	step := 3
	if testing.Short() {
		step = 17
	}
	for i := 0; i < len(src); i += step {
		b := slices.Clone(src)
		b[i] ^= 0x5a
		try(b)
	}
}

// checkParquetError fails unless err is a one-line *ParseError naming
// file.
func checkParquetError(t *testing.T, err error, file string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != file || !strings.HasPrefix(err.Error(), file+": ") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %q is not a one-line *ParseError naming %s", err, file)
	}
}

// TestReadParquetLogFn: fn's error stops the read and comes back as it
// is; fn's panic is not taken for a corrupt file.
func TestReadParquetLogFn(t *testing.T) {
	path := filepath.Join("testdata", "rowlog", "many.parquet")
	stop := errors.New("stop")
	n := 0
	err := ReadParquetLog(path, func(row int64, r *LogRow) error {
		if n++; row == 3000 {
			return stop
		}
		return nil
	})
	if err != stop || n != 3000 {
		t.Fatalf("error %v after %d rows, want stop after 3000", err, n)
	}
	defer func() {
		if p := recover(); p != "fn" {
			t.Fatalf("recovered %v, want fn's own panic", p)
		}
	}()
	_ = ReadParquetLog(path, func(int64, *LogRow) error { panic("fn") })
	t.Fatal("fn's panic was swallowed")
}

// TestReadParquetLogListNames reads DuckDB's file with its lists'
// `element` renamed (pyarrow's older writers say `item`): the names of a
// LIST's inner nodes are not checked, its layout is.
func TestReadParquetLogListNames(t *testing.T) {
	src := filepath.Join("testdata", "rowlog", "good.parquet")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	renamed := bytes.ReplaceAll(b, []byte("element"), []byte("item_el"))
	if bytes.Equal(renamed, b) {
		t.Fatal("no element node in good.parquet")
	}
	path := filepath.Join(t.TempDir(), "item.parquet")
	if err := os.WriteFile(path, renamed, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := readAllParquet(src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAllParquet(path)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("renamed: error %v\ngot  %s\nwant %s", err, pqShowRows(got), pqShowRows(want))
	}
}

// pqRequiredRow is the row as a writer with non-null columns lays it out
// (pyarrow with not-null fields; here parquet-go): REQUIRED columns and
// elements, its own column order, an extra column.
type pqRequiredRow struct {
	Policy  *pqRequiredPolicy `parquet:"policy,optional"`
	Reward  float32           `parquet:"reward"`
	Extra   int64             `parquet:"user_id"`
	Slate   []string          `parquet:"slate,list"`
	Context string            `parquet:"context"`
}

type pqRequiredPolicy struct {
	Probs      []float64 `parquet:"probs,list"`
	Spec       string    `parquet:"spec"`
	Candidates []string  `parquet:"candidates,list"`
	Scores     []int32   `parquet:"scores,list"`
}

// TestReadParquetLogRequired reads a file whose columns are REQUIRED
// (numbers as FLOAT and INT32), written by parquet-go.
func TestReadParquetLogRequired(t *testing.T) {
	path := filepath.Join(t.TempDir(), "req.parquet")
	in := []pqRequiredRow{
		{Policy: &pqRequiredPolicy{Spec: "pl:1", Candidates: []string{"a", "b"}, Scores: []int32{-2, 7}}, Reward: 0.5, Extra: 9, Slate: []string{"b"}, Context: "c1"},
		{Reward: 0.1, Slate: []string{"a", "b"}, Context: "c2"},
	}
	pqWrite(t, path, in)
	got, err := readAllParquet(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []LogRow{
		{Context: "c1", Slate: []string{"b"}, Reward: pqF(0.5), Policy: &RowPolicy{Spec: "pl:1", Candidates: []string{"a", "b"}, Scores: []float64{-2, 7}, Probs: []float64{}}},
		{Context: "c2", Slate: []string{"a", "b"}, Reward: pqF(float64(float32(0.1)))},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %s\nwant %s", pqShowRows(got), pqShowRows(want))
	}
}

func pqWrite[T any](t testing.TB, path string, rows []T) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLogRowParquetTags writes LogRow itself with its parquet tags and
// reads it back: the tags lay out the schema the reader reads.
func TestLogRowParquetTags(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tags.parquet")
	in := []LogRow{
		{Context: "q1", Slate: []string{"d2", "d1"}, Reward: pqF(0.25),
			Policy: &RowPolicy{Spec: "pl:0.5", Candidates: []string{"d1", "d2", "d3"}, Scores: []float64{1, math.SmallestNonzeroFloat64, -1}},
			Target: &RowPolicy{Spec: "slates", Slates: [][]string{{"d1", "d2"}, {"d3"}}, Probs: []float64{0.5, 0.5}}},
		{Context: "q2", Slate: []string{"x"}, Reward: pqF(-1)},
	}
	pqWrite(t, path, in)
	got, err := readAllParquet(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Errorf("got  %s\nwant %s", pqShowRows(got), pqShowRows(in))
	}
}

// FuzzReadParquetLog reads arbitrary bytes as a Parquet log, seeded with
// the fixtures: no panic, and every error names the file.
func FuzzReadParquetLog(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "rowlog", "*.parquet"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no fixtures: %v", err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "f.parquet")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		err := ReadParquetLog(path, func(row int64, r *LogRow) error {
			if r.Reward == nil || math.IsNaN(*r.Reward) || math.IsInf(*r.Reward, 0) || r.Context == "" || r.Slate == nil {
				t.Fatalf("row %d accepted: %+v", row, r)
			}
			return nil
		})
		if err != nil {
			checkParquetError(t, err, path)
		}
	})
}

// BenchmarkReadParquetLog reads a log of 10^5 rows, each with its own
// Plackett–Luce policy over m = 20 candidates (scores) and a slate of 3,
// written by parquet-go with LogRow's tags (every column OPTIONAL, as
// DuckDB writes them, snappy pages): rows/s is the reader's speed.
func BenchmarkReadParquetLog(b *testing.B) {
	const rows, m = 100_000, 20
	path := filepath.Join(b.TempDir(), "bench.parquet")
	in := make([]LogRow, rows)
	for i := range in {
		cands := make([]string, m)
		scores := make([]float64, m)
		for j := range cands {
			cands[j] = fmt.Sprintf("doc%d", (i*7+j)%500)
			scores[j] = float64((i*31+j*17)%1000) / 997
		}
		in[i] = LogRow{Context: fmt.Sprintf("q%d", i%3000), Slate: cands[3:6], Reward: pqF(float64(i%5) / 4),
			Policy: &RowPolicy{Spec: "pl:1", Candidates: cands, Scores: scores}}
	}
	pqWrite(b, path, in)
	in = nil
	b.ResetTimer()
	for b.Loop() {
		n := 0
		err := ReadParquetLog(path, func(int64, *LogRow) error { n++; return nil })
		if err != nil || n != rows {
			b.Fatalf("%d rows, error %v", n, err)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	if st, err := os.Stat(path); err == nil {
		b.ReportMetric(float64(st.Size())/rows, "file-B/row")
	}
}
