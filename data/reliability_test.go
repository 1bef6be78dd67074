package data

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The tests below are named after the classes of issue 30's audit: each
// case there failed (a silent wrong result, a crash, or a lesser slip)
// before these rules.

// readAll reads every impression of the log text, returning the first
// error.
func readImpressions(t *testing.T, r io.Reader, ds *Dataset) (int, error) {
	t.Helper()
	lr, err := NewLogReader(r, "c.log", ds)
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		_, err := lr.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// Two logs concatenated, plain or as two gzip members: the second header
// is refused (naming file and line) unless it repeats the first.
func TestSilentWrongResults_ConcatenatedLogs(t *testing.T) {
	ds := smallDataset()
	a := "# piopt-log v1 slots=2 logging=uniform\nq1\t0,1\t1\n"
	b := "# piopt-log v1 slots=2 logging=pa:1 rank-by=feature:1\nq2\t0,1\t0\n"
	for name, text := range map[string][]byte{
		"plain": []byte(a + b),
		"gzip":  append(gzipped(t, []byte(a)), gzipped(t, []byte(b))...),
	} {
		r, c, err := openSlateBytes(t, text)
		if err != nil {
			t.Fatal(err)
		}
		_, err = readImpressions(t, r, ds)
		c.Close()
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File != "c.log" || pe.Line != 3 || !errors.Is(err, ErrHeader) || !strings.Contains(err.Error(), "second `# piopt-log` header") {
			t.Errorf("%s: error %v, want a second-header error on c.log:3", name, err)
		}
	}
	// The same header again is skipped: the two logs are one.
	if n, err := readImpressions(t, strings.NewReader(a+a), ds); err != nil || n != 2 {
		t.Errorf("identical headers: %d impressions, %v", n, err)
	}
	// A comment that merely mentions the magic word is still a comment.
	if n, err := readImpressions(t, strings.NewReader(a+"# piopt-logs are nice\n"), ds); err != nil || n != 1 {
		t.Errorf("comment: %d impressions, %v", n, err)
	}
	// A headerless log may not contain a header further down.
	lr, err := OpenLogAssumingReader(strings.NewReader("q1\t0\t1\n"+a), ds, Header{"slots": "2", "logging": "uniform"})
	if err != nil {
		t.Fatal(err)
	}
	lr.Next()
	if _, err := lr.Next(); err == nil || !strings.Contains(err.Error(), "inside a log read without one") {
		t.Errorf("headerless then header: %v", err)
	}
}

// openSlateBytes opens text as openSlateFile opens a file.
func openSlateBytes(t *testing.T, text []byte) (io.Reader, io.Closer, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.log")
	if err := os.WriteFile(p, text, 0o644); err != nil {
		t.Fatal(err)
	}
	return openSlateFile(p)
}

// OpenLogAssumingReader is OpenLogAssuming over a reader, for tests.
func OpenLogAssumingReader(r io.Reader, ds *Dataset, assumed Header) (*LogReader, error) {
	return newLogReader(r, "c.log", ds, assumed)
}

// Ids are any UTF-8 text without control characters, spaces or ','; ids
// holding ':' and '=' (which policy files give a meaning) round-trip
// through a policy file.
func TestSilentWrongResults_IDs(t *testing.T) {
	for _, id := range []string{"a\x00b", "a\x1b[31mb", "a\x7fb", "a\x01", "\xff\xfe"} {
		text := "0 qid:1 1:1 # " + id + "\n"
		_, err := Read(strings.NewReader(text), "x.txt", commentOpts())
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File != "x.txt" || pe.Line != 1 || pe.Field == 0 || !errors.Is(err, ErrDocID) {
			t.Errorf("id %q: error %v, want ErrDocID naming file, line and field", id, err)
		}
	}
	text := "1 qid:7 1:1 # a:b\n0 qid:7 1:1 # c=d\n2 qid:7 1:1 # x:1=2\n1 qid:7 1:1 # é\n"
	ds, err := Read(strings.NewReader(text), "x.txt", commentOpts())
	if err != nil {
		t.Fatal(err)
	}
	entries := []PolicyEntry{
		{Context: "7", Query: 0, Spec: "pl:1", Docs: []int32{0, 1, 2, 3}, Scores: []float64{1.5, -2, 3, 0.25}},
		{Context: "7@s", Query: 0, Spec: "slates", Docs: []int32{2, 1, 0}, Slates: []int32{0, 1, 2, 1}, Probs: []float64{0.25, 0.75}},
	}
	var b bytes.Buffer
	if err := WritePolicy(&b, Header{}, 2, entries, ds); err != nil {
		t.Fatal(err)
	}
	pf, err := ReadPolicy(bytes.NewReader(b.Bytes()), "x.policy", ds)
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	got := pf.Entries
	if len(got) != 2 || !equalInt32(got[0].Docs, entries[0].Docs) || !equalFloat(got[0].Scores, entries[0].Scores) ||
		!equalInt32(got[1].Docs, entries[1].Docs) || !equalInt32(got[1].Slates, entries[1].Slates) || !equalFloat(got[1].Probs, entries[1].Probs) {
		t.Errorf("round trip:\n%s\ngot %+v", b.String(), got)
	}
}

func equalInt32(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalFloat(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Counts a header gives are bounded before anything is allocated by them.
func TestCrashesInsteadOfRefusals_HeaderCounts(t *testing.T) {
	ds := smallDataset()
	for _, s := range []string{"2000000000", "256", "9223372036854775807"} {
		_, err := NewLogReader(strings.NewReader("# piopt-log v1 slots="+s+" logging=uniform\nq1\t0\t1\n"), "c.log", ds)
		if err == nil || !strings.Contains(err.Error(), "must be in 1..255") {
			t.Errorf("log slots=%s: %v", s, err)
		}
		_, err = ReadPolicy(strings.NewReader("# piopt-policy v1 slots="+s+"\nq1\tuniform\t0\n"), "c.policy", ds)
		if err == nil || !strings.Contains(err.Error(), "must be in 1..255") {
			t.Errorf("policy slots=%s: %v", s, err)
		}
	}
}

// Inputs read whole (--query-file, --model) refuse devices and files
// above their cap, naming it, instead of reading for ever.
func TestCrashesInsteadOfRefusals_DeviceInputs(t *testing.T) {
	if _, err := ReadFileCapped("/dev/zero", 1<<20, "--model"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("/dev/zero: %v", err)
	}
	opt := DefaultReadOptions()
	opt.NoCache, opt.QueryFile = true, "/dev/zero"
	if _, err := Read(strings.NewReader("0 1:1\n"), "x.txt", opt); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("--query-file /dev/zero: %v", err)
	}
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFileCapped(big, 10, "--model"); err == nil || !strings.Contains(err.Error(), "limit of 10 bytes") {
		t.Errorf("big file: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			f.Write(make([]byte, 100))
			f.Close()
		}
	}()
	if _, err := ReadFileCapped(fifo, 10, "--model"); err == nil || !strings.Contains(err.Error(), "limit of 10 bytes") {
		t.Errorf("FIFO: %v", err)
	}
}

// Hexadecimal floats are refused in logs, policy files and targets, as
// the LETOR reader refuses them: one number syntax in every reader.
func TestLesser_HexFloats(t *testing.T) {
	ds := smallDataset()
	for _, v := range []string{"0x1p-2", "0X1P-2", "0x_1p0"} {
		if _, err := readImpressions(t, strings.NewReader("# piopt-log v1 slots=2 logging=uniform\nq1\t0,1\t"+v+"\n"), ds); !errors.Is(err, ErrNumber) {
			t.Errorf("log reward %s: %v", v, err)
		}
		if _, err := ReadPolicy(strings.NewReader("# piopt-policy v1 slots=2\nq1\tpl:1\t0:"+v+",1:1\n"), "c.policy", ds); !errors.Is(err, ErrNumber) {
			t.Errorf("policy score %s: %v", v, err)
		}
		if _, err := ReadPolicy(strings.NewReader("# piopt-policy v1 slots=1\nq1\tslates\t0="+v+",1=0.75\n"), "c.policy", ds); !errors.Is(err, ErrNumber) {
			t.Errorf("policy probability %s: %v", v, err)
		}
		for _, row := range []string{"q1\t0\t1\t" + v + "\t1\n", "q1\t0\t1\t1\t" + v + "\n"} {
			if _, err := readTargets(strings.NewReader("# piopt-targets v1 slots=1\n"+row), "c.targets", ds); !errors.Is(err, ErrNumber) {
				t.Errorf("targets row %q: %v", row, err)
			}
		}
		if _, err := readTargetScores(strings.NewReader("q1\t0\t"+v+"\n"), "c.scores", ds); !errors.Is(err, ErrNumber) {
			t.Errorf("target score %s: %v", v, err)
		}
		if _, err := readRun(strings.NewReader("q1 Q0 0 1 "+v+" t\n"), "c.run", ds); !errors.Is(err, ErrNumber) {
			t.Errorf("run score %s: %v", v, err)
		}
	}
	// The new target readers refuse control bytes in document names too.
	for _, doc := range []string{"d\x00", "d\x1b[31m", "d\x7f"} {
		if _, err := readTargetScores(strings.NewReader("q1\t"+doc+"\t1\n"), "c.scores", ds); !errors.Is(err, ErrSlate) {
			t.Errorf("target scores document %q: %v", doc, err)
		}
		if _, err := readRun(strings.NewReader("q1 Q0 "+doc+" 1 1 t\n"), "c.run", ds); !errors.Is(err, ErrSlate) {
			t.Errorf("run document %q: %v", doc, err)
		}
	}
}

// A line as long as the LETOR reader accepts (a 2 MB qid) is read back
// from a log; a writer refuses a line longer than the readers accept.
func TestLesser_LineLength(t *testing.T) {
	qid := strings.Repeat("q", 2<<20)
	ds := &Dataset{Labels: []uint8{0, 1}, QueryOffsets: []int{0, 2}, QIDs: []string{qid}, Source: "long.txt"}
	var b bytes.Buffer
	lw, err := NewLogWriter(&b, Header{"slots": "2", "logging": "uniform"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := lw.Write(qid, 0, []int32{1, 0}, 0.5); err != nil {
		t.Fatal(err)
	}
	if n, err := readImpressions(t, &b, ds); err != nil || n != 1 {
		t.Fatalf("2 MB qid: %d impressions, %v", n, err)
	}
	if err := checkLineLength("slate log", make([]byte, maxTextLine+1)); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("over-long line: %v", err)
	}
}
