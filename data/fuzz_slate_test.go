package data

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
)

// checkFileError fails unless err is a *ParseError naming file, with a line
// unless its kind concerns the whole file (one of whole).
func checkFileError(t *testing.T, err error, file string, whole ...error) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != file {
		t.Fatalf("error %q is not a *ParseError naming %s", err, file)
	}
	if pe.Line > 0 {
		return
	}
	for _, k := range whole {
		if errors.Is(err, k) {
			return
		}
	}
	t.Fatalf("error %q names no line", err)
}

// FuzzLogReader reads arbitrary slate logs against smallDataset: no panic;
// every error names the file and a line (or is about the whole file), and
// every impression read respects the dataset and the header's slots.
func FuzzLogReader(f *testing.F) {
	head := "# piopt-log v1 slots=3 logging=uniform\n"
	for _, s := range []string{"", head, head + "q1\t0,1,2\t1\nq2\t1,0\t0.5\r\n\n# c\nq3\t0\t-0\n",
		head + "q1\t3,1,3\t1\n", head + "q1\t0,1,2,3\t1\n", head + "q9\t0\t1\n", head + "q1\t0\tNaN\n",
		"# piopt-log v1 slots=x logging=uniform\n", "# piopt-log v1 slots=2 logging=\"a b\" docs=7 queries=3\nq1\t1\t1e308\n"} {
		f.Add([]byte(s))
	}
	ds := smallDataset()
	f.Fuzz(func(t *testing.T, text []byte) {
		lr, err := NewLogReader(bytes.NewReader(text), "f.log", ds)
		if err != nil {
			checkFileError(t, err, "f.log", ErrHeader)
			return
		}
		for {
			rec, err := lr.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				checkFileError(t, err, "f.log", ErrNoImpressions)
				return
			}
			checkRecord(t, ds, lr.Slots(), rec)
		}
	})
}

func checkRecord(t *testing.T, ds *Dataset, slots int, rec LogRecord) {
	t.Helper()
	if len(rec.Slate) < 1 || len(rec.Slate) > slots || math.IsInf(rec.Reward, 0) || math.IsNaN(rec.Reward) {
		t.Fatalf("line %d: accepted %+v", rec.line, rec)
	}
	seen := map[int32]bool{}
	for _, d := range rec.Slate {
		if d < 0 || int(d) >= ds.QuerySize(rec.Query) || seen[d] {
			t.Fatalf("line %d: accepted slate %v", rec.line, rec.Slate)
		}
		seen[d] = true
	}
}

// FuzzReadTargets reads arbitrary targets files against smallDataset: no
// panic; errors name the file and a line (or the whole file); what is
// accepted is sorted, unique, in range and trainable.
func FuzzReadTargets(f *testing.F) {
	head := "# piopt-targets v1 slots=2\n"
	for _, s := range []string{"", head, head + "q2\t1\t1\t5\t1\nq1\t2\t2\t3\t1\nq1\t2\t1\t4\t1\n",
		head + "q1\t2\t1\t4\t1\nq2\t1\t1\t5\t1\nq1\t2\t1\t3\t1\n", head + "q2\t1\t1\t1e300\t1\n",
		head + "q2\t1\t1\t1\t0\n", "# piopt-targets v1 slots=5\nq2\t0\t1\t1\t0.5\nq2\t1\t2\t1\t0.5\n",
		head + "q2\t1\t1\tNaN\t1\n", head + "q2\t1\t1\t1\t1\t1\n"} {
		f.Add([]byte(s))
	}
	ds := smallDataset()
	f.Fuzz(func(t *testing.T, text []byte) {
		tg, err := readTargets(bytes.NewReader(text), "f.targets", ds)
		if err != nil {
			checkFileError(t, err, "f.targets", ErrHeader, ErrRow, ErrNumber)
			return
		}
		nonzero := false
		for i := range tg.Len() {
			q, d, s := tg.Query[i], tg.Doc[i], tg.Slot[i]
			if i > 0 && !rowLess(tg.Query[i-1], tg.Doc[i-1], tg.Slot[i-1], q, d, s) {
				t.Fatalf("row %d not after row %d", i, i-1)
			}
			if int(d) >= ds.QuerySize(int(q)) || s < 1 || int(s) > tg.Slots ||
				!(math.Abs(tg.Target[i]) <= math.MaxFloat32) || !(tg.Weight[i] >= 0 && tg.Weight[i] <= math.MaxFloat32) {
				t.Fatalf("row %d accepted: %d %d %d %v %v", i, q, d, s, tg.Target[i], tg.Weight[i])
			}
			nonzero = nonzero || tg.Weight[i] != 0
		}
		if !nonzero {
			t.Fatal("targets with every weight 0 accepted")
		}
	})
}

// FuzzQueryFile reads a fixed data file without qid: through an arbitrary
// LightGBM query file: no panic; errors are *ParseErrors naming one of the
// files; an accepted file's groups cover the data.
func FuzzQueryFile(f *testing.F) {
	for _, s := range []string{"", "3\n", "1\n2\n", "2\r\n1\r\n\n", "1\n1\n1\n", "0\n3\n", "x\n", "4\n", "2\n2\n", " 1 \n\t2\n"} {
		f.Add([]byte(s))
	}
	const text = "1 1:1\n0 1:2\n2 1:3\n"
	f.Fuzz(func(t *testing.T, q []byte) {
		qf := queryFile{path: "f.query", data: q}
		ds, err := parse(context.Background(), newHashReader(strings.NewReader(text)), "f.txt",
			ReadOptions{NoCache: true, threads: 1, MaxLabel: 4, chunkSize: 8}, qf, false, 0)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "f.query" && pe.File != "f.txt" {
				t.Fatalf("error %q is not a *ParseError naming a file", err)
			}
			if pe.Line == 0 && !errors.Is(err, ErrGroups) {
				t.Fatalf("error %q names no line", err)
			}
			return
		}
		if ds.NumDocs() != 3 || ds.QueryOffsets[ds.NumQueries()] != 3 {
			t.Fatalf("accepted groups %v", ds.QueryOffsets)
		}
	})
}

// FuzzParseHeader parses arbitrary header lines: no panic; an error read
// from a file names the file and line 1; what parses formats back to a line
// that parses to the same header.
func FuzzParseHeader(f *testing.F) {
	for _, s := range []string{"# piopt-log v1 slots=3 logging=uniform", "# piopt-log v1 data=\"a b\" zeta=\"\"",
		"#piopt-log v1", "# piopt-log v2 a=1", "# piopt-log v1 a=1 a=2", "# piopt-log v1 a=\"x", "# piopt-log v1 =1",
		"# piopt-log v1 k=a\tb j=1\r", "# piopt-targets v1 slots=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		lr := &lineReader{name: "f.log", br: bufio.NewReader(strings.NewReader(line + "\n"))}
		h, err := lr.readHeader(LogMagic)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "f.log" || pe.Line != 1 && !strings.ContainsAny(line, "\n") {
				t.Fatalf("error %q does not name f.log:1", err)
			}
			return
		}
		if strings.ContainsAny(line, "\r\n") {
			return // a line of the file is only a part of line
		}
		back, err := ParseHeader(h.Format(LogMagic), LogMagic)
		if err != nil || len(back) != len(h) {
			t.Fatalf("%q → %q: %v %v", line, h.Format(LogMagic), back, err)
		}
		for k, v := range h {
			if back[k] != v {
				t.Fatalf("%q → %q: %s=%q, want %q", line, h.Format(LogMagic), k, back[k], v)
			}
		}
	})
}
