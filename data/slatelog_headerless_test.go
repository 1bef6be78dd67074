package data

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// readAll returns every impression of a log as (qid index, slate, reward,
// line) and its header.
func readAll(t *testing.T, lr *LogReader) ([]LogRecord, Header) {
	t.Helper()
	var out []LogRecord
	for {
		r, err := lr.Next()
		if err == io.EOF {
			return out, lr.Header()
		}
		if err != nil {
			t.Fatal(err)
		}
		r.Slate = append([]int32(nil), r.Slate...)
		out = append(out, r)
	}
}

func TestHeaderlessLogReadsAsHeadered(t *testing.T) {
	ds := smallDataset()
	body := "q1\t0,1,2\t1\n\n# comment\nq2\t1,0\t0.5\nq1\t3\t0\n"
	head := "# piopt-log v1 slots=3 logging=uniform candidates=0\n"
	assumed := Header{"slots": "3", "logging": "uniform", "candidates": "0"}

	lr, err := NewLogReader(strings.NewReader(head+body), "h.log", ds)
	if err != nil {
		t.Fatal(err)
	}
	want, wantH := readAll(t, lr)
	lr, err = newLogReader(strings.NewReader(body), "n.log", ds, assumed)
	if err != nil {
		t.Fatal(err)
	}
	if !lr.headerless {
		t.Error("Headerless() = false for a log without a header")
	}
	got, gotH := readAll(t, lr)
	if len(got) != 3 || len(want) != 3 {
		t.Fatalf("read %d and %d impressions, want 3", len(got), len(want))
	}
	for i := range got {
		// The headerless log's lines are one earlier: it has no header line.
		if got[i].line != want[i].line-1 {
			t.Errorf("impression %d: line %d, want %d", i, got[i].line, want[i].line-1)
		}
		got[i].line = want[i].line
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotH, wantH) {
		t.Errorf("headerless read %v %v, headered %v %v", got, gotH, want, wantH)
	}
	assumed["slots"] = "9" // the reader keeps its own copy
	if lr.Slots() != 3 || lr.Header()["slots"] != "3" {
		t.Errorf("assumed header not copied: slots %d", lr.Slots())
	}

	// A log with a header ignores what is assumed, and a log without one
	// whose first line is blank starts at its first impression.
	lr, err = newLogReader(strings.NewReader(head+body), "h.log", ds, Header{"slots": "2", "logging": "pa:1"})
	if err != nil || lr.Slots() != 3 || lr.headerless {
		t.Fatalf("headered log with an assumed header: slots %d, headerless %v, %v", lr.Slots(), lr.headerless, err)
	}
	lr, err = newLogReader(strings.NewReader("\n"+body), "b.log", ds, Header{"slots": "3", "logging": "uniform"})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := readAll(t, lr); len(got) != 3 || got[0].line != 2 {
		t.Errorf("blank first line: %d impressions, first on line %d", len(got), got[0].line)
	}
}

func TestHeaderlessLogErrors(t *testing.T) {
	ds := smallDataset()
	body := "q1\t0,1,2\t1\n"
	for _, c := range []struct {
		name    string
		text    string
		assumed Header
		want    string
	}{
		{"no slots", body, Header{"logging": "uniform"}, "n.log:1: no header line (`# piopt-log v1 key=value ...`) and no --slots: a log without a header needs the flags to say what its header's slots= would"},
		{"no logging", body, Header{"slots": "3"}, "no --logging or --policy"},
		{"nothing assumed", body, Header{}, "no --slots"},
		{"nil: a header is required", body, nil, "n.log:1: first line is not a `# piopt-log v1 key=value ...` header"},
		{"headered, lacking slots", "# piopt-log v1 logging=uniform\n" + body, Header{"slots": "3"}, "header lacks slots="},
		{"row checked as with a header", "q1\t0,1,1\t1\n", Header{"slots": "3", "logging": "uniform"}, "n.log:1: field 2"},
		{"empty file", "", Header{"slots": "3", "logging": "uniform"}, "n.log: empty file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			lr, err := newLogReader(strings.NewReader(c.text), "n.log", ds, c.assumed)
			if err == nil {
				_, err = lr.Next()
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
			if c.name != "row checked as with a header" && !errors.Is(err, ErrHeader) {
				t.Errorf("error %v is not ErrHeader", err)
			}
		})
	}
}

func TestOpenLogAssuming(t *testing.T) {
	path := filepath.Join(t.TempDir(), "n.log")
	if err := os.WriteFile(path, []byte("q2\t1\t0.25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lr, err := OpenLogAssuming(path, smallDataset(), Header{"slots": "2", "logging": "uniform"})
	if err != nil {
		t.Fatal(err)
	}
	defer lr.Close()
	got, h := readAll(t, lr)
	if len(got) != 1 || got[0].Reward != 0.25 || !reflect.DeepEqual(got[0].Slate, []int32{1}) || h["slots"] != "2" {
		t.Errorf("read %+v with header %v", got, h)
	}
	if _, err := OpenLog(path, smallDataset()); err == nil {
		t.Error("OpenLog accepted a log without a header")
	}
}
