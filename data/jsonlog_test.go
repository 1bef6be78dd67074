package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readRows reads a JSON-lines log held in text, returning its rows (deep
// copies) and the error.
func readRows(t *testing.T, text string) ([]LogRow, []int64, error) {
	t.Helper()
	var rows []LogRow
	var lines []int64
	err := readJSONLog(strings.NewReader(text), "log.jsonl", func(n int64, r *LogRow) error {
		c := *r
		c.Slate = append([]string(nil), r.Slate...)
		if r.Policy != nil {
			p := *r.Policy
			p.Candidates = append([]string(nil), p.Candidates...)
			p.Scores = append([]float64(nil), p.Scores...)
			c.Policy = &p
		}
		rw := *r.Reward
		c.Reward = &rw
		rows = append(rows, c)
		lines = append(lines, n)
		return nil
	})
	return rows, lines, err
}

func TestReadJSONLogRows(t *testing.T) {
	text := `{"context": "q17", "slate": ["d3","d1","d9"], "reward": 0.42, "policy": {"spec": "pl:1", "candidates": ["d1","d3","d9","d4"], "scores": [0.2,1.3,-0.4,0.0]}}

{"user":{"id":[1,{"x":null}]},"slate":["a\u00e9","b"],"context":"q@1","reward":-1e-3,"extra":true,"policy":null}
   {"context":"q2","slate":["x"],"reward":2,"policy":{"spec":"slates","candidates":["x","y"],"slates":[["x"],["y"]],"probs":[0.25,0.75]},"target":{"spec":"rank","candidates":["y","x"]}}
`
	rows, lines, err := readRows(t, text)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || lines[0] != 1 || lines[1] != 3 || lines[2] != 4 {
		t.Fatalf("rows %d lines %v", len(rows), lines)
	}
	r := rows[0]
	if r.Context != "q17" || strings.Join(r.Slate, ",") != "d3,d1,d9" || *r.Reward != 0.42 ||
		r.Policy.Spec != "pl:1" || strings.Join(r.Policy.Candidates, ",") != "d1,d3,d9,d4" || r.Policy.Scores[1] != 1.3 || r.Policy.Scores[3] != 0 {
		t.Errorf("row 1: %+v %+v", r, r.Policy)
	}
	if r := rows[1]; r.Context != "q@1" || r.Slate[0] != "aé" || *r.Reward != -0.001 || r.Policy != nil {
		t.Errorf("row 2: %+v", r)
	}
	if r := rows[2]; r.Policy.Spec != "slates" {
		t.Errorf("row 3: %+v", r)
	}
}

func TestReadJSONLogErrors(t *testing.T) {
	const pol = `"policy":{"spec":"pl:1","candidates":["a","b"],"scores":[1,2]}`
	for _, tc := range []struct{ line, want string }{
		{`{"slate":["a"],"reward":1}`, `log.jsonl:1: field context: missing`},
		{`{"context":"q","reward":1}`, `field slate: missing`},
		{`{"context":"q","slate":["a"]}`, `field reward: missing`},
		{`{"context":"q","slate":["a"],"reward":null}`, `field reward: missing`},
		{`{"context":"q","slate":[],"reward":1}`, `field slate: empty`},
		{`{"context":"q","slate":["a","a"],"reward":1}`, `field slate[1]: document "a" repeats slate[0]`},
		{`{"context":"q","slate":["a,b"],"reward":1}`, `field slate[0]: document id contains ','`},
		{`{"context":"q","slate":["a\u0000"],"reward":1}`, `field slate[0]: document id contains the control character 0x00`},
		{`{"context":"q\u001b","slate":["a"],"reward":1}`, `field context: contains the control character 0x1b`},
		{`{"context":"q","slate":["a"],"reward":1e400}`, `field reward: "1e400" is not a finite float64`},
		{`{"context":"q","slate":["a"],"reward":NaN}`, `field reward: not a JSON number`},
		{`{"context":"q","slate":["a"],"reward":0x10}`, `want ',' or '}'`},
		{`{"context":"q","slate":["a"],"reward":"1"}`, `field reward: not a JSON number`},
		{`{"context":"q","context":"r","slate":["a"],"reward":1}`, `field context: key context given twice`},
		{`{"x":1,"x":2,"context":"q","slate":["a"],"reward":1}`, `field x: key "x" given twice`},
		{`{"context":"q","slate":["a"],"reward":1,"policy":{"spec":"pl:1","candidates":["a"],"scores":[1],"temp":2}}`, `field policy.temp: unknown key "temp"`},
		{`{"context":"q","slate":["a"],"reward":1,"policy":{"spec":"pl:1","candidates":["a","b"],"scores":[1,1e999]}}`, `field policy.scores[1]: "1e999" is not a finite float64`},
		{`{"context":"q","slate":["a"],"reward":1,"policy":{"spec":"pl:1","candidates":["a","b"],"scores":[1]}}`, `field policy.scores: 1 scores for 2 candidates`},
		{`{"context":"q","slate":["a"],"reward":1,"policy":{"spec":"pl:1","candidates":["a","b"]}}`, `field policy.scores: missing`},
		{`{"context":"q","slate":["a"],"reward":1,"policy":{"spec":"uniform","candidates":["a","b"],"scores":[1,2]}}`, `field policy.scores: given with spec uniform`},
		{`{"context":"q","slate":["a"],"reward":1,"policy":{"spec":"uniform","candidates":["a","a"]}}`, `field policy.candidates[1]: document "a" repeats`},
		{`{"context":"q","slate":["a"],"reward":1,"policy":{"spec":"rank","candidates":["a"]}}`, `field policy.spec: "rank": want uniform, pa:ALPHA, pl:TAU, slates or eps:E,SPEC`},
		{`{"context":"q","slate":["a"],"reward":1,"target":{"spec":"eps:0.1,rank","candidates":["a"]}}`, `field target.spec: rank is deterministic`},
		{`{"context":"q","slate":["a"],"reward":1,"policy":{"spec":"slates","candidates":["a","b"],"slates":[["a"],["c"]],"probs":[0.5,0.5]}}`, `field policy.slates[1][0]: document "c" is not one of the candidates`},
		{`{"context":"q","slate":["a"],"reward":1,"policy":{"spec":"slates","candidates":["a","b"],"slates":[["a"],["b"]],"probs":[0.5,0.6]}}`, `field policy.probs: slate probabilities sum to 1.1`},
		{`{"context":"q","slate":["a"],"reward":1,"policy":{"spec":"slates","candidates":["a","b"],"slates":[["a"]],"probs":[0.5,0.5]}}`, `field policy.probs: 2 probabilities for 1 slates`},
		{`{"context":"q","slate":["a"],"reward":1} x`, `want the end of the line`},
		{`{"context":"q","slate":["a"],"reward":1`, `want ',' or '}'`},
		{`{"context":"q\x","slate":["a"],"reward":1}`, `field context: bad escape \x`},
		{`{"context":"q\ud800","slate":["a"],"reward":1}`, `lone UTF-16 surrogate`},
		{`[1]`, `log.jsonl:1: not JSON at byte 1 ("["): want '{'`},
		{`{"context":"q","slate":["a"],"reward":01}`, `field reward: not a JSON number`},
		{`{"context":"q","slate":["a"],"reward":1,"deep":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`, `field deep: values nested deeper than 512`},
	} {
		_, _, err := readRows(t, tc.line+"\n")
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s:\n got %v\nwant …%s…", tc.line, err, tc.want)
		}
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File != "log.jsonl" || pe.Line != 1 {
			t.Errorf("%s: not a ParseError at log.jsonl:1: %#v", tc.line, err)
		}
	}
	if _, _, err := readRows(t, "\n  \n"); !errors.Is(err, ErrNoImpressions) {
		t.Errorf("empty log: %v", err)
	}
	_ = pol
}

// TestJSONLogGzipAndDispatch reads the same rows plain and gzipped through
// EachLogRow, and refuses other extensions.
func TestJSONLogGzipAndDispatch(t *testing.T) {
	dir := t.TempDir()
	text := `{"context":"q","slate":["a","b"],"reward":0.5,"policy":{"spec":"uniform","candidates":["a","b","c"]}}` + "\n"
	plain := filepath.Join(dir, "log.jsonl")
	os.WriteFile(plain, []byte(text), 0o644)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Close()
	zipped := filepath.Join(dir, "log.jsonl.gz")
	os.WriteFile(zipped, gz.Bytes(), 0o644)
	for _, p := range []string{plain, zipped} {
		n := 0
		err := EachLogRow(p, func(line int64, r *LogRow) error {
			n++
			if line != 1 || r.Context != "q" || len(r.Policy.Candidates) != 3 {
				t.Errorf("%s: line %d row %+v", p, line, r)
			}
			return nil
		})
		if err != nil || n != 1 || !IsRowLog(p) {
			t.Errorf("%s: %v, %d rows", p, err, n)
		}
	}
	if IsRowLog(filepath.Join(dir, "log.txt")) || EachLogRow(filepath.Join(dir, "log.txt"), nil) == nil {
		t.Error("a .txt log taken for a row log")
	}
	if err := EachLogRow(filepath.Join(dir, "x.parquet"), nil); err == nil {
		t.Error("parquet stub read")
	}
}

// FuzzReadJSONLog: the reader never panics, and every error is one line
// naming the file and, past the file itself, a line.
func FuzzReadJSONLog(f *testing.F) {
	f.Add([]byte(`{"context": "q17", "slate": ["d3","d1","d9"], "reward": 0.42, "policy": {"spec": "pl:1", "candidates": ["d1","d3","d9","d4"], "scores": [0.2,1.3,-0.4,0.0]}}` + "\n"))
	f.Add([]byte(`{"context":"q2","slate":["x"],"reward":2,"policy":{"spec":"slates","candidates":["x","y"],"slates":[["x"],["y"]],"probs":[0.25,0.75]},"target":{"spec":"rank","candidates":["y","x"]}}` + "\n\n{}"))
	f.Add([]byte(`{"a":[{"b":"\u00e9\ud83d\ude00"}],"context":"c","slate":["s"],"reward":-0.5e-3}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		err := readJSONLog(bytes.NewReader(b), "f.jsonl", func(int64, *LogRow) error { return nil })
		if err == nil {
			return
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "f.jsonl:") || strings.Contains(msg, "\n") {
			t.Fatalf("error %q does not start with the file or is not one line", msg)
		}
		var pe *ParseError
		if errors.As(err, &pe) && pe.Line == 0 && !errors.Is(err, ErrNoImpressions) {
			t.Fatalf("error %q names no line", msg)
		}
	})
}

// TestReadJSONLogMissingAfterRow: a row without a slate after one with a
// slate is refused (the reused row keeps nothing from the line before).
func TestReadJSONLogMissingAfterRow(t *testing.T) {
	_, _, err := readRows(t, `{"context":"q","slate":["a"],"reward":1}`+"\n"+`{"context":"q","reward":1}`+"\n")
	if err == nil || err.Error() != "log.jsonl:2: field slate: missing: every row needs context, slate and reward" {
		t.Fatal(err)
	}
}

// A row log's errors about one row count rows in Parquet and lines in
// JSON lines (inUnits), whichever check found them.
func TestRowLogErrorUnits(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"log.parquet", "log.parquet: row 3: field slate[1]: repeated"},
		{"log.jsonl", "log.jsonl:3: field slate[1]: repeated"},
	} {
		err := inUnits(&ParseError{File: tc.file, Line: 3, Name: "slate[1]", Err: errors.New("repeated")})
		if err.Error() != tc.want {
			t.Errorf("%s: %q, want %q", tc.file, err, tc.want)
		}
	}
	if inUnits(nil) != nil {
		t.Error("inUnits(nil) is not nil")
	}
}
