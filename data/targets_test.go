package data

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func sampleTargets() *Targets {
	return &Targets{
		Header: map[string]string{"logging": "uniform", "metric": "ndcg@2"},
		Slots:  2,
		Query:  []int32{0, 0, 0, 1, 1},
		Doc:    []int32{0, 0, 3, 1, 1},
		Slot:   []uint8{1, 2, 1, 1, 2},
		Target: []float64{0.1, -1.0 / 3, 7, math.Nextafter(1, 2), 0},
		Weight: []float64{0.125, 0.125, 0.125, 3, 3},
	}
}

// Writing then reading gives back the exact rows and the header.
func TestTargetsRoundTrip(t *testing.T) {
	ds := smallDataset()
	tg := sampleTargets()
	path := filepath.Join(t.TempDir(), "t.targets")
	if err := SaveTargets(path, tg, ds); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	wantHead := "# piopt-targets v1 slots=2 metric=ndcg@2 logging=uniform\nq1\t0\t1\t0.1\t0.125\nq1\t0\t2\t-0.3333333333333333\t0.125\n"
	if !strings.HasPrefix(string(raw), wantHead) {
		t.Fatalf("file starts\n%s", raw[:min(len(raw), 200)])
	}
	back, err := ReadTargets(path, ds)
	if err != nil {
		t.Fatal(err)
	}
	if back.Slots != 2 || back.Header["logging"] != "uniform" || back.Len() != tg.Len() {
		t.Fatalf("read %+v", back)
	}
	for i := range tg.Target {
		if back.Query[i] != tg.Query[i] || back.Doc[i] != tg.Doc[i] || back.Slot[i] != tg.Slot[i] ||
			back.Target[i] != tg.Target[i] || back.Weight[i] != tg.Weight[i] {
			t.Fatalf("row %d differs", i)
		}
	}
	// The bytes do not depend on how the rows are split among writers.
	var a bytes.Buffer
	WriteTargets(&a, back, ds)
	if a.String() != string(raw) {
		t.Fatal("rewriting the read targets changes the bytes")
	}
}

// Unsorted rows are sorted; a repeated row is refused naming both lines.
func TestReadTargetsSortsAndRefusesDuplicates(t *testing.T) {
	ds := smallDataset()
	dir := t.TempDir()
	p := filepath.Join(dir, "u.targets")
	os.WriteFile(p, []byte("# piopt-targets v1 slots=2\nq2\t1\t1\t5\t1\nq1\t2\t2\t3\t1\nq1\t2\t1\t4\t1\n"), 0o644)
	tg, err := ReadTargets(p, ds)
	if err != nil {
		t.Fatal(err)
	}
	if tg.Query[0] != 0 || tg.Slot[0] != 1 || tg.Target[0] != 4 || tg.Target[2] != 5 {
		t.Fatalf("not sorted: %+v", tg)
	}
	os.WriteFile(p, []byte("# piopt-targets v1 slots=2\nq1\t2\t1\t4\t1\nq2\t1\t1\t5\t1\nq1\t2\t1\t3\t1\n"), 0o644)
	if _, err := ReadTargets(p, ds); err == nil || !strings.Contains(err.Error(), "u.targets:4:") || !strings.Contains(err.Error(), "repeats line 2") {
		t.Fatalf("duplicate: %v", err)
	}
}

func TestReadTargetsErrors(t *testing.T) {
	ds := smallDataset()
	head := "# piopt-targets v1 slots=2\n"
	checkErrCases(t, "", []errCase{
		{"empty", "", ErrHeader, "empty file"},
		{"log header", "# piopt-log v1 slots=2\n", ErrHeader, "piopt-targets"},
		{"no slots", "# piopt-targets v1 logging=uniform\n", ErrHeader, "lacks slots"},
		{"slots too big", "# piopt-targets v1 slots=256\n", ErrHeader, "outside 1..255"},
		{"other dataset", "# piopt-targets v1 slots=2 queries=4\n", ErrHeader, "queries=4"},
		{"unknown qid", head + "qq\t0\t1\t1\t1\n", ErrQID, `t.targets:2: field 1 ("qq")`},
		{"doc out of range", head + "q2\t2\t1\t1\t1\n", ErrRow, "field 2"},
		{"slot 0", head + "q2\t1\t0\t1\t1\n", ErrRow, "slot must be 1..2"},
		{"slot beyond header", head + "q2\t1\t3\t1\t1\n", ErrRow, "field 3"},
		{"NaN target", head + "q2\t1\t1\tNaN\t1\n", ErrNumber, "field 4"},
		{"negative weight", head + "q2\t1\t1\t1\t-1\n", ErrNumber, "field 5"},
		{"four fields", head + "q2\t1\t1\t1\n", ErrRow, "4 tab-separated fields"},
		{"six fields", head + "q2\t1\t1\t1\t1\t1\n", ErrRow, "more than 5"},
		{"no rows", head + "# only a comment\n", ErrRow, "t.targets: no target rows after the header"},
		{"all weights 0", head + "q2\t1\t1\t1\t0\nq2\t0\t2\t1\t0\n", ErrNumber,
			"t.targets: every row's weight is 0: a model trained on it would learn nothing"},
		{"slots above every row", "# piopt-targets v1 slots=3\nq1\t0\t1\t1\t1\nq1\t1\t2\t1\t1\nq1\t2\t1\t1\t1\n", ErrHeader,
			"t.targets:1: header slots=3, but no row has a slot above 2 although a query has 3 candidate documents"},
		{"target beyond float32", head + "q2\t1\t1\t1e300\t1\n", ErrNumber,
			`t.targets:2: field 4 ("1e300"): target 1e+300 is outside float32's range ±3.403e+38, which training uses`},
		{"weight beyond float32", head + "q2\t1\t1\t1\t1e39\n", ErrNumber, `t.targets:2: field 5 ("1e39"): weight 1e+39 is outside float32's range`},
	}, func(t *testing.T, text string) error {
		p := filepath.Join(t.TempDir(), "t.targets")
		os.WriteFile(p, []byte(text), 0o644)
		_, err := ReadTargets(p, ds)
		return err
	})
	if _, err := ReadTargets(filepath.Join(t.TempDir(), "none"), ds); err == nil {
		t.Fatal("missing file accepted")
	}
}

// Slots above every row are fine when no query has candidates for them,
// and a few zero weights are fine.
func TestReadTargetsShortQueries(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.targets")
	os.WriteFile(p, []byte("# piopt-targets v1 slots=5\nq2\t0\t1\t1\t0\nq2\t0\t2\t1\t0\nq2\t1\t1\t1\t0.5\nq2\t1\t2\t1\t0.5\n"), 0o644)
	tg, err := ReadTargets(p, smallDataset())
	if err != nil || tg.Len() != 4 {
		t.Fatalf("%v", err)
	}
}

// Many rows, split among parallel writers, still come out in order.
func TestWriteTargetsLarge(t *testing.T) {
	ds := smallDataset()
	n := 200000
	tg := &Targets{Header: map[string]string{}, Slots: 1}
	for i := range n {
		tg.Query = append(tg.Query, 0)
		tg.Doc = append(tg.Doc, int32(i%4))
		tg.Slot = append(tg.Slot, 1)
		tg.Target = append(tg.Target, float64(i))
		tg.Weight = append(tg.Weight, float64(i/3))
	}
	var buf bytes.Buffer
	if err := WriteTargets(&buf, tg, ds); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != n+1 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, i := range []int{0, 1, 2, 3, 32767, 32768, 65536, n - 1} {
		want := strings.Join([]string{"q1", []string{"0", "1", "2", "3"}[i%4], "1", strconv.Itoa(i), strconv.Itoa(i / 3)}, "\t")
		if lines[i+1] != want {
			t.Fatalf("row %d: %q, want %q", i, lines[i+1], want)
		}
	}
}
