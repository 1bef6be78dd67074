package data

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/piopt/piopt/internal/datatest"
)

func commentOpts() ReadOptions { return ReadOptions{NoCache: true, DocIDs: DocComment} }

// readIDs reads text with DocComment, over several chunk sizes and thread
// counts, which must all agree; it returns the first result.
func readIDs(t *testing.T, text string, opt ReadOptions) (*Dataset, error) {
	t.Helper()
	var first *Dataset
	var firstErr error
	for i, chunk := range []int{0, 1, 7, 64} {
		for _, threads := range []int{1, 3} {
			o := opt
			o.chunkSize, o.threads = chunk, threads
			ds, err := Read(strings.NewReader(text), "x.txt", o)
			if i == 0 && threads == 1 {
				first, firstErr = ds, err
				continue
			}
			if fmt.Sprint(err) != fmt.Sprint(firstErr) {
				t.Fatalf("chunk %d threads %d: error %v, but %v with the default chunks", chunk, threads, err, firstErr)
			}
			if err == nil && (sameDataset(ds, first) != "" || fmt.Sprint(allIDs(ds)) != fmt.Sprint(allIDs(first))) {
				t.Fatalf("chunk %d threads %d: a different dataset", chunk, threads)
			}
		}
	}
	return first, firstErr
}

// allIDs lists DocID of every document, query by query.
func allIDs(ds *Dataset) [][]string {
	out := make([][]string, ds.NumQueries())
	for q := range out {
		for p := range ds.QuerySize(q) {
			out[q] = append(out[q], ds.DocID(q, p))
		}
	}
	return out
}

func TestParseDocIDs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want DocIDs
		ok   bool
	}{
		{"position", DocPosition, true},
		{"comment", DocComment, true},
		{"", 0, false},
		{"Comment", 0, false},
		{"docid", 0, false},
	} {
		got, err := ParseDocIDs(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseDocIDs(%q) = %v, %v", tc.in, got, err)
		}
		if tc.ok && got.String() != tc.in {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
	if _, err := Read(strings.NewReader("0 qid:1 1:1 #a\n"), "x.txt", ReadOptions{DocIDs: 7}); err == nil || !strings.Contains(err.Error(), "--doc-ids") {
		t.Errorf("DocIDs 7: %v", err)
	}
}

// The comment forms of real LETOR files and the spec give these ids.
func TestCommentIDForms(t *testing.T) {
	for _, tc := range []struct {
		comment, id string
	}{
		{"#docid = GX000-00-0000000 inc = 1 prob = 0.02", "GX000-00-0000000"}, // LETOR 4.0 (MQ2008)
		{"#docid=ABC", "ABC"},    // no spaces
		{"# X1", "X1"},           // a bare id
		{"#X2 more words", "X2"}, // the first word
		{"# docid = clueweb09-en0006-78-20618 ", "clueweb09-en0006-78-20618"}, // Webis: space before docid
		{"#docid\t=\t57950", "57950"},                                         // tabs, numeric id
		{"#docid  =Z", "Z"},                                                   // spaces before '=' only
		{"#docid", "docid"},                                                   // no '=': the first word
		{"#docid x = 1", "docid"},                                             // "docid" not followed by '='
		{"#docidX = 3", "docidX"},                                             // a longer word
		{"#  ==  y", "=="},                                                    // any first word
		{"#a#b", "a#b"},                                                       // '#' inside the id
		{"#docid = id\r", "id"},                                               // CRLF line end
		{"#docid = é-ü", "é-ü"},                                               // UTF-8
		{"#docid = x-1 # another comment", "x-1"},                             // more '#'
		{"#docid = 0", "0"},                                                   // an id that looks like a position
		{"#GX008-86-4444840 inc = 1 prob = 0.086622", "GX008-86-4444840"}, // the first word again
		{"#docid = a\u00a0b", "a\u00a0b"},                                 // no-break space is not a separator
		{"#" + strings.Repeat("k", 300), strings.Repeat("k", 300)},        // long
	} {
		// The line with the comment sits between two others of its query.
		text := "1 qid:7 1:0.5 #first\n0 qid:7 1:1 2:3 " + tc.comment + "\n2 qid:7 2:1 # last\n"
		ds, err := readIDs(t, text, commentOpts())
		if err != nil {
			t.Errorf("%q: %v", tc.comment, err)
			continue
		}
		if !ds.hasDocIDs() || ds.docIDMode() != DocComment {
			t.Fatalf("%q: read without ids", tc.comment)
		}
		if got := allIDs(ds)[0]; fmt.Sprint(got) != fmt.Sprint([]string{"first", tc.id, "last"}) {
			t.Errorf("%q: ids %q, want %q in the middle", tc.comment, got, tc.id)
		}
		if p, ok := ds.findDoc(0, []byte(tc.id)); !ok || p != 1 {
			t.Errorf("%q: FindDoc(%q) = %d, %v", tc.comment, tc.id, p, ok)
		}
	}
}

func TestDocIDErrors(t *testing.T) {
	read := func(text string) func(t *testing.T, _ string) error {
		return func(t *testing.T, _ string) error {
			_, err := readIDs(t, text, commentOpts())
			return err
		}
	}
	for _, tc := range []struct {
		name, text string
		kind       error
		want       string
	}{
		{"no comment", "1 qid:1 1:0.5 #a\n0 qid:1 1:1 2:2\n", ErrDocID, `x.txt:2: field 5 (""): no comment`},
		{"no comment, label only", "1 qid:1 #a\n0 qid:1\n", ErrDocID, `x.txt:2: field 3 (""): no comment`},
		{"no comment, last line without newline", "1 qid:1 1:0.5 #a\n0 qid:1 1:1", ErrTruncated, `x.txt:2: field 4 (""): truncated last line (no final newline): no comment`},
		{"empty comment", "1 qid:1 1:0.5 #\n", ErrDocID, `x.txt:1: field 4 ("#"): empty document id`},
		{"empty docid", "1 qid:1 1:0.5 #docid = \n", ErrDocID, `x.txt:1: field 4 ("#docid ="): empty document id`},
		{"empty docid, CRLF", "1 qid:1 1:0.5 #docid=\r\n", ErrDocID, `x.txt:1: field 4 ("#docid="): empty document id`},
		{"comma", "1 qid:1 1:0.5 #docid = a,b\n", ErrDocID, `field 4 ("#docid = a,b"): document id contains ','`},
		{"duplicate", "1 qid:1 1:1 #a\n\n1 qid:1 1:1 #b\n# note\n0 qid:1 1:1 #a\n0 qid:2 1:1 #a\n", ErrDocID,
			`x.txt:5: document id "a" of qid 1 repeats line 1: ids must be distinct within a query`},
		{"earliest duplicate", "1 qid:1 1:1 #b\n1 qid:1 1:1 #a\n1 qid:1 1:1 #c\n1 qid:1 1:1 #a\n1 qid:1 1:1 #b\n", ErrDocID,
			`x.txt:4: document id "a" of qid 1 repeats line 2`},
		{"duplicate in the last query", "1 qid:1 1:1 #a\n1 qid:2 1:1 #a\n1 qid:2 1:1 #a", ErrDocID, `x.txt:3: document id "a" of qid 2 repeats line 2`},
		{"duplicate before a bad line", "1 qid:1 1:1 #a\n1 qid:1 1:1 #a\n1 qid:1 1:x #c\n", ErrDocID, `x.txt:2: document id "a" of qid 1 repeats line 1`},
		{"bad line before a duplicate", "1 qid:1 1:1 #a\n1 qid:1 1:x #b\n1 qid:1 1:1 #a\n", ErrValue, `x.txt:2: field 3`},
		{"duplicate before a reappearing qid", "1 qid:1 1:1 #a\n1 qid:1 1:1 #a\n1 qid:2 1:1 #c\n1 qid:1 1:1 #d\n", ErrDocID, `x.txt:2:`},
		{"reappearing qid before a duplicate", "1 qid:1 1:1 #a\n1 qid:2 1:1 #c\n1 qid:1 1:1 #d\n1 qid:1 1:1 #d\n", ErrQIDReappears, `x.txt:3:`},
		{"duplicate before a missing comment", "1 qid:1 1:1 #a\n1 qid:1 1:1 #a\n1 qid:1 1:1\n", ErrDocID, `x.txt:2: document id "a"`},
	} {
		checkErrCases(t, "x.txt", []errCase{{tc.name, "", tc.kind, tc.want}}, read(tc.text))
	}

	// Lines grouped by a query file: the query is named by its number.
	dir := t.TempDir()
	qf := filepath.Join(dir, "g.query")
	os.WriteFile(qf, []byte("2\n2\n"), 0o644)
	opt := commentOpts()
	opt.QueryFile = qf
	ds, err := readIDs(t, "1 1:1 #a\n0 1:2 #b\n1 1:1 #a\n0 1:2 #c\n", opt)
	if err != nil || fmt.Sprint(allIDs(ds)) != "[[a b] [a c]]" {
		t.Fatalf("query file: %v, %v", err, allIDs(ds))
	}
	if _, err := readIDs(t, "1 1:1 #a\n0 1:2 #b\n1 1:1 #c\n0 1:2 #c\n", opt); err == nil || !strings.Contains(err.Error(), `x.txt:4: document id "c" of qid 2 repeats line 3`) {
		t.Errorf("query file duplicate: %v", err)
	}
	// Before the query file's "beyond the groups" error, at a later line.
	if _, err := readIDs(t, "1 1:1 #a\n0 1:2 #a\n1 1:1 #c\n0 1:2 #d\n1 1:1 #e\n", opt); !errors.Is(err, ErrDocID) {
		t.Errorf("query file duplicate before extra lines: %v", err)
	}
}

// Position mode is today's reader: no ids kept, comments optional, and
// the same data as comment mode.
func TestPositionModeUnchanged(t *testing.T) {
	text := "1 qid:1 1:0.5 #docid = A\n0 qid:1 2:1 #docid = B\n2 qid:2 1:1 # C\n"
	ids, err := readIDs(t, text, commentOpts())
	if err != nil {
		t.Fatal(err)
	}
	pos, err := readIDs(t, text, noCache())
	if err != nil {
		t.Fatal(err)
	}
	if pos.hasDocIDs() || pos.ids != nil || pos.docIDMode() != DocPosition {
		t.Fatal("position mode kept ids")
	}
	if d := sameDataset(pos, ids); d != "" {
		t.Fatal(d)
	}
	// Duplicate comments and lines without one are fine by position.
	if _, err := readIDs(t, "1 qid:1 1:1 #a\n1 qid:1 1:1 #a\n0 qid:1 1:1\n", noCache()); err != nil {
		t.Fatal(err)
	}
}

// AppendDoc and FindDoc are inverse in both modes, and FindDoc refuses
// what names no document of the query.
func TestFindDocAppendDoc(t *testing.T) {
	text := "1 qid:1 1:1 #docid = GX-2\n0 qid:1 1:1 #docid = 10\n0 qid:1 1:1 #docid = 0\n0 qid:1 1:1 #docid = GX-1\n2 qid:2 1:1 # GX-2\n"
	for _, opt := range []ReadOptions{noCache(), commentOpts()} {
		ds, err := Read(strings.NewReader(text), "x.txt", opt)
		if err != nil {
			t.Fatal(err)
		}
		for q := range ds.NumQueries() {
			for p := range int32(ds.QuerySize(q)) {
				name := ds.AppendDoc([]byte("x"), q, p)[1:]
				if string(name) != ds.DocID(q, int(p)) {
					t.Errorf("%v: AppendDoc %q, DocID %q", opt.DocIDs, name, ds.DocID(q, int(p)))
				}
				if got, ok := ds.findDoc(q, name); !ok || got != p {
					t.Errorf("%v: FindDoc(%d, %q) = %d, %v; want %d", opt.DocIDs, q, name, got, ok, p)
				}
			}
		}
		var bad []string
		if opt.DocIDs == DocComment {
			if fmt.Sprint(allIDs(ds)) != "[[GX-2 10 0 GX-1] [GX-2]]" {
				t.Errorf("ids %v", allIDs(ds))
			}
			// "0" is the id of position 2; "1" names nothing.
			if p, ok := ds.findDoc(0, []byte("0")); !ok || p != 2 {
				t.Errorf("FindDoc(0, 0) = %d, %v", p, ok)
			}
			bad = []string{"1", "GX-", "GX-3", "", "gx-1", "GX-1 "}
		} else {
			if fmt.Sprint(allIDs(ds)) != "[[0 1 2 3] [0]]" {
				t.Errorf("positions %v", allIDs(ds))
			}
			bad = []string{"4", "-1", "+1", "", "x", "1e1", "0x1", "1234567890"}
		}
		for _, b := range bad {
			if p, ok := ds.findDoc(0, []byte(b)); ok {
				t.Errorf("%v: FindDoc(0, %q) = %d", opt.DocIDs, b, p)
			}
		}
		if p, ok := ds.findDoc(1, []byte(ds.DocID(0, 3))); ok && opt.DocIDs == DocComment {
			t.Errorf("query 1 found query 0's doc at %d", p)
		}
		tok := []byte(ds.DocID(0, 3))
		if n := testing.AllocsPerRun(100, func() { ds.findDoc(0, tok) }); n != 0 {
			t.Errorf("%v: FindDoc allocates %v times", opt.DocIDs, n)
		}
		buf := make([]byte, 0, 64)
		if n := testing.AllocsPerRun(100, func() { buf = ds.AppendDoc(buf[:0], 0, 3) }); n != 0 {
			t.Errorf("%v: AppendDoc allocates %v times", opt.DocIDs, n)
		}
	}
}

func TestSetDocIDs(t *testing.T) {
	text := "1 qid:1 1:1 #b\n0 qid:1 1:1 #a\n2 qid:2 1:1 #a\n"
	want, err := Read(strings.NewReader(text), "x.txt", commentOpts())
	if err != nil {
		t.Fatal(err)
	}
	ds, _ := Read(strings.NewReader(text), "x.txt", noCache())
	if err := ds.setDocIDs([]string{"b", "a", "a"}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(*ds.ids) != fmt.Sprint(*want.ids) {
		t.Errorf("SetDocIDs %v, reader %v", *ds.ids, *want.ids)
	}
	for _, tc := range []struct {
		ids  []string
		want string
	}{
		{[]string{"a", "b"}, "2 document ids for 3 documents"},
		{[]string{"a", "a", "c"}, `same id "a"`},
		{[]string{"a", "", "c"}, "empty document id"},
		{[]string{"a", "b,c", "c"}, "contains ','"},
		{[]string{"a", "b c", "c"}, "contains a space"},
	} {
		if err := ds.setDocIDs(tc.ids); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SetDocIDs(%q): %v, want %q", tc.ids, err, tc.want)
		}
	}
	if !ds.hasDocIDs() {
		t.Error("a refused SetDocIDs dropped the ids")
	}
	ds.setDocIDs(nil)
	if ds.hasDocIDs() || ds.DocID(0, 1) != "1" {
		t.Error("SetDocIDs(nil) kept the ids")
	}
}

// Lone CR and CRLF line ends do not reach the ids.
func TestDocIDsLineEnds(t *testing.T) {
	lf := "# header comment\n1 qid:1 1:1 #docid = A inc = 1\n\n0 qid:1 1:1 # B\n2 qid:2 1:1 #C\n"
	for _, text := range []string{
		lf,
		strings.ReplaceAll(lf, "\n", "\r"),
		strings.ReplaceAll(lf, "\n", "\r\n"),
		strings.ReplaceAll(lf, "\n", "\r") + "\r",
		strings.TrimSuffix(strings.ReplaceAll(lf, "\n", "\r\n"), "\n"),
	} {
		ds, err := readIDs(t, text, commentOpts())
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if got := fmt.Sprint(allIDs(ds)); got != "[[A B] [C]]" {
			t.Errorf("%q: ids %s", text, got)
		}
	}
	// Lone CRs keep the line numbers of errors right.
	_, err := readIDs(t, "1 qid:1 1:1 #A\r\r0 qid:1 1:1 #B\r2 qid:1 1:1 #A\r", commentOpts())
	if err == nil || !strings.Contains(err.Error(), `x.txt:4: document id "A" of qid 1 repeats line 1`) {
		t.Errorf("CR-only duplicate: %v", err)
	}
}

// Random files with ids read the same over every chunking, and each id is
// found where it was written.
func TestDocIDsRandomChunking(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	var want [][]string
	for q := range 40 {
		var ids []string
		for d := range 1 + r.IntN(30) {
			id := fmt.Sprintf("q%d-d%d-%x", q, d, r.Uint32())
			switch r.IntN(3) {
			case 0:
				fmt.Fprintf(&b, "%d qid:%d 1:%d #docid = %s inc = 1\n", r.IntN(3), q, d, id)
			case 1:
				fmt.Fprintf(&b, "%d qid:%d 2:%d\t# %s\r\n", r.IntN(3), q, d, id)
			default:
				fmt.Fprintf(&b, "%d qid:%d 3:1 #%s more\n\n", r.IntN(3), q, id)
			}
			ids = append(ids, id)
		}
		want = append(want, ids)
	}
	ds, err := readIDs(t, b.String(), commentOpts())
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(allIDs(ds)) != fmt.Sprint(want) {
		t.Fatal("ids differ from those written")
	}
	for q, ids := range want {
		for p, id := range ids {
			if got, ok := ds.findDoc(q, []byte(id)); !ok || int(got) != p {
				t.Fatalf("FindDoc(%d, %s) = %d, %v", q, id, got, ok)
			}
		}
	}
}

// commentDataset is smallDataset's shape read from text with ids: queries
// q1 (4 docs), q2 (2), q3 (1).
func commentDataset(t *testing.T) *Dataset {
	t.Helper()
	text := "0 qid:q1 1:1 #docid = GX-a\n1 qid:q1 1:1 #docid = GX-b\n2 qid:q1 1:1 #docid = 7\n0 qid:q1 1:1 #docid = GX-d\n" +
		"1 qid:q2 1:1 # GX-a\n0 qid:q2 1:1 # x2\n2 qid:q3 1:1 #only\n"
	ds, err := Read(strings.NewReader(text), "small.txt", commentOpts())
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// A log written with ids reads back to the same impressions.
func TestLogRoundTripDocIDs(t *testing.T) {
	ds := commentDataset(t)
	rows := [][3]any{
		{"q1", []int32{2, 0, 3}, 0.5},
		{"q2", []int32{1, 0}, 1.0 / 3},
		{"q3", []int32{0}, 0.0},
	}
	text := writeLog(t, Header{"slots": "3", "logging": "uniform", "queries": "3", "docs": "7"}, ds, rows)
	want := "# piopt-log v1 slots=3 logging=uniform queries=3 docs=7 doc-ids=comment\n" +
		"q1\t7,GX-a,GX-d\t0.5\nq2\tx2,GX-a\t0.3333333333333333\nq3\tonly\t0\n"
	if string(text) != want {
		t.Fatalf("log\n%s\nwant\n%s", text, want)
	}
	lr, err := NewLogReader(bytes.NewReader(text), "x.log", ds)
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range rows {
		rec, err := lr.Next()
		if err != nil {
			t.Fatal(err)
		}
		if rec.Query != i || fmt.Sprint(rec.Slate) != fmt.Sprint(row[1]) || rec.Reward != row[2] {
			t.Fatalf("record %d: %+v", i, rec)
		}
	}
	if _, err := lr.Next(); err != io.EOF {
		t.Fatal(err)
	}
	// The same log by position: the same slates, no doc-ids= key.
	pos := smallDataset()
	text = writeLog(t, Header{"slots": "3", "logging": "uniform", "doc-ids": "comment"}, pos, rows)
	if string(text) != "# piopt-log v1 slots=3 logging=uniform\nq1\t2,0,3\t0.5\nq2\t1,0\t0.3333333333333333\nq3\t0\t0\n" {
		t.Fatalf("log by position\n%s", text)
	}
}

func TestLogReaderDocIDErrors(t *testing.T) {
	ds := commentDataset(t)
	head := "# piopt-log v1 slots=3 logging=uniform\n"
	checkErrCases(t, "x.log", []errCase{
		{"unknown id", head + "q1\tGX-a,nope\t1\n", ErrSlate, `x.log:2: field 2 ("GX-a,nope"): slot 2: document "nope" is not in context q1`},
		{"other query's id", head + "q2\tx2,GX-b\t1\n", ErrSlate, `slot 2: document "GX-b" is not in context q2`},
		{"position", head + "q1\t0\t1\n", ErrSlate, `slot 1: document "0" is not in context q1`},
		{"repeated id", head + "q1\tGX-b, 7 ,GX-b\t1\n", ErrSlate, `slot 3 repeats document "GX-b" of slot 1`},
		{"empty slot", head + "q1\tGX-a,\t1\n", ErrSlate, `slot 2: document "" is not in context q1`},
		{"too long", "# piopt-log v1 slots=2 logging=uniform\nq1\tGX-a,GX-b,7\t1\n", ErrSlate, "more than slots=2"},
		{"position log", "# piopt-log v1 slots=3 logging=uniform doc-ids=position\n", ErrHeader,
			"header doc-ids=position: the file names documents by position, but small.txt is read with --doc-ids comment"},
		{"bad doc-ids", "# piopt-log v1 slots=3 logging=uniform doc-ids=names\n", ErrHeader, `header doc-ids="names": want position or comment`},
	}, func(t *testing.T, text string) error {
		lr, err := NewLogReader(strings.NewReader(text), "x.log", ds)
		for err == nil {
			_, err = lr.Next()
		}
		if err == io.EOF {
			return nil
		}
		return err
	})
	// A log with ids read by position: refused by its header, and by its
	// slates (today's message) when the header does not say.
	pos := smallDataset()
	for text, want := range map[string]string{
		"# piopt-log v1 slots=3 logging=uniform doc-ids=comment\nq1\t0\t1\n": "header doc-ids=comment: the file names documents by their comment ids, but small.txt is read with --doc-ids position",
		"# piopt-log v1 slots=3 logging=uniform\nq1\tGX-a\t1\n":              `slot 1: "GX-a" is not a document position (if the log names documents by id, read the data with --doc-ids comment)`,
	} {
		lr, err := NewLogReader(strings.NewReader(text), "x.log", pos)
		if err == nil {
			_, err = lr.Next()
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}

// Targets name their docs by id and read back to the same rows, sorted by
// position whatever the ids' order.
func TestTargetsDocIDs(t *testing.T) {
	ds := commentDataset(t)
	tg := sampleTargets()
	var buf bytes.Buffer
	if err := WriteTargets(&buf, tg, ds); err != nil {
		t.Fatal(err)
	}
	want := "# piopt-targets v1 slots=2 metric=ndcg@2 logging=uniform doc-ids=comment\n" +
		"q1\tGX-a\t1\t0.1\t0.125\nq1\tGX-a\t2\t-0.3333333333333333\t0.125\nq1\tGX-d\t1\t7\t0.125\n" +
		"q2\tx2\t1\t1.0000000000000002\t3\nq2\tx2\t2\t0\t3\n"
	if buf.String() != want {
		t.Fatalf("targets\n%s\nwant\n%s", buf.String(), want)
	}
	back, err := readTargets(bytes.NewReader(buf.Bytes()), "t.targets", ds)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(back.Query, back.Doc, back.Slot, back.Target, back.Weight) != fmt.Sprint(tg.Query, tg.Doc, tg.Slot, tg.Target, tg.Weight) {
		t.Fatalf("read back %+v", back)
	}
	// Rows in another order come back in (query, position, slot) order:
	// "7" (position 2) before "GX-d" (3) although "GX-b" sorts after "7".
	head := "# piopt-targets v1 slots=1\n"
	back, err = readTargets(strings.NewReader(head+"q1\tGX-d\t1\t1\t1\nq1\t7\t1\t2\t1\nq1\tGX-b\t1\t3\t1\n"), "t.targets", ds)
	if err != nil || fmt.Sprint(back.Doc, back.Target) != "[1 2 3] [3 2 1]" {
		t.Fatalf("sorted %v, %v", back, err)
	}
	checkErrCases(t, "t.targets", []errCase{
		{"unknown id", head + "q1\tnope\t1\t1\t1\n", ErrRow, `t.targets:2: field 2 ("nope"): doc "nope" is not in qid q1`},
		{"position", head + "q2\t1\t1\t1\t1\n", ErrRow, `doc "1" is not in qid q2`},
		{"duplicate row", head + "q1\tGX-d\t1\t1\t1\nq1\t7\t1\t2\t1\nq1\tGX-d\t1\t3\t1\n", ErrRow, "t.targets:4: row for doc GX-d, slot 1 repeats line 2"},
		{"position targets", "# piopt-targets v1 slots=1 doc-ids=position\n", ErrHeader, "header doc-ids=position"},
	}, func(t *testing.T, text string) error {
		_, err := readTargets(strings.NewReader(text), "t.targets", ds)
		return err
	})
	// By position the file is today's, without doc-ids=, even when the
	// header handed over had one.
	tg.Header["doc-ids"] = "comment"
	buf.Reset()
	if err := WriteTargets(&buf, tg, smallDataset()); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "# piopt-targets v1 slots=2 metric=ndcg@2 logging=uniform\nq1\t0\t1\t0.1\t0.125\n") {
		t.Fatalf("targets by position\n%s", buf.String())
	}
}

// Position-mode cache entries are byte for byte those of the code before
// document ids: the payload's hash and the entry's name and key below were
// taken from that code.
func TestCachePositionModeBytesUnchanged(t *testing.T) {
	ds, err := Load(filepath.Join("testdata", "formats.txt"), noCache())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "c")
	if err := writeCache(p, "KEY", ds, 0x1122334455667788); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != "2c5282e1c74db30ff87e70be07971c317839f1f2ef9663bde914cb9276036f89" || len(b) != 198 {
		t.Errorf("position-mode cache bytes changed: %d bytes, sha256 %x", len(b), sum)
	}
	opt, _ := ReadOptions{CacheDir: "/cachedir"}.normalize()
	ce := newCacheEntry("/abs/train.txt", fixedInfo{}, queryFile{}, opt)
	if ce.path != filepath.Join("/cachedir", "c3e7d643bebb1232f67acd0a07a43fd9.dataset") ||
		ce.key != "piopt-ds v2\nsource=/abs/train.txt\nfeatures=0\nmax-label=4\nsize=1234\nmtime=1700000000000000005\n" {
		t.Errorf("position-mode cache entry %s, key %q", ce.path, ce.key)
	}
	// Comment mode has an entry of its own, with the mode in its key.
	opt.DocIDs = DocComment
	cc := newCacheEntry("/abs/train.txt", fixedInfo{}, queryFile{}, opt)
	if cc.path == ce.path || !strings.Contains(cc.key, "doc-ids=comment\n") || !cc.ids {
		t.Errorf("comment-mode cache entry %s, key %q", cc.path, cc.key)
	}
}

// fixedInfo is a source file's size and mtime, for cache keys.
type fixedInfo struct{ os.FileInfo }

func (fixedInfo) Size() int64        { return 1234 }
func (fixedInfo) ModTime() time.Time { return time.Unix(1700000000, 5) }

// The cache keeps the ids; both modes' entries live side by side.
func TestCacheDocIDs(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "train.txt")
	text := "2 qid:1 1:0.5 2:3 #docid = GX-1 inc = 1\n0 qid:1 1:0.25 2:1 #docid = GX-0\n1 qid:2 1:1 2:7 # 55\n"
	os.WriteFile(src, []byte(text), 0o644)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(src, old, old)
	cache := filepath.Join(dir, "cache")
	copt := ReadOptions{CacheDir: cache, DocIDs: DocComment}
	popt := ReadOptions{CacheDir: cache}
	parsed := mustLoad(t, src, copt)
	pos := mustLoad(t, src, popt)
	if n := len(cacheFiles(t, cache)); n != 2 {
		t.Fatalf("%d cache files, want one per mode", n)
	}
	hit := cached(t, src, copt)
	if hit == nil || !hit.hasDocIDs() || sameDataset(hit, parsed) != "" || fmt.Sprint(allIDs(hit)) != "[[GX-1 GX-0] [55]]" {
		t.Fatalf("comment-mode cache entry %v", hit)
	}
	if fmt.Sprint(*hit.ids) != fmt.Sprint(*parsed.ids) {
		t.Errorf("cached ids %v, parsed %v", *hit.ids, *parsed.ids)
	}
	if p, ok := hit.findDoc(0, []byte("GX-0")); !ok || p != 1 {
		t.Error("FindDoc on the cached dataset")
	}
	phit := cached(t, src, popt)
	if phit == nil || phit.hasDocIDs() || sameDataset(phit, pos) != "" {
		t.Fatalf("position-mode cache entry %v", phit)
	}
	if again := mustLoad(t, src, copt); !again.hasDocIDs() || fmt.Sprint(allIDs(again)) != fmt.Sprint(allIDs(parsed)) {
		t.Error("second comment-mode load")
	}
	// A damaged id section is not used: the file is parsed again.
	var entry string
	for _, f := range cacheFiles(t, cache) {
		if b, _ := os.ReadFile(f); bytes.Contains(b, []byte("doc-ids=comment")) {
			entry = f
		}
	}
	b, _ := os.ReadFile(entry)
	i := bytes.LastIndex(b, []byte("GX-0"))
	b[i+3] = '9'
	os.WriteFile(entry, b, 0o644)
	if cached(t, src, copt) != nil {
		t.Fatal("a damaged entry was used")
	}
	if again := mustLoad(t, src, copt); fmt.Sprint(allIDs(again)) != "[[GX-1 GX-0] [55]]" {
		t.Errorf("after damage: %v", allIDs(again))
	}
	// check refuses ids that are not sorted, even with a right checksum.
	x := *parsed.ids
	x.order = []int32{0, 1, 0}
	if x.check(parsed) {
		t.Error("check accepted an unsorted order")
	}
}

// The real LETOR files with comments: every id is distinct within its
// query and found again, and the data is what position mode reads.
func TestSharedDataDocIDs(t *testing.T) {
	dir := datatest.SharedDir(t)
	files := []string{
		filepath.Join(dir, "MQ2008", "S1.txt"),
		filepath.Join(dir, "MQ2008", "Fold1", "train.txt"),
		filepath.Join(dir, "OHSUMED-LETOR3", "QueryLevelNorm", "Fold1", "test.txt"),
		filepath.Join(dir, "Webis-ClueWeb09-LTR", "ClueWeb09", "Fold1", "test.txt"),
	}
	cache := t.TempDir()
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Logf("skipping %s: %v", f, err)
			continue
		}
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// The ids the obvious way: the word after "docid =".
		var want []string
		for _, l := range strings.Split(strings.ReplaceAll(string(text), "\r", ""), "\n") {
			if _, c, ok := strings.Cut(l, "#"); ok {
				w := strings.Fields(strings.Replace(c, "=", " = ", 1))
				if len(w) < 3 || w[0] != "docid" || w[1] != "=" {
					t.Fatalf("%s: comment %q", f, c)
				}
				want = append(want, w[2])
			}
		}
		pos, err := Load(f, noCache())
		if err != nil {
			t.Fatal(err)
		}
		for _, opt := range []ReadOptions{commentOpts(), {CacheDir: cache, DocIDs: DocComment}, {CacheDir: cache, DocIDs: DocComment}} {
			ds, err := Load(f, opt)
			if err != nil {
				t.Fatal(err)
			}
			if d := sameDataset(ds, pos); d != "" {
				t.Fatalf("%s: %s", f, d)
			}
			var got []string
			for _, ids := range allIDs(ds) {
				got = append(got, ids...)
			}
			if len(got) != len(want) || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s: %d ids, want %d", f, len(got), len(want))
			}
			for q := range ds.NumQueries() {
				for p := range int32(ds.QuerySize(q)) {
					if got, ok := ds.findDoc(q, []byte(ds.DocID(q, int(p)))); !ok || got != p {
						t.Fatalf("%s: qid %s doc %d: FindDoc %d, %v", f, ds.QIDs[q], p, got, ok)
					}
				}
			}
		}
		t.Logf("%s: %d documents, %d bytes of ids", filepath.Base(f), pos.NumDocs(), len(strings.Join(want, "")))
	}
}
