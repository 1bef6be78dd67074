package data

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/piopt/piopt/internal/datatest"
)

func TestParseLine(t *testing.T) {
	sx := &lineSyntax{maxLabel: 4, wantQID: true}
	tests := []struct {
		line  string
		label uint8
		qid   string
		idx   []int32
		val   []float32
		blank bool
	}{
		{line: "2 qid:1 1:3 2:0.5 136:-18.567793", label: 2, qid: "1", idx: []int32{1, 2, 136}, val: []float32{3, 0.5, -18.567793}},
		{line: "0 qid:10002 1:0.007477 #docid = GX008-86-4444840 inc = 1", qid: "10002", idx: []int32{1}, val: []float32{0.007477}},
		{line: "1 qid:85 3:1.0 # docid = clueweb09-en0006-78-20618 ", label: 1, qid: "85", idx: []int32{3}, val: []float32{1}},
		{line: "4 qid:a-b\t7:1e-3 \r", label: 4, qid: "a-b", idx: []int32{7}, val: []float32{0.001}},
		{line: "3 qid:5", label: 3, qid: "5"},
		{line: "1 qid:5 1:+1 2:.5 3:1e5 4:-.25 5:5.", label: 1, qid: "5", idx: []int32{1, 2, 3, 4, 5}, val: []float32{1, 0.5, 1e5, -0.25, 5}},
		{line: "  1   qid:5   2:7#comment glued", label: 1, qid: "5", idx: []int32{2}, val: []float32{7}},
		{line: "", blank: true},
		{line: " \t\r", blank: true},
		{line: "# only a comment", blank: true},
	}
	for _, tt := range tests {
		pl, idx, val, fe := parseLine([]byte(tt.line), sx, nil, nil)
		if fe != nil {
			t.Errorf("%q: error field %d: %v", tt.line, fe.field, fe.err)
			continue
		}
		if pl.blank != tt.blank || pl.label != tt.label || string(pl.qid) != tt.qid || pl.n != len(tt.idx) {
			t.Errorf("%q: got blank=%v label=%d qid=%q n=%d", tt.line, pl.blank, pl.label, pl.qid, pl.n)
		}
		if !equalInts(idx, tt.idx) || !equalFloats(val, tt.val) {
			t.Errorf("%q: got %v %v, want %v %v", tt.line, idx, val, tt.idx, tt.val)
		}
	}
}

func TestParseLineErrors(t *testing.T) {
	tests := []struct {
		line     string
		features int
		noQID    bool
		field    int
		kind     error
		msg      string
	}{
		{line: "x qid:1 1:0", field: 1, kind: ErrLabel, msg: "label not an integer"},
		{line: "1.5 qid:1 1:0", field: 1, kind: ErrLabel, msg: "label not an integer"},
		{line: "5 qid:1 1:0", field: 1, kind: ErrLabel, msg: "label 5 outside 0..4"},
		{line: "-1 qid:1 1:0", field: 1, kind: ErrLabel, msg: "label -1 outside 0..4"},
		{line: "99999999999999999999 qid:1", field: 1, kind: ErrLabel, msg: "outside 0..4"},
		{line: "1 1:0 2:1", field: 2, kind: ErrQID, msg: "missing qid:"},
		{line: "1", field: 2, kind: ErrQID, msg: "missing qid:"},
		{line: "1 qid: 1:0", field: 2, kind: ErrQID, msg: "empty qid"},
		{line: "1 qid:3 1:0", noQID: true, field: 2, kind: ErrQID, msg: "query file"},
		{line: "1 qid:1 1:0 2", field: 4, kind: ErrFeature, msg: "not of the form index:value"},
		{line: "1 qid:1 a:0", field: 3, kind: ErrFeature, msg: "index not an integer"},
		{line: "1 qid:1 :0", field: 3, kind: ErrFeature, msg: "index not an integer"},
		{line: "1 qid:1 0:1", field: 3, kind: ErrFeature, msg: "feature index < 1"},
		{line: "1 qid:1 3:1 2:1", field: 4, kind: ErrFeature, msg: "feature index 2 not increasing (after 3)"},
		{line: "1 qid:1 3:1 3:1", field: 4, kind: ErrFeature, msg: "not increasing"},
		{line: "1 qid:1 137:1", features: 136, field: 3, kind: ErrFeature, msg: "above --features 136"},
		{line: "1 qid:1 99999999999:1", field: 3, kind: ErrFeature, msg: "above the limit"},
		{line: "1 qid:1 5:abc", field: 3, kind: ErrValue},
		{line: "1 qid:1 5:", field: 3, kind: ErrValue},
		{line: "1 qid:1 5:nan", field: 3, kind: ErrValue},
		{line: "1 qid:1 5:-Inf", field: 3, kind: ErrValue},
		{line: "1 qid:1 5:1e39", field: 3, kind: ErrValue},
		{line: "1 qid:1 5:0.5:1", field: 3, kind: ErrValue},
		{line: "1 qid:1 5:infinity", field: 3, kind: ErrValue},
		{line: "1 qid:1 5:0x1p-2", field: 3, kind: ErrValue, msg: "hexadecimal value not accepted"},
		{line: "1 qid:1 5:0X10", field: 3, kind: ErrValue, msg: "hexadecimal value not accepted"},
		{line: "1 qid:1 4:1 5:1_000", field: 4, kind: ErrValue, msg: "underscore in value not accepted"},
		{line: "1 qid:1 5:1_0.5", field: 3, kind: ErrValue, msg: "underscore in value not accepted"},
	}
	for _, tt := range tests {
		sx := &lineSyntax{maxLabel: 4, features: tt.features, wantQID: !tt.noQID, queryFile: "x.query"}
		_, _, _, fe := parseLine([]byte(tt.line), sx, nil, nil)
		if fe == nil {
			t.Errorf("%q: no error", tt.line)
			continue
		}
		if fe.field != tt.field || !errors.Is(fe.err, tt.kind) || !strings.Contains(fe.err.Error(), tt.msg) {
			t.Errorf("%q: got field %d %q, want field %d kind %v containing %q", tt.line, fe.field, fe.err, tt.field, tt.kind, tt.msg)
		}
	}
}

func TestParseLineDoesNotAllocate(t *testing.T) {
	line := []byte("2 qid:17 1:3 2:0.5 3:-18.567793 4:11089534 5:0.000244 6:1e-3 136:7 #docid = x")
	sx := &lineSyntax{maxLabel: 4, wantQID: true}
	idx, val := make([]int32, 0, 16), make([]float32, 0, 16)
	allocs := testing.AllocsPerRun(1000, func() {
		_, _, _, fe := parseLine(line, sx, idx[:0], val[:0])
		if fe != nil {
			t.Fatal(fe.err)
		}
	})
	if allocs != 0 {
		t.Errorf("parseLine allocates %v times per line", allocs)
	}
}

// checkFloat compares parseFloat32 with strconv.ParseFloat(s, 32), which
// also takes the Go-only hexadecimal and underscore spellings that
// parseFloat32 refuses.
func checkFloat(t *testing.T, s string) {
	t.Helper()
	got, ok := parseFloat32([]byte(s))
	want, err := strconv.ParseFloat(s, 32)
	wantOK := err == nil && !math.IsInf(want, 0) && !math.IsNaN(want) && !strings.ContainsAny(s, "xX_")
	if ok != wantOK {
		t.Fatalf("parseFloat32(%q) ok=%v, strconv: %v, %v", s, ok, want, err)
	}
	if ok && math.Float32bits(got) != math.Float32bits(float32(want)) {
		t.Fatalf("parseFloat32(%q) = %v (%#x), strconv: %v (%#x)", s, got, math.Float32bits(got), float32(want), math.Float32bits(float32(want)))
	}
}

func TestParseFloat32MatchesStrconv(t *testing.T) {
	for _, s := range []string{"0", "-0", "+0", "0.0", "-0.000", "1", "156", "11089534", "16777216", "16777217",
		"16777215.5", "16777216.5", "999999999999999", "9999999999999999", "123456789012345678901",
		"0.007477", "6.931275", "-18.567793", "0.00641", "0.75000", "22.076928", "1e-3", "1E5", "-2.5e-7",
		".5", "5.", "-.5", "+1.25", ".", "-", "+", "", "e", "1e", "1.2.3", "0x1p-2", "inf", "-Inf", "NaN",
		"1e39", "3.4028235e38", "3.4028236e38", "1e-50", "1e-45", "0.000000001", "0.12345678", "0.123456789",
		"16777215.99999999", "8388607.5", "8388608.5", "4194303.75", "1_0", "١"} {
		checkFloat(t, s)
	}
	// Random decimals of every shape the fast path takes, and just beyond.
	r := rand.New(rand.NewPCG(1, 2))
	n := 2_000_000
	if testing.Short() {
		n = 100_000
	}
	for range n {
		digits := 1 + r.IntN(17)
		frac := r.IntN(min(digits, 10) + 1)
		var b strings.Builder
		if r.IntN(2) == 0 {
			b.WriteByte('-')
		}
		for i := range digits {
			if i == digits-frac {
				if i == 0 {
					b.WriteByte('0')
				}
				b.WriteByte('.')
			}
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		checkFloat(t, b.String())
	}
	// Midpoints between adjacent float32 values, written with 8 decimals:
	// the hardest case for double rounding.
	for range n / 10 {
		f := float32(r.Float64() * (1 << 24))
		mid := (float64(f) + float64(math.Nextafter32(f, float32(math.Inf(1))))) / 2
		for _, s := range []string{strconv.FormatFloat(mid, 'f', 8, 64), strconv.FormatFloat(mid, 'f', -1, 64), strconv.FormatFloat(mid, 'f', 6, 64)} {
			checkFloat(t, s)
		}
	}
}

// TestParseFloat32SharedData checks every value of the real LETOR files.
func TestParseFloat32SharedData(t *testing.T) {
	dir := datatest.SharedDir(t)
	n := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".md") || strings.HasSuffix(path, ".query") || strings.HasSuffix(path, "readme.txt") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(b), "\n") {
			line, _, _ = strings.Cut(line, "#")
			for _, f := range strings.Fields(line) {
				if _, v, ok := strings.Cut(f, ":"); ok && !strings.HasPrefix(f, "qid:") {
					checkFloat(t, v)
					n++
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d values equal strconv's", n)
}

func FuzzParseFloat32(f *testing.F) {
	for _, s := range []string{"0.007477", "-18.567793", "11089534", "1e-3", ".5", "inf", "16777216.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkFloat(t, s) })
}

// refLine is an independent, slow reading of a line, following the format
// rules directly: what parseLine must agree with.
type refLine struct {
	blank bool
	label int
	qid   string
	idx   []int32
	val   []float32
	field int // of the error; 0 if none
	kind  error
}

var intRE = regexp.MustCompile(`^-?[0-9]+$`)
var digitsRE = regexp.MustCompile(`^[0-9]+$`)

func refParse(line string, sx *lineSyntax) (r refLine) {
	line, _, _ = strings.Cut(line, "#")
	f := strings.FieldsFunc(line, func(c rune) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' })
	if len(f) == 0 {
		r.blank = true
		return r
	}
	fail := func(field int, kind error) refLine { return refLine{field: field, kind: kind} }
	if !intRE.MatchString(f[0]) {
		return fail(1, ErrLabel)
	}
	l, err := strconv.Atoi(f[0])
	if err != nil || l < 0 || l > sx.maxLabel {
		return fail(1, ErrLabel)
	}
	r.label = l
	rest := f[1:]
	if len(rest) > 0 && strings.HasPrefix(rest[0], "qid:") {
		if !sx.wantQID || rest[0] == "qid:" {
			return fail(2, ErrQID)
		}
		r.qid = rest[0][4:]
		rest = rest[1:]
	} else if sx.wantQID {
		return fail(2, ErrQID)
	}
	prev := 0
	for i, tok := range rest {
		field := len(f) - len(rest) + i + 1
		is, vs, ok := strings.Cut(tok, ":")
		if !ok {
			return fail(field, ErrFeature)
		}
		if !digitsRE.MatchString(is) {
			return fail(field, ErrFeature)
		}
		k, err := strconv.Atoi(is)
		if err != nil {
			k = math.MaxInt
		}
		if k < 1 || k <= prev || (sx.features > 0 && k > sx.features) || k > maxFeatureIndex {
			return fail(field, ErrFeature)
		}
		v, err := strconv.ParseFloat(vs, 32)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) || strings.ContainsAny(vs, "xX_") {
			return fail(field, ErrValue)
		}
		r.idx = append(r.idx, int32(k))
		r.val = append(r.val, float32(v))
		prev = k
	}
	return r
}

func FuzzParseLine(f *testing.F) {
	for _, s := range []string{
		"2 qid:1 1:3 2:0.5 136:-18.567793 ",
		"0 qid:10002 1:0.007477 2:0.000000 #docid = GX008-86-4444840 inc = 1 prob = 0.08\r",
		"1 10:0.89 11:0.75",
		"4 qid:x\t3:1e5 7:inf",
		"-0 qid:1 1:.5 2:5. 3:0x1p-2",
		"1 qid: 1:0",
		"3 qid:1 2:1 2:1",
		"",
	} {
		f.Add(s, false, 0)
		f.Add(s, true, 136)
	}
	f.Fuzz(func(t *testing.T, line string, noQID bool, features int) {
		if strings.ContainsRune(line, '\n') {
			return
		}
		sx := &lineSyntax{maxLabel: 4, features: max(0, features%300), wantQID: !noQID}
		pl, idx, val, fe := parseLine([]byte(line), sx, nil, nil)
		want := refParse(line, sx)
		if fe != nil || want.field != 0 {
			if fe == nil || want.field == 0 || fe.field != want.field || !errors.Is(fe.err, want.kind) {
				t.Fatalf("%q: parseLine error %+v, reference field %d %v", line, fe, want.field, want.kind)
			}
			return
		}
		if pl.blank != want.blank || int(pl.label) != want.label || string(pl.qid) != want.qid ||
			!equalInts(idx, want.idx) || !equalFloats(val, want.val) || pl.n != len(want.idx) {
			t.Fatalf("%q: parseLine %+v %v %v, reference %+v", line, pl, idx, val, want)
		}
	})
}

// FuzzRead reads whole inputs with tiny chunks and several workers: it must
// never panic, must agree with a single-chunk read, and what it accepts must
// be a consistent dataset with one document per non-blank line.
func FuzzRead(f *testing.F) {
	f.Add([]byte("2 qid:1 1:3 2:0.5\r\n0 qid:1 2:1\n\n1 qid:7 1:1 3:4 #c\n4 qid:8 1:0"), uint8(3))
	f.Add([]byte("1 qid:1 1:0\n1 qid:2 1:0\n1 qid:1 1:0\n"), uint8(1))
	f.Add([]byte("1 qid:1 1:0 2:0\n1 qid:1 1:0 2"), uint8(7))
	f.Fuzz(func(t *testing.T, text []byte, chunk uint8) {
		small := ReadOptions{NoCache: true, threads: 3, chunkSize: 1 + int(chunk)%32}
		a, errA := Read(bytes.NewReader(text), "f", small)
		b, errB := Read(bytes.NewReader(text), "f", ReadOptions{NoCache: true, threads: 1})
		if (errA == nil) != (errB == nil) || errA != nil && errA.Error() != errB.Error() {
			t.Fatalf("chunked: %v; whole: %v", errA, errB)
		}
		if errA != nil {
			return
		}
		if d := sameDataset(a, b); d != "" {
			t.Fatal(d)
		}
		if err := a.Validate(); err != nil {
			t.Fatal(err)
		}
		// A line ends at LF, CRLF or a lone CR (old Mac files).
		lines := bytes.ReplaceAll(bytes.ReplaceAll(text, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n"))
		docs := 0
		for _, line := range bytes.Split(lines, []byte("\n")) {
			line, _, _ = bytes.Cut(line, []byte("#"))
			if len(bytes.FieldsFunc(line, func(r rune) bool { return r < 128 && separator[r] })) > 0 {
				docs++
			}
		}
		if a.NumDocs() != docs {
			t.Fatalf("%d documents for %d non-blank lines", a.NumDocs(), docs)
		}
	})
}

func equalInts(a, b []int32) bool {
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

func equalFloats(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// parseFloat32 parses all of s as scanFloat32 parses a field: exactly what
// strconv.ParseFloat(string(s), 32) returns, and whether it is finite.
func parseFloat32(s []byte) (float32, bool) {
	v, end, ok := scanFloat32(s, 0)
	if end != len(s) {
		// s holds a separator: not a number, but let strconv say so.
		return parseFloat32Slow(s)
	}
	return v, ok
}
