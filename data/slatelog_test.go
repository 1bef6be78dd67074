package data

import (
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// smallDataset has queries "q1" (4 docs), "q2" (2 docs), "q3" (1 doc).
func smallDataset() *Dataset {
	return &Dataset{
		Labels:       []uint8{0, 1, 2, 0, 1, 0, 2},
		QueryOffsets: []int{0, 4, 6, 7},
		QIDs:         []string{"q1", "q2", "q3"},
		Source:       "small.txt",
	}
}

func TestHeaderRoundTrip(t *testing.T) {
	h := Header{"slots": "3", "logging": "eps:0.1,pa:1", "data": "my file.txt", "zeta": "", "alpha": `a"b`, "metric": "ndcg@3"}
	line := h.Format(LogMagic)
	want := `# piopt-log v1 slots=3 metric=ndcg@3 logging=eps:0.1,pa:1 data="my file.txt" alpha="a\"b" zeta=""`
	if line != want {
		t.Fatalf("Format:\n got %s\nwant %s", line, want)
	}
	back, err := ParseHeader(line+"\r\n", LogMagic)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(h) {
		t.Fatalf("parsed %v", back)
	}
	for k, v := range h {
		if back[k] != v {
			t.Errorf("%s: %q, want %q", k, back[k], v)
		}
	}
	for _, bad := range []string{
		"piopt-log v1 slots=3",           // no '#'
		"# piopt-targets v1 slots=3",     // other magic
		"# piopt-log v2 slots=3",         // version
		"# piopt-log v1 slots",           // not key=value
		"# piopt-log v1 slots=3 slots=4", // repeated key
		`# piopt-log v1 data="open`,      // unterminated quote
	} {
		if _, err := ParseHeader(bad, LogMagic); err == nil {
			t.Errorf("ParseHeader(%q) accepted", bad)
		}
	}
}

// writeLog writes a log of ds's queries; rows are (qid, slate, reward).
func writeLog(t *testing.T, h Header, ds *Dataset, rows [][3]any) []byte {
	t.Helper()
	var buf bytes.Buffer
	lw, err := NewLogWriter(&buf, h, ds)
	if err != nil {
		t.Fatal(err)
	}
	qids := qidIndex(ds)
	for _, r := range rows {
		if err := lw.Write(r[0].(string), qids[r[0].(string)], r[1].([]int32), r[2].(float64)); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// Rewards round-trip exactly; records come back in order with their lines.
func TestLogRoundTrip(t *testing.T) {
	ds := smallDataset()
	rewards := []float64{0.1, 1.0 / 3, math.Nextafter(0.5, 1), 0, -2.5e-300}
	var rows [][3]any
	for i, r := range rewards {
		rows = append(rows, [3]any{ds.QIDs[i%2], []int32{int32(i % 2), 1 - int32(i%2)}, r})
	}
	text := writeLog(t, Header{"slots": "2", "logging": "uniform", "queries": "3", "docs": "7"}, ds, rows)
	lr, err := NewLogReader(bytes.NewReader(text), "x.log", ds)
	if err != nil {
		t.Fatal(err)
	}
	if lr.Slots() != 2 || lr.Header()["logging"] != "uniform" {
		t.Fatalf("header %v", lr.Header())
	}
	for i, r := range rewards {
		rec, err := lr.Next()
		if err != nil {
			t.Fatal(err)
		}
		if rec.Reward != r || rec.Query != i%2 || rec.line != i+2 || rec.Slate[0] != int32(i%2) {
			t.Fatalf("record %d: %+v", i, rec)
		}
	}
	if _, err := lr.Next(); err != io.EOF {
		t.Fatalf("after the last record: %v", err)
	}
}

func TestLogReaderErrors(t *testing.T) {
	ds := smallDataset()
	head := "# piopt-log v1 slots=3 logging=uniform\n"
	checkErrCases(t, "x.log", []errCase{
		{"empty file", "", ErrHeader, "x.log: empty file"},
		{"no header", "q1\t0,1,2\t1\n", ErrHeader, "x.log:1:"},
		{"no slots", "# piopt-log v1 logging=uniform\n", ErrHeader, "lacks slots="},
		{"no logging", "# piopt-log v1 slots=3\n", ErrHeader, "lacks logging="},
		{"bad slots", "# piopt-log v1 slots=x logging=uniform\n", ErrHeader, "not an integer"},
		{"other dataset", "# piopt-log v1 slots=3 logging=uniform docs=8\n", ErrHeader, "docs=8"},
		{"unknown qid", head + "q9\t0,1,2\t1\n", ErrQID, `x.log:2: field 1 ("q9")`},
		{"doc out of range", head + "q2\t0,2\t1\n", ErrSlate, "document 2 out of range 0..1"},
		{"negative doc", head + "q1\t0,-1\t1\n", ErrSlate, "slot 2"},
		{"repeated doc", head + "q1\t3,1,3\t1\n", ErrSlate, "slot 3 repeats document 3 of slot 1"},
		{"too long", head + "q1\t0,1,2,3\t1\n", ErrSlate, "more than slots=3"},
		{"empty slate", head + "q1\t\t1\n", ErrSlate, "slot 1"},
		{"NaN reward", head + "q1\t0,1,2\tNaN\n", ErrNumber, "field 3"},
		{"Inf reward", head + "q1\t0,1,2\t+Inf\n", ErrNumber, "not a finite number"},
		{"bad reward", head + "q1\t0,1,2\tabc\n", ErrNumber, "not a finite number"},
		{"two fields", head + "q1\t0,1,2\n", ErrRow, "2 tab-separated fields"},
		{"four fields", head + "q1\t0,1,2\t1\tx\n", ErrRow, "more than 3"},
		{"header only", head, ErrNoImpressions, "x.log: no impression after the header line"},
		{"header and comments only", head + "\n# comment\n", ErrNoImpressions, "x.log: no impression"},
		{"error on a later line", head + "\n# comment\nq1\t0,1,2\t1\nq1\t0,1,1\t1\n", ErrSlate, "x.log:5:"},
	}, func(t *testing.T, text string) error {
		lr, err := NewLogReader(strings.NewReader(text), "x.log", ds)
		for err == nil {
			_, err = lr.Next()
		}
		if err == io.EOF {
			return nil // every record read: no error
		}
		return err
	})
}

// OpenLog reads gzip-compressed logs transparently; CRLF line ends are fine.
func TestOpenLogGzipAndCRLF(t *testing.T) {
	ds := smallDataset()
	text := "# piopt-log v1 slots=2 logging=pa:1\r\nq2\t1,0\t0.5\r\nq3\t0\t1\r\n"
	dir := t.TempDir()
	plain := filepath.Join(dir, "a.log")
	os.WriteFile(plain, []byte(text), 0o644)
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte(text))
	zw.Close()
	gz := filepath.Join(dir, "b.log.gz")
	os.WriteFile(gz, zb.Bytes(), 0o644)
	for _, p := range []string{plain, gz} {
		lr, err := OpenLog(p, ds)
		if err != nil {
			t.Fatal(err)
		}
		var got []float64
		for {
			rec, err := lr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, rec.Reward)
		}
		lr.Close()
		if len(got) != 2 || got[0] != 0.5 || got[1] != 1 {
			t.Fatalf("%s: rewards %v", p, got)
		}
	}
	if _, err := OpenLog(filepath.Join(dir, "missing.log"), ds); err == nil {
		t.Fatal("missing file accepted")
	}
}

func TestLogWriterRefuses(t *testing.T) {
	ds := smallDataset()
	if _, err := NewLogWriter(io.Discard, Header{"slots": "3"}, ds); err == nil {
		t.Fatal("header without logging accepted")
	}
	lw, _ := NewLogWriter(io.Discard, Header{"slots": "3", "logging": "uniform"}, ds)
	if err := lw.Write("q1", 0, []int32{0}, math.Inf(1)); err == nil {
		t.Fatal("infinite reward accepted")
	}
}
