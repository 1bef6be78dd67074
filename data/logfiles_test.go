package data

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readFiles returns "qid:reward" of every record of the log files arg, in order.
func readFiles(t *testing.T, arg string, keep func([]byte) bool) ([]string, error) {
	t.Helper()
	lr, err := OpenLogAssuming(arg, smallDataset(), nil)
	if err != nil {
		return nil, err
	}
	defer lr.Close()
	lr.SetFilter(keep)
	var out []string
	for {
		rec, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(rec.Context)+":"+strings.TrimSpace(string(lr.fields[2])))
	}
}

// TestLogFiles: a list, a glob and a folder read their files in the stated
// order as one log; a file with another header is refused naming both
// files and the key; the filter skips records without reading them.
func TestLogFiles(t *testing.T) {
	dir := t.TempDir()
	head := "# piopt-log v1 slots=2 logging=uniform\n"
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	parts := filepath.Join(dir, "parts")
	if err := os.Mkdir(parts, 0o755); err != nil {
		t.Fatal(err)
	}
	b := write("parts/b.log", head+"q1\t0,1\t0.5\nq2\t1,0\t0.25\n")
	a := write("parts/a.log", head+"q1\t2,3\t1\n")
	write("parts/.hidden", "not a log")
	all := []string{"q1:1", "q1:0.5", "q2:0.25"}
	for _, arg := range []string{parts, filepath.Join(parts, "*.log"), a + "," + b} {
		got, err := readFiles(t, arg, nil)
		if err != nil || strings.Join(got, " ") != strings.Join(all, " ") {
			t.Errorf("%s: %v (%v), want %v", arg, got, err, all)
		}
	}
	if got, _ := readFiles(t, b+","+a, nil); strings.Join(got, " ") != "q1:0.5 q2:0.25 q1:1" {
		t.Errorf("list b,a read as %v", got)
	}
	got, err := readFiles(t, parts, func(qid []byte) bool { return string(qid) == "q2" })
	if err != nil || strings.Join(got, " ") != "q2:0.25" {
		t.Errorf("filter q2: %v (%v)", got, err)
	}
	// A shard without any record of its own is an empty result, not an
	// empty log.
	if got, err := readFiles(t, parts, func([]byte) bool { return false }); err != nil || len(got) != 0 {
		t.Errorf("filter nothing: %v (%v)", got, err)
	}
	c := write("c.log", "# piopt-log v1 slots=3 logging=uniform\nq1\t0\t1\n")
	_, err = readFiles(t, a+","+c, nil)
	if err == nil || !strings.Contains(err.Error(), c) || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), "slots=") {
		t.Errorf("different headers: %v", err)
	}
	for _, bad := range []string{filepath.Join(dir, "none*.log"), a + ",", filepath.Join(dir, "empty")} {
		if bad == filepath.Join(dir, "empty") {
			os.Mkdir(bad, 0o755)
		}
		if _, err := LogFiles(bad); err == nil {
			t.Errorf("LogFiles(%q) accepted", bad)
		}
	}
	if files, err := LogFiles(filepath.Join(dir, "missing.log")); err != nil || len(files) != 1 {
		t.Errorf("a missing file: %v %v, want it returned for the open to report", files, err)
	}
}
