package data

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// sameDataset reports how a and b differ (features bit for bit), or "".
func sameDataset(a, b *Dataset) string {
	switch {
	case a.NumFeatures != b.NumFeatures:
		return fmt.Sprintf("features %d vs %d", a.NumFeatures, b.NumFeatures)
	case fmt.Sprint(a.QIDs) != fmt.Sprint(b.QIDs):
		return fmt.Sprintf("qids %v vs %v", a.QIDs, b.QIDs)
	case fmt.Sprint(a.QueryOffsets) != fmt.Sprint(b.QueryOffsets):
		return fmt.Sprintf("offsets %v vs %v", a.QueryOffsets, b.QueryOffsets)
	case !bytes.Equal(a.Labels, b.Labels):
		return fmt.Sprintf("labels %v vs %v", a.Labels, b.Labels)
	case !equalFloats(a.Features, b.Features):
		for i := range a.Features {
			if i < len(b.Features) && math.Float32bits(a.Features[i]) != math.Float32bits(b.Features[i]) {
				return fmt.Sprintf("feature value %d: %v vs %v", i, a.Features[i], b.Features[i])
			}
		}
		return fmt.Sprintf("%d vs %d feature values", len(a.Features), len(b.Features))
	}
	return ""
}

// naiveRead reads LETOR text the slow, obvious way — strings.Fields per
// line, strconv for numbers — as an independent check of the parser. It
// assumes valid input. groups are LightGBM group sizes (nil: use qid:).
func naiveRead(t testing.TB, text string, groups []int) *Dataset {
	t.Helper()
	ds := &Dataset{}
	type doc struct {
		label uint8
		qid   string
		feat  map[int]float32
	}
	var docs []doc
	for _, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		l, err := strconv.Atoi(f[0])
		if err != nil {
			t.Fatalf("naive: %q: %v", line, err)
		}
		d := doc{label: uint8(l), feat: map[int]float32{}}
		for _, tok := range f[1:] {
			k, v, _ := strings.Cut(tok, ":")
			if k == "qid" {
				d.qid = v
				continue
			}
			i, err1 := strconv.Atoi(k)
			x, err2 := strconv.ParseFloat(v, 32)
			if err1 != nil || err2 != nil {
				t.Fatalf("naive: %q", tok)
			}
			d.feat[i] = float32(x)
			ds.NumFeatures = max(ds.NumFeatures, i)
		}
		docs = append(docs, d)
	}
	if groups != nil {
		at := 0
		for g, n := range groups {
			for i := at; i < at+n; i++ {
				docs[i].qid = strconv.Itoa(g + 1)
			}
			at += n
		}
	}
	for i, d := range docs {
		if i == 0 || d.qid != docs[i-1].qid {
			ds.QIDs = append(ds.QIDs, d.qid)
			ds.QueryOffsets = append(ds.QueryOffsets, i)
		}
		ds.Labels = append(ds.Labels, d.label)
		row := make([]float32, ds.NumFeatures)
		for k, v := range d.feat {
			row[k-1] = v
		}
		ds.Features = append(ds.Features, row...)
	}
	ds.QueryOffsets = append(ds.QueryOffsets, len(docs))
	return ds
}

func noCache() ReadOptions { return ReadOptions{NoCache: true} }

func TestReadFormats(t *testing.T) {
	want := &Dataset{
		NumFeatures:  4,
		QIDs:         []string{"10", "7", "x-9"},
		QueryOffsets: []int{0, 2, 4, 5},
		Labels:       []uint8{2, 0, 1, 0, 4},
		Features: []float32{
			0.5, 0, -1.25, 0,
			0, 3, 0, 0,
			0.001, 0, 0, 7,
			0, 0, 0, 2.5,
			0, 0, 0, 0.125,
		},
	}
	path := filepath.Join("testdata", "formats.txt")
	for _, threads := range []int{1, 2, 3} {
		for _, chunk := range []int{0, 1, 7, 16, 64} {
			opt := noCache()
			opt.threads, opt.chunkSize = threads, chunk
			ds, err := Load(path, opt)
			if err != nil {
				t.Fatalf("threads %d chunk %d: %v", threads, chunk, err)
			}
			if d := sameDataset(ds, want); d != "" {
				t.Errorf("threads %d chunk %d: %s", threads, chunk, d)
			}
			if ds.Source != path {
				t.Errorf("Source %q", ds.Source)
			}
		}
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := sameDataset(naiveRead(t, string(text), nil), want); d != "" {
		t.Errorf("naive reader disagrees with the hand-made expectation: %s", d)
	}
}

func gzipped(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadGzip(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("testdata", "formats.txt"))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Read(bytes.NewReader(text), "formats.txt", noCache())
	if err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(t.TempDir(), "formats.txt.gz")
	if err := os.WriteFile(gz, gzipped(t, text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opt := range []ReadOptions{noCache(), {CacheDir: t.TempDir()}} {
		for range 2 { // the second load comes from the cache when it is on
			ds, err := Load(gz, opt)
			if err != nil {
				t.Fatal(err)
			}
			if d := sameDataset(ds, plain); d != "" {
				t.Error(d)
			}
		}
	}
	// A gzip stream cut short is an error, not a shorter dataset.
	z := gzipped(t, bytes.Repeat(text, 50))
	_, err = Read(bytes.NewReader(z[:len(z)/2]), "cut.gz", noCache())
	if err == nil || !strings.Contains(err.Error(), "cut.gz") || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("truncated gzip: %v", err)
	}
}

func TestQueryFile(t *testing.T) {
	want := &Dataset{
		NumFeatures:  3,
		QIDs:         []string{"1", "2"},
		QueryOffsets: []int{0, 2, 5},
		Labels:       []uint8{1, 0, 2, 0, 1},
		Features:     []float32{0.5, 0, 0.25, 0, 1, 0, 0.75, 0, 0, 0, 0, 1, 1, 1, 1},
	}
	path := filepath.Join("testdata", "nogroups.txt")
	ds, err := Load(path, noCache()) // finds nogroups.txt.query
	if err != nil {
		t.Fatal(err)
	}
	if d := sameDataset(ds, want); d != "" {
		t.Error(d)
	}
	text, _ := os.ReadFile(path)
	opt := noCache()
	opt.QueryFile = path + ".query"
	if ds, err = Read(bytes.NewReader(text), "nogroups.txt", opt); err != nil {
		t.Fatal(err)
	} else if d := sameDataset(ds, want); d != "" {
		t.Error(d)
	}

	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A file with qid: beside a stray .query file is read by its qids.
	p := write("withqid.txt", "1 qid:a 1:1\n0 qid:b 1:2\n")
	write("withqid.txt.query", "2\n")
	if ds, err := Load(p, noCache()); err != nil || ds.NumQueries() != 2 {
		t.Errorf("qid file beside a .query file: %v", err)
	}
	tests := []struct {
		data, groups string
		msg          string
	}{
		{"1 1:1\n0 1:2\n1 1:3\n", "2\n2\n", `g.txt.query:2: group sizes reach 4 here, but ` + dir + `/g.txt has only 3 documents`},
		{"1 1:1\n0 1:2\n1 1:3\n", "1\n1\n", dir + `/g.txt:3: document 3 is beyond the 2 documents of the 2 groups`},
		{"1 1:1\n", "0\n", `g.txt.query:1: field 1 ("0"): group size not a positive integer`},
		{"1 1:1\n", "x\n", `g.txt.query:1: field 1 ("x"): group size not a positive integer`},
		{"1 1:1\n", "1\n9223372036854775807\n9223372036854775807\n", `g.txt.query:2: field 1 ("9223372036854775807"): group size not a positive integer`},
		{"1 1:1\n", "\n", `g.txt.query: no group sizes`},
		{"1 1:1\n1 qid:4 1:1\n", "2\n", `g.txt:2: field 2 ("qid:4"): qid: given, but the query file`},
	}
	for _, tt := range tests {
		p := write("g.txt", tt.data)
		write("g.txt.query", tt.groups)
		_, err := Load(p, noCache())
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%q with groups %q: got %v, want %q", tt.data, tt.groups, err, tt.msg)
		}
	}
}

func TestReadErrors(t *testing.T) {
	dense := "1 qid:1 1:0 2:0 3:1\n0 qid:1 1:0 2:0.5 3:1\n"
	tests := []struct {
		name string
		text string
		opt  ReadOptions
		kind error
		msg  string // the whole message, or its start when it ends in "…"
	}{
		{"label not an integer", "1 qid:1 1:0\n0 qid:1 1:0\nA qid:1 1:0\n", ReadOptions{}, ErrLabel,
			`train.txt:3: field 1 ("A"): label not an integer`},
		{"label outside max", "1 qid:1 1:0\n\n3 qid:1 1:0\n", ReadOptions{MaxLabel: 2}, ErrLabel,
			`train.txt:3: field 1 ("3"): label 3 outside 0..2 (--max-label)`},
		{"label over default 4", "5 qid:1 1:0\n", ReadOptions{}, ErrLabel,
			`train.txt:1: field 1 ("5"): label 5 outside 0..4 (--max-label)`},
		{"index not increasing", "1 qid:1 1:0 3:1 2:0\n", ReadOptions{}, ErrFeature,
			`train.txt:1: field 5 ("2:0"): feature index 2 not increasing (after 3)`},
		{"index below 1", "1 qid:1 0:1\n", ReadOptions{}, ErrFeature,
			`train.txt:1: field 3 ("0:1"): feature index < 1`},
		{"index above --features", "1 qid:1 1:1\n1 qid:1 1:1 137:2\n", ReadOptions{Features: 136}, ErrFeature,
			`train.txt:2: field 4 ("137:2"): feature index 137 above --features 136`},
		{"value not finite", "0 qid:1 1:1\n0 qid:1 1:1\n\n\n\n\n\n\n\n\n\n1 qid:1 5:abc\n", ReadOptions{}, ErrValue,
			`train.txt:12: field 3 ("5:abc"): value not a finite number`},
		{"NaN", "0 qid:1 1:NaN\n", ReadOptions{}, ErrValue, `train.txt:1: field 3 ("1:NaN"): value not a finite number`},
		{"Inf", "0 qid:1 1:1 2:inf\n", ReadOptions{}, ErrValue, `train.txt:1: field 4 ("2:inf"): value not a finite number`},
		{"missing qid", "1 qid:1 1:0\n1 1:0\n", ReadOptions{}, ErrQID,
			`train.txt:2: field 2 ("1:0"): missing qid: (want <label> qid:<id> <index>:<value> ...)`},
		{"qid reappears", "1 qid:1 1:0\n1 qid:2 1:0\n1 qid:1 1:0\n", ReadOptions{}, ErrQIDReappears,
			`train.txt:3: field 2 ("qid:1"): qid 1 reappears: a query's lines must be contiguous (its first block starts at line 1)`},
		{"truncated mid-field", "1 qid:1 1:0 2:1\n1 qid:1 1:0 2:", ReadOptions{}, ErrTruncated,
			`train.txt:2: field 4 ("2:"): truncated last line (no final newline): value not a finite number`},
		{"truncated mid-index", "1 qid:1 1:0 2:1\n1 qid:1 1:0 2", ReadOptions{}, ErrTruncated,
			`train.txt:2: field 4 ("2"): truncated last line (no final newline): feature not of the form index:value`},
		{"truncated qid", "1 qid:1 1:0\n1 qi", ReadOptions{}, ErrTruncated,
			`train.txt:2: field 2 ("qi"): truncated last line (no final newline): missing qid:…`},
		{"truncated dense line", dense + "1 qid:1 1:0 2:0", ReadOptions{}, ErrTruncated,
			`train.txt:3: field 4 ("2:0"): truncated last line (no final newline): 2 features where every other line has 3`},
		{"hex float", "0 qid:1 1:1\n0 qid:1 1:0x1p-2\n", ReadOptions{}, ErrValue,
			`train.txt:2: field 3 ("1:0x1p-2"): hexadecimal value not accepted (LETOR values are decimal)`},
		{"underscore", "0 qid:1 1:1 2:1_000\n", ReadOptions{}, ErrValue,
			`train.txt:1: field 4 ("2:1_000"): underscore in value not accepted (LETOR values are decimal)`},
		{"CR-only line numbers", "# c\r0 qid:1 1:1 # d\r\r1 qid:1 5:abc\r", ReadOptions{}, ErrValue,
			`train.txt:4: field 3 ("5:abc"): value not a finite number`},
		{"empty", "", ReadOptions{}, ErrEmpty, `train.txt: no documents`},
		{"only comments", "# nothing\n\n", ReadOptions{}, ErrEmpty, `train.txt: no documents`},
	}
	for _, tt := range tests {
		for _, chunk := range []int{0, 5, 13} {
			opt := tt.opt
			opt.NoCache, opt.chunkSize = true, chunk
			_, err := Read(strings.NewReader(tt.text), "train.txt", opt)
			var pe *ParseError
			if err == nil || !errors.As(err, &pe) || !errors.Is(err, tt.kind) {
				t.Errorf("%s (chunk %d): got %v, want a *ParseError of kind %v", tt.name, chunk, err, tt.kind)
				continue
			}
			msg, prefix := strings.CutSuffix(tt.msg, "…")
			if got := err.Error(); got != msg && !(prefix && strings.HasPrefix(got, msg)) {
				t.Errorf("%s (chunk %d):\n got %s\nwant %s", tt.name, chunk, got, tt.msg)
			}
		}
	}
}

// TestReadCROnly reads formats.txt with old Mac line ends (lone CR, and
// comments that used to swallow the rest of the file) as the LF original,
// whatever the chunking and the read sizes.
func TestReadCROnly(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("testdata", "formats.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := Read(bytes.NewReader(text), "formats.txt", noCache())
	if err != nil {
		t.Fatal(err)
	}
	lf := bytes.ReplaceAll(text, []byte("\r\n"), []byte("\n"))
	cr := bytes.ReplaceAll(lf, []byte("\n"), []byte("\r"))
	mixed := bytes.Replace(cr, []byte("\r"), []byte("\r\n"), 3) // CRLF, then lone CRs
	for _, in := range [][]byte{lf, cr, append(cr, '\r'), mixed} {
		for _, chunk := range []int{0, 1, 7, 64} {
			opt := noCache()
			opt.chunkSize = chunk
			ds, err := Read(iotest.OneByteReader(bytes.NewReader(in)), "formats.txt", opt)
			if err != nil {
				t.Fatalf("%q chunk %d: %v", in, chunk, err)
			}
			if d := sameDataset(ds, want); d != "" {
				t.Errorf("%q chunk %d: %s", in, chunk, d)
			}
		}
	}
	// Load too, through the cache and the detection of qid: on line 1.
	path := filepath.Join(t.TempDir(), "cr.txt")
	if err := os.WriteFile(path, cr, 0o644); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	for range 2 { // the second from the cache
		ds, err := Load(path, ReadOptions{CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		if d := sameDataset(ds, want); d != "" {
			t.Error(d)
		}
	}
}

func TestReadLastLine(t *testing.T) {
	dense := "1 qid:1 1:0 2:0 3:1\n0 qid:1 1:0 2:0.5 3:1\n"
	for _, text := range []string{
		dense + "1 qid:1 1:0 2:0 3:1",                   // complete, no newline
		dense + "1 qid:1 1:0 2:0 3:1 #docid = x",        // complete, comment cut or not
		dense + "1 qid:1 1:0 2:0\r",                     // the CR of a CRLF: the line ended
		"1 qid:1 1:0 2:0\n1 qid:1 1:5 3:1\n1 qid:1 1:7", // sparse file: fewer features are fine
		dense + "1 qid:1 1:0 3:1",                       // not a prefix of 1..3: not cut
		dense + "   ",                                   // trailing blanks
	} {
		ds, err := Read(strings.NewReader(text), "t.txt", noCache())
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		if d := sameDataset(ds, naiveRead(t, text, nil)); d != "" {
			t.Errorf("%q: %s", text, d)
		}
	}
}

func TestReadLongLine(t *testing.T) {
	text := "1 qid:1 1:0\n" + strings.Repeat("1", maxLineBytes+1) + "\n"
	_, err := Read(strings.NewReader(text), "big.txt", noCache())
	if err == nil || !strings.HasPrefix(err.Error(), "big.txt:2: line longer than") {
		t.Errorf("got %v", err)
	}
}

// TestReadMemoryLimit refuses, before allocating, a dense matrix larger
// than the memory available, whether --features or a sparse index asks for
// it, and says what would fit.
func TestReadMemoryLimit(t *testing.T) {
	defer func(f func() (int64, bool)) { memAvailable = f }(memAvailable)
	memAvailable = func() (int64, bool) { return 64 << 20, true }
	text := strings.Repeat("1 qid:1 1:0.5 3:1\n", 20)
	_, err := Read(strings.NewReader(text), "tiny.txt", ReadOptions{Features: maxFeatureIndex})
	want := "tiny.txt: --features 1048576 makes the dense feature matrix 0.1 GiB (20 documents × 1048576 features × 4 bytes), more than the 0.1 GiB of memory available; at most 838860 features fit for 20 documents"
	if !errors.Is(err, ErrTooLarge) || err.Error() != want {
		t.Errorf("--features:\n got %v\nwant %s", err, want)
	}
	_, err = Read(strings.NewReader(text+"0 qid:2 1048576:1\n"), "tiny.txt", ReadOptions{})
	want = "tiny.txt:21: feature index 1048576 makes the dense feature matrix 0.1 GiB (21 documents × 1048576 features × 4 bytes), more than the 0.1 GiB of memory available; at most 798915 features fit for 21 documents"
	if !errors.Is(err, ErrTooLarge) || err.Error() != want {
		t.Errorf("sparse index:\n got %v\nwant %s", err, want)
	}
	_, err = Read(strings.NewReader(text+"0 qid:2 999999999:1\n"), "tiny.txt", ReadOptions{})
	want = `tiny.txt:21: field 3 ("999999999:1"): feature index above the limit of 1048576 dense features`
	if !errors.Is(err, ErrFeature) || err.Error() != want {
		t.Errorf("huge index:\n got %v\nwant %s", err, want)
	}
	// What fits still reads.
	ds, err := Read(strings.NewReader(text), "tiny.txt", ReadOptions{Features: 838860})
	if err != nil || ds.NumFeatures != 838860 {
		t.Errorf("838860 features: %v", err)
	}
	// A reading of (almost) nothing still lets a matrix of minMemoryBound
	// through, and refuses one larger, saying the bound it used.
	for _, n := range []int64{0, 1 << 10} {
		memAvailable = func() (int64, bool) { return n, true }
		if ds, err := Read(strings.NewReader(text), "tiny.txt", ReadOptions{Features: minMemoryBound / (4 * 20)}); err != nil || ds.NumDocs() != 20 {
			t.Errorf("%d bytes available, a %d-byte matrix: %v", n, minMemoryBound, err)
		}
		_, err := Read(strings.NewReader(text), "tiny.txt", ReadOptions{Features: minMemoryBound/(4*20) + 1})
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "more than the 0.1 GiB of memory available; at most 838860 features fit for 20 documents") {
			t.Errorf("%d bytes available, a matrix above %d bytes: %v", n, minMemoryBound, err)
		}
	}
}

// TestAvailableMemory reads fake /proc and /sys trees: MemAvailable, lowered
// to the room under a cgroup v2 or v1 limit, where the inactive page cache
// counts as room.
func TestAvailableMemory(t *testing.T) {
	const meminfo = "MemTotal:       32768000 kB\nMemAvailable:    1024000 kB\nMemAvailableX: 1 kB\n"
	const v2, v1 = "sys/fs/cgroup/", "sys/fs/cgroup/memory/"
	for _, c := range []struct {
		name  string
		files map[string]string
		want  int64 // -1: not ok
	}{
		{"nothing", nil, -1},
		{"meminfo", map[string]string{"proc/meminfo": meminfo}, 1024000 << 10},
		{"meminfo without the line", map[string]string{"proc/meminfo": "MemTotal: 1 kB\n"}, -1},
		{"v2 unlimited", map[string]string{"proc/meminfo": meminfo, v2 + "memory.max": "max\n", v2 + "memory.current": "5\n"}, 1024000 << 10},
		{"v2 limit", map[string]string{"proc/meminfo": meminfo, v2 + "memory.max": "1000000\n", v2 + "memory.current": "400000\n"}, 600000},
		{"v2 limit, page cache", map[string]string{"proc/meminfo": meminfo, v2 + "memory.max": "1000000\n", v2 + "memory.current": "900000\n",
			v2 + "memory.stat": "anon 100000\nfile 800000\nactive_file 50000\ninactive_file 750000\n"}, 850000},
		{"v2 over its limit", map[string]string{v2 + "memory.max": "1000\n", v2 + "memory.current": "2000\n"}, 0},
		{"v2 limit above meminfo", map[string]string{"proc/meminfo": meminfo, v2 + "memory.max": "999999999999\n", v2 + "memory.current": "0\n"}, 1024000 << 10},
		{"v1 unlimited", map[string]string{"proc/meminfo": meminfo, v1 + "memory.limit_in_bytes": "9223372036854771712\n"}, 1024000 << 10},
		{"v1 limit, page cache", map[string]string{"proc/meminfo": meminfo, v1 + "memory.limit_in_bytes": "1000000\n", v1 + "memory.usage_in_bytes": "700000\n",
			v1 + "memory.stat": "inactive_file 1\ntotal_inactive_file 200000\n"}, 500000},
	} {
		root := t.TempDir()
		for name, text := range c.files {
			path := filepath.Join(root, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		n, ok := availableMemory(root)
		if c.want < 0 && ok || c.want >= 0 && (!ok || n != c.want) {
			t.Errorf("%s: %d, %v; want %d", c.name, n, ok, c.want)
		}
	}
	// The real reading varies (and may be near 0 on a squeezed host); it is
	// there wherever /proc/meminfo is.
	if _, err := os.Stat("/proc/meminfo"); err == nil {
		if n, ok := AvailableMemory(); !ok || n < 0 {
			t.Errorf("AvailableMemory = %d, %v with /proc/meminfo", n, ok)
		}
	}
}

func TestReadDenseLimit(t *testing.T) {
	b := newBuilder("t.txt", &lineSyntax{maxLabel: 4, wantQID: true}, nil, 0)
	b.text = 1000
	b.labels = make([]uint8, 5000)
	err := b.widen(maxFeatureIndex, 7)
	if !errors.Is(err, ErrTooLarge) || !strings.HasPrefix(err.Error(), "t.txt:7: feature index 1048576 makes the dense feature matrix") {
		t.Errorf("got %v", err)
	}
}

func TestReadGarbageDoesNotPanic(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		b := make([]byte, r.IntN(3000))
		for j := range b {
			b[j] = byte(r.IntN(256))
			if r.IntN(4) == 0 {
				b[j] = "0123456789 :qid\n#."[r.IntN(18)]
			}
		}
		opt := noCache()
		opt.chunkSize = 1 + i%50
		Read(bytes.NewReader(b), "garbage", opt)
		Read(bytes.NewReader(gzipped(t, b)[:max(0, r.IntN(len(b)+20))]), "garbage.gz", opt)
	}
}

// randomLETOR writes a valid file with random queries, sparse lines, blank
// and comment lines and mixed line ends, for chunking tests.
func randomLETOR(r *rand.Rand, queries int) string {
	var b strings.Builder
	for q := range queries {
		for range 1 + r.IntN(12) {
			fmt.Fprintf(&b, "%d qid:q%d", r.IntN(5), q)
			for k := 1; k <= 20; k++ {
				if r.IntN(3) == 0 {
					fmt.Fprintf(&b, " %d:%.*f", k, r.IntN(7), r.NormFloat64()*100)
				}
			}
			switch r.IntN(6) {
			case 0:
				b.WriteString(" #docid = d")
			case 1:
				b.WriteString("\r")
			case 2:
				b.WriteString("\n# comment line\n")
			case 3:
				b.WriteString(" \n")
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func TestReadChunkingDoesNotMatter(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 20 {
		text := randomLETOR(r, 1+r.IntN(40))
		want := naiveRead(t, text, nil)
		for _, chunk := range []int{1, 3, 17, 100, 1000, 0} {
			for _, threads := range []int{1, 2, 5} {
				opt := noCache()
				opt.threads, opt.chunkSize = threads, chunk
				ds, err := Read(strings.NewReader(text), "r.txt", opt)
				if err != nil {
					t.Fatalf("trial %d chunk %d threads %d: %v", trial, chunk, threads, err)
				}
				if d := sameDataset(ds, want); d != "" {
					t.Fatalf("trial %d chunk %d threads %d: %s", trial, chunk, threads, d)
				}
			}
		}
	}
}

func TestReadOptionsChecked(t *testing.T) {
	for _, tt := range []struct {
		opt  ReadOptions
		want string
	}{
		{ReadOptions{MaxLabel: -1}, "data: max label --max-label -1 outside 1..255"},
		{ReadOptions{MaxLabel: 256}, "data: max label --max-label 256 outside 1..255"},
		{ReadOptions{Features: -1}, "data: feature count --features -1 outside 0..1048576"},
		{ReadOptions{Features: maxFeatureIndex + 1}, "data: feature count --features 1048577 outside 0..1048576"},
	} {
		opt, want := tt.opt, tt.want
		if _, err := Read(strings.NewReader("1 qid:1 1:1\n"), "x", opt); err == nil || err.Error() != want {
			t.Errorf("%+v: got %v, want %s", opt, err, want)
		}
	}
	// Features pads rows with zeros beyond the largest index seen.
	ds, err := Read(strings.NewReader("1 qid:1 2:1\n"), "x", ReadOptions{Features: 4})
	if err != nil || ds.NumFeatures != 4 || !equalFloats(ds.Features, []float32{0, 1, 0, 0}) {
		t.Errorf("got %v, %v", ds, err)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.txt"), noCache())
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v", err)
	}
	if _, err := Load(t.TempDir(), noCache()); err == nil {
		t.Error("a folder was read")
	}
}

func TestReadCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	text := strings.Repeat("1 qid:1 1:0\n", 1000)
	_, err := readContext(ctx, strings.NewReader(text), "c.txt", noCache())
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "c.txt: ") {
		t.Errorf("got %v", err)
	}
}
