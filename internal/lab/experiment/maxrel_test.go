package experiment

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/piopt/piopt/data"
)

// maxRelTexts are LETOR texts in the line forms data.Load accepts, with
// the highest grade each holds.
var maxRelTexts = []struct {
	name, text string
	want       int
}{
	{"plain", "1 qid:1 1:0.5\n3 qid:1 1:1\n0 qid:2 2:1\n", 3},
	{"no final newline", "1 qid:1 1:0.5\n0 qid:2 2:1\n2 qid:2 1:3", 2},
	{"crlf", "1 qid:1 1:0.5\r\n4 qid:1 1:1\r\n0 qid:2 2:1\r\n", 4},
	{"lone cr", "1 qid:1 1:0.5\r4 qid:1 1:1\r0 qid:2 2:1\r", 4},
	{"comments and blanks", "# 4 qid:9 header\n\n  \t\n2 qid:1 1:1 # docid = 4\n\t1\tqid:1 1:2#3\n   # 4\n", 2},
	{"comment glued to a field", "2 qid:1 1:1#4 qid:1 1:1\n1 qid:1#4\n", 2},
	{"leading zeros and -0", "003 qid:1 1:1\n-0 qid:1 1:1\n", 3},
	{"empty", "", 0},
}

// TestScanMaxLabel: ScanMaxLabel finds the grade data.Load finds, plain
// and gzip, however the text is cut into pieces.
func TestScanMaxLabel(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	for _, c := range maxRelTexts {
		plain := filepath.Join(dir, "plain.txt")
		if err := os.WriteFile(plain, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		var zb bytes.Buffer
		zw := gzip.NewWriter(&zb)
		zw.Write([]byte(c.text))
		zw.Close()
		gz := filepath.Join(dir, "plain.txt.gz")
		if err := os.WriteFile(gz, zb.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if c.text != "" {
			ds, err := data.Load(plain, data.ReadOptions{NoCache: true})
			if err != nil || ds.MaxLabel() != c.want {
				t.Fatalf("%s: data.Load: %v, %v; want highest grade %d", c.name, ds, err, c.want)
			}
		}
		for _, p := range []string{plain, gz} {
			if g, err := ScanMaxLabel(ctx, p, 4); err != nil || g != c.want {
				t.Errorf("%s: ScanMaxLabel(%s) = %d, %v; want %d", c.name, filepath.Base(p), g, err, c.want)
			}
		}
		// Every cut into pieces of n bytes (line ends, CRLF and labels
		// split across pieces).
		for n := 1; n <= len(c.text); n++ {
			s := labelScanner{maxLabel: 4, line: 1}
			var err error
			for i := 0; i < len(c.text) && err == nil; i += n {
				err = s.feed([]byte(c.text[i:min(i+n, len(c.text))]))
			}
			if err == nil {
				err = s.end()
			}
			if err != nil || s.highest != c.want {
				t.Errorf("%s in pieces of %d: %d, %v; want %d", c.name, n, s.highest, err, c.want)
			}
		}
	}
}

// TestScanMaxLabelErrors: grades data.Load refuses are errors naming file
// and line.
func TestScanMaxLabelErrors(t *testing.T) {
	dir := t.TempDir()
	for text, want := range map[string]string{
		"1 qid:1 1:1\n5 qid:1 1:1\n":        ":2: label 5 outside 0..4 (--max-label)",
		"1 qid:1 1:1\r\n\r\nx qid:1 1:1\n":  `:3: label "x" not an integer`,
		"1 qid:1\r2 qid:1\r-1 qid:1 1:1\n":  ":3: label -1 outside 0..4 (--max-label)",
		"1.0 qid:1 1:1\n":                   `:1: label "1.0" not an integer`,
		strings.Repeat("1", 100) + " qid:1": `:1: label "11111111111111111111"... not an integer`,
	} {
		p := filepath.Join(dir, "bad.txt")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ScanMaxLabel(context.Background(), p, 4)
		if err == nil || err.Error() != p+want {
			t.Errorf("%q:\n got %v\nwant %s%s", text, err, p, want)
		}
	}
	if _, err := ScanMaxLabel(context.Background(), filepath.Join(dir, "missing.txt"), 4); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if g, err := ScanMaxLabel(context.Background(), writeFile(t, dir, "g6.txt", "6 qid:1 1:1\n"), 6); err != nil || g != 6 {
		t.Errorf("--max-label 6: %d, %v", g, err)
	}
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDatasetMaxRel: the highest grade over every fold's train and test
// files, not the validation files, each read once.
func TestDatasetMaxRel(t *testing.T) {
	folds := []Fold{{1, "1/train", "1/vali", "1/test"}, {2, "2/train", "2/vali", "2/test"}}
	grades := map[string]int{"1/train": 1, "1/vali": 4, "1/test": 0, "2/train": 2, "2/vali": 3, "2/test": 1}
	var read []string
	g, err := DatasetMaxRel(context.Background(), folds, func(p string) (int, error) {
		read = append(read, p)
		return grades[p], nil
	})
	if err != nil || g != 2 || strings.Join(read, " ") != "1/train 1/test 2/train 2/test" {
		t.Errorf("DatasetMaxRel = %d, %v after reading %v; want 2 after the train and test files", g, err, read)
	}
	boom := errors.New("boom")
	if _, err := DatasetMaxRel(context.Background(), folds, func(string) (int, error) { return 0, boom }); err != boom {
		t.Errorf("error %v, want boom", err)
	}
}

// BenchmarkMaxLabel compares ScanMaxLabel with data.Load (cache hit and
// parse) on an MSLR-shaped file: PIOPT_MAXREL_BENCH=FILE.
func BenchmarkMaxLabel(b *testing.B) {
	path := os.Getenv("PIOPT_MAXREL_BENCH")
	if path == "" {
		b.Skip("PIOPT_MAXREL_BENCH=FILE not set")
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	cache := b.TempDir()
	if _, err := data.Load(path, data.ReadOptions{CacheDir: cache}); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		f    func() (int, error)
	}{
		{"scan", func() (int, error) { return ScanMaxLabel(ctx, path, 4) }},
		{"load-cached", func() (int, error) {
			ds, err := data.Load(path, data.ReadOptions{CacheDir: cache})
			if err != nil {
				return 0, err
			}
			return ds.MaxLabel(), nil
		}},
		{"load-parse", func() (int, error) {
			ds, err := data.Load(path, data.ReadOptions{NoCache: true})
			if err != nil {
				return 0, err
			}
			return ds.MaxLabel(), nil
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(st.Size())
			start := time.Now()
			for range b.N {
				if _, err := c.f(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/file")
		})
	}
}
