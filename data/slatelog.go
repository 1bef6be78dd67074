package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Kinds of bad slate-log and targets input, for errors.Is (wrapped in a
// *ParseError like the LETOR reader's errors).
var (
	// ErrHeader: the header line is missing, malformed, or disagrees with
	// the dataset or the command's flags.
	ErrHeader = errors.New("bad header")
	// ErrSlate: a slate names a document out of range, repeats one, names a
	// non-candidate, or has the wrong length.
	ErrSlate = errors.New("bad slate")
	// ErrNumber: a reward, target or weight is not a finite number.
	ErrNumber = errors.New("bad number")
	// ErrRow: a line does not have the expected tab-separated fields.
	ErrRow = errors.New("bad row")
	// ErrNoImpressions: a slate log has a header but no impression.
	ErrNoImpressions = errors.New("no impressions")
)

// Magic words of piopt's text files' header lines, `# MAGIC v1 key=value ...`.
const (
	LogMagic     = "piopt-log"
	targetsMagic = "piopt-targets"
	// FormatVersion is the version word that follows the magic word.
	FormatVersion = "v1"
)

// Header holds the key=value pairs of a piopt text file's header line. Keys
// are lower-case words; values may hold any text (quoted when needed).
type Header map[string]string

// headerOrder is the order in which known keys are written; other keys
// follow in lexical order, so the same header always gives the same bytes.
var headerOrder = []string{
	"slots", "metric", "logging", "policy", PolicyHashKey, "rank-by", "candidates", "samples", "seed", "per-sample",
	"data", "queries", "docs", "discount", "empty-query-ndcg", "err-maxrel",
}

// Format renders the header line (without newline) for the given magic word.
func (h Header) Format(magic string) string {
	var b strings.Builder
	b.WriteString("# ")
	b.WriteString(magic)
	b.WriteString(" ")
	b.WriteString(FormatVersion)
	known := make(map[string]bool, len(headerOrder))
	write := func(k string) {
		v, ok := h[k]
		if !ok {
			return
		}
		b.WriteByte(' ')
		b.WriteString(k)
		b.WriteByte('=')
		if needsQuote(v) {
			b.WriteString(strconv.Quote(v))
		} else {
			b.WriteString(v)
		}
	}
	for _, k := range headerOrder {
		known[k] = true
		write(k)
	}
	var rest []string
	for k := range h {
		if !known[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		write(k)
	}
	return b.String()
}

func needsQuote(v string) bool {
	if v == "" {
		return true
	}
	for _, r := range v {
		if r <= ' ' || r == '"' || r == 0x7f || r > 0x7e {
			return true
		}
	}
	return false
}

// ParseHeader reads a header line `# MAGIC v1 key=value ...`. The error
// says what is wrong, without file or line (callers add them).
func ParseHeader(line, magic string) (Header, error) {
	line = strings.TrimRight(line, "\r\n")
	rest, ok := strings.CutPrefix(line, "#")
	if !ok {
		return nil, fmt.Errorf("first line is not a `# %s %s key=value ...` header", magic, FormatVersion)
	}
	rest = strings.TrimLeft(rest, " \t")
	word, rest, _ := strings.Cut(rest, " ")
	if word != magic {
		return nil, fmt.Errorf("header starts with %q, want %q", shortenString(word), magic)
	}
	rest = strings.TrimLeft(rest, " \t")
	ver, rest, _ := strings.Cut(rest, " ")
	if ver != FormatVersion {
		return nil, fmt.Errorf("%s version %q is not supported (want %s)", magic, shortenString(ver), FormatVersion)
	}
	h := Header{}
	for {
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" {
			return h, nil
		}
		k, v, ok := strings.Cut(rest, "=")
		if !ok || k == "" || strings.ContainsAny(k, " \t\"") {
			return nil, fmt.Errorf("header field %q is not key=value", shortenString(firstWord(rest)))
		}
		if strings.HasPrefix(v, `"`) {
			q, err := strconv.QuotedPrefix(v)
			if err != nil {
				return nil, fmt.Errorf("header field %s: unterminated quoted value", k)
			}
			uq, _ := strconv.Unquote(q)
			rest = v[len(q):]
			v = uq
		} else {
			v, rest, _ = strings.Cut(v, " ")
			v = strings.TrimRight(v, "\t")
		}
		if _, dup := h[k]; dup {
			return nil, fmt.Errorf("header key %s given twice", k)
		}
		h[k] = v
	}
}

func firstWord(s string) string {
	w, _, _ := strings.Cut(s, " ")
	return w
}

func shortenString(s string) string { return shorten([]byte(s)) }

// Int returns the integer value of key; ok is false when the key is absent.
func (h Header) Int(key string) (v int, ok bool, err error) {
	s, ok := h[key]
	if !ok {
		return 0, false, nil
	}
	v, err = strconv.Atoi(s)
	if err != nil {
		return 0, true, fmt.Errorf("header %s=%q is not an integer", key, shortenString(s))
	}
	return v, true, nil
}

// Clone returns a copy of h.
func (h Header) Clone() Header {
	out := make(Header, len(h))
	for k, v := range h {
		out[k] = v
	}
	return out
}

// openSlateFile opens a text file that may be gzip-compressed (detected by
// its magic bytes, whatever its name).
func openSlateFile(path string) (io.Reader, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	br := bufio.NewReaderSize(f, 1<<20)
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		return zr, f, nil
	}
	return br, f, nil
}

// LogRecord is one logged impression of a slate log.
type LogRecord struct {
	Query int // query index in the Dataset
	// Context is the line's first field as written: the qid, or with
	// contexts (SetContexts) QID@TAG; valid until the next Next.
	Context []byte
	Slate   []int32 // document positions inside the query, slot 1 first; valid until the next Next
	Reward  float64
	line    int // 1-based line number in the file
}

// LogReader streams a slate log: a header line `# piopt-log v1 key=value
// ...` naming at least slots and logging (or policy, a policy file), then
// one impression per line,
// `qid<TAB>d1,d2,...<TAB>reward`, docs named as the dataset names them
// (Dataset.findDoc): 0-based positions inside the query's block, or the ids
// of the lines' comments (--doc-ids comment). Blank lines and further `#`
// lines are skipped. It checks everything the dataset alone decides (known
// qid, documents in range and not repeated, 1..slots documents, finite
// reward) and holds one line in memory at a time.
//
// Header keys: slots= (required: no slate is longer), logging= or policy=
// (required: the logging policy, or the policy file giving it per context),
// rank-by= (required by a logging policy that ranks documents, checked by
// the setup that reads the log), candidates= (optional, 0: every document),
// candidates-by=, metric= (e.g. ndcg@3), the metric conventions
// (discount=, empty-query-ndcg=, err-maxrel=) and the provenance keys
// (data=, queries=, docs=, samples=, seed=), all optional. A log without a
// header line is read with a header given by the caller (OpenLogAssuming).
type LogReader struct {
	lineReader
	ds     *Dataset
	closer io.Closer
	header Header
	slots  int
	qids   map[string]int
	fields [3][]byte // the current line's fields, for error messages
	slate  []int32
	n      int64 // impressions returned so far
	// contexts: the first field is QID or QID@TAG (a policy file's
	// contexts), not a bare qid.
	contexts bool
	// headerless: the log has no header line; pending is its first line,
	// read while looking for one, returned by the first Next.
	headerless bool
	pending    []byte
	// rows, when not nil, streams a row log's impressions (RowLog.Open).
	rows *rowStream
	// more are the log's files after the current one, first its first
	// (LogFiles; logfiles.go); keep, when set, the shard's filter of qids
	// and skipped the records it refused.
	more    []string
	first   string
	keep    func(qid []byte) bool
	skipped int64
}

// SetContexts makes the first field of every line a context, QID or
// QID@TAG, whose qid is the part before the first '@' (a log of a policy
// file's contexts).
func (lr *LogReader) SetContexts() { lr.contexts = true }

// OpenLog opens a slate log (optionally gzip-compressed) for reading against
// ds. Close it when done.
func OpenLog(path string, ds *Dataset) (*LogReader, error) {
	return OpenLogAssuming(path, ds, nil)
}

// OpenLogAssuming opens a slate log as OpenLog does, but a log whose first
// line is not a header is read as if its header were assumed (what the
// command line says: slots, logging or policy, candidates, rank-by, ...).
// Such a log still needs slots= and logging= or policy= from assumed; the
// error names the flag that would give a missing one. A log with a header
// is read as OpenLog reads it: assumed is not used.
//
// path may name many files (LogFiles: a list, a glob, a folder), read one
// after the other as one log; each must have the first one's header.
func OpenLogAssuming(path string, ds *Dataset, assumed Header) (*LogReader, error) {
	files, err := LogFiles(path)
	if err != nil {
		return nil, err
	}
	path = files[0]
	r, c, err := openSlateFile(path)
	if err != nil {
		return nil, fmt.Errorf("open slate log: %w", err)
	}
	lr, err := newLogReader(r, path, ds, assumed)
	if err != nil {
		c.Close()
		return nil, err
	}
	lr.closer, lr.more, lr.first = c, files[1:], path
	return lr, nil
}

// NewLogReader reads the header of a slate log from r; name is the file name
// used in errors.
func NewLogReader(r io.Reader, name string, ds *Dataset) (*LogReader, error) {
	return newLogReader(r, name, ds, nil)
}

func newLogReader(r io.Reader, name string, ds *Dataset, assumed Header) (*LogReader, error) {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 1<<16 {
		br = bufio.NewReaderSize(r, 1<<20)
	}
	lr := &LogReader{lineReader: lineReader{name: name, br: br}, ds: ds, qids: qidIndex(ds)}
	h, err := lr.logHeader(assumed)
	if err != nil {
		return nil, err
	}
	lr.header = h
	if _, ok := h["slots"]; !ok {
		return nil, lr.lineErr(ErrHeader, "%s", lr.lacks("slots=", "--slots"))
	}
	_, logging := h["logging"]
	_, policy := h["policy"]
	if !logging && !policy {
		return nil, lr.lineErr(ErrHeader, "%s", lr.lacks("logging= (a named logging policy) or policy= (a policy file)", "--logging or --policy"))
	}
	slots, _, err := h.Int("slots")
	if err == nil && (slots < 1 || slots > MaxSlots) {
		err = fmt.Errorf("header slots=%d: must be in 1..%d", slots, MaxSlots)
	}
	if err != nil {
		return nil, lr.lineErr(ErrHeader, "%v", err)
	}
	lr.slots = slots
	if err := checkHeaderData(h, ds); err != nil {
		return nil, lr.lineErr(ErrHeader, "%v", err)
	}
	lr.slate = make([]int32, 0, slots)
	return lr, nil
}

// logHeader reads the log's header line, or, when the first line is not a
// `#` line and assumed is not nil, keeps that line as the first impression
// and returns a copy of assumed.
func (lr *LogReader) logHeader(assumed Header) (Header, error) {
	if assumed != nil {
		first, err := lr.br.Peek(1)
		if err == nil && first[0] != '#' {
			line, err := lr.readLine()
			if err != nil {
				return nil, err
			}
			if len(bytes.TrimSpace(line)) > 0 {
				lr.pending = bytes.Clone(line)
			}
			lr.headerless = true
			return assumed.Clone(), nil
		}
	}
	return lr.readHeader(LogMagic)
}

// lacks says that the log does not give key: its header lacks it, or, for a
// headerless log, the command line did not give flag.
func (lr *LogReader) lacks(key, flag string) string {
	if lr.headerless {
		return fmt.Sprintf("no header line (`# %s %s key=value ...`) and no %s: a log without a header needs the flags to say what its header's %s would", LogMagic, FormatVersion, flag, key)
	}
	return "header lacks " + key
}

// checkHeaderData checks a header's queries= and docs= (when present)
// against the dataset, so that a log or targets file made on another dataset
// is refused, and its doc-ids= (when present) against the way the dataset
// names its documents (see withDocIDs).
func checkHeaderData(h Header, ds *Dataset) error {
	if ds.namesOnly {
		return nil // the header describes a dataset that is not read
	}
	for _, kv := range []struct {
		key  string
		have int
	}{{"queries", ds.NumQueries()}, {"docs", ds.NumDocs()}} {
		v, ok, err := h.Int(kv.key)
		if err != nil {
			return err
		}
		if ok && v != kv.have {
			return fmt.Errorf("header %s=%d (data=%s) does not match %s, which has %d %s", kv.key, v, h["data"], ds.Source, kv.have, kv.key)
		}
	}
	return checkHeaderDocIDs(h, ds)
}

// Header returns the log's header.
func (lr *LogReader) Header() Header { return lr.header }

// Slots returns the header's slots: no slate is longer.
func (lr *LogReader) Slots() int { return lr.slots }

// Name returns the file name used in errors.
func (lr *LogReader) Name() string { return lr.name }

// Dataset returns the dataset the log is read against.
func (lr *LogReader) Dataset() *Dataset { return lr.ds }

// Close closes the underlying file (when opened by OpenLog).
func (lr *LogReader) Close() error {
	if lr.rows != nil {
		lr.rows.close()
	}
	if lr.closer == nil {
		return nil
	}
	err := lr.closer.Close()
	lr.closer = nil
	return err
}

// lineReader reads the lines of piopt's text files (slate logs, targets,
// policy files), counting them for errors.
type lineReader struct {
	name string
	br   *bufio.Reader
	line int
	long []byte // a line longer than br's buffer, gathered here
	// magic and header are the file's header line, once read: a second
	// header line further down (two files concatenated) is refused unless
	// it repeats the first.
	magic  string
	header Header
}

// readLine returns the next line without its line end; io.EOF at the end.
// Lines up to maxTextLine bytes are accepted (the longest piopt writes).
func (lr *lineReader) readLine() ([]byte, error) {
	line, err := lr.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		line, err = lr.readLong(line)
	}
	if err == io.EOF && len(line) == 0 {
		return nil, io.EOF
	}
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", lr.name, err)
	}
	lr.line++
	line = bytes.TrimSuffix(line, []byte{'\n'})
	line = bytes.TrimSuffix(line, []byte{'\r'})
	return line, nil
}

// readLong gathers a line longer than the buffer, whose start is part,
// into lr.long, up to maxTextLine bytes.
func (lr *lineReader) readLong(part []byte) ([]byte, error) {
	lr.long = append(lr.long[:0], part...)
	for {
		more, err := lr.br.ReadSlice('\n')
		lr.long = append(lr.long, more...)
		if len(lr.long) > maxTextLine+1 {
			lr.line++
			return nil, lr.lineErr(ErrRow, "line longer than %d bytes", maxTextLine)
		}
		if err != bufio.ErrBufferFull {
			return lr.long, err
		}
	}
}

// readHeader reads the first line as a `# MAGIC v1 key=value ...` header.
func (lr *lineReader) readHeader(magic string) (Header, error) {
	line, err := lr.readLine()
	if err == io.EOF {
		return nil, lr.fileErr(ErrHeader, "empty file: no `# %s %s ...` header", magic, FormatVersion)
	}
	if err != nil {
		return nil, err
	}
	h, err := ParseHeader(string(line), magic)
	if err != nil {
		return nil, lr.lineErr(ErrHeader, "%v", err)
	}
	lr.magic, lr.header = magic, h
	return h, nil
}

// nextRecord returns the next line that is neither blank nor a `#`
// comment; io.EOF at the end. A `#` line that is a header of the file's
// kind is not a comment: it starts a second file (two files concatenated,
// plain or as two gzip members), refused unless it repeats the first
// header (then it is skipped).
func (lr *lineReader) nextRecord() ([]byte, error) {
	for {
		line, err := lr.readLine()
		if err != nil {
			return nil, err
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		if t[0] != '#' {
			return line, nil
		}
		if err := lr.checkSecondHeader(t); err != nil {
			return nil, err
		}
	}
}

// newLineReader reads the text file name (for messages) from r, with the
// 1 MiB buffer every piopt text reader uses.
func newLineReader(r io.Reader, name string) *lineReader {
	return &lineReader{name: name, br: bufio.NewReaderSize(r, 1<<20)}
}

// eachRecord calls fn with every record line (nextRecord) up to the end
// of the file, stopping at fn's first error.
func (lr *lineReader) eachRecord(fn func(line []byte) error) error {
	for {
		line, err := lr.nextRecord()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(line); err != nil {
			return err
		}
	}
}

// eachRow is eachRecord over rows of exactly len(fields) tab-separated
// fields (named names in messages): fn sees each row cut into fields.
func (lr *lineReader) eachRow(fields [][]byte, names string, fn func() error) error {
	return lr.eachRecord(func(line []byte) error {
		if err := lr.splitFields(line, fields, names); err != nil {
			return err
		}
		return fn()
	})
}

// checkSecondHeader refuses a `#` line t that is a header line of the
// file's kind (its magic word follows the '#') but not the same header as
// the first line's.
func (lr *lineReader) checkSecondHeader(t []byte) error {
	magic := lr.magic
	if magic == "" {
		magic = LogMagic // a headerless log
	}
	w := bytes.TrimLeft(t[1:], " \t")
	if !bytes.HasPrefix(w, []byte(magic)) || (len(w) > len(magic) && w[len(magic)] != ' ' && w[len(magic)] != '\t') {
		return nil
	}
	h, err := ParseHeader(string(t), magic)
	if err == nil && lr.header != nil && maps.Equal(h, lr.header) {
		return nil
	}
	if lr.header == nil {
		return lr.lineErr(ErrHeader, "a `# %s` header line inside a log read without one (two logs concatenated?)", magic)
	}
	return lr.lineErr(ErrHeader, "a second `# %s` header line that differs from line 1's (two files concatenated?): refused, since its lines would be read under the first header", magic)
}

// splitFields cuts line at tabs into exactly len(fields) fields, whose
// names (for the message) are names.
func (lr *lineReader) splitFields(line []byte, fields [][]byte, names string) error {
	n := len(fields)
	for i := range fields {
		f, rest, ok := bytes.Cut(line, []byte{'\t'})
		fields[i], line = f, rest
		if !ok && i < n-1 {
			return lr.lineErr(ErrRow, "%d tab-separated fields, want %d (%s)", i+1, n, names)
		}
		if ok && i == n-1 {
			return lr.lineErr(ErrRow, "more than %d tab-separated fields (%s)", n, names)
		}
	}
	return nil
}

// qidIndex maps ds's raw qids to query indices.
func qidIndex(ds *Dataset) map[string]int {
	m := make(map[string]int, ds.NumQueries())
	for q, id := range ds.QIDs {
		m[id] = q
	}
	return m
}

// Next returns the next impression; io.EOF after the last one. A log
// without any impression is an error (ErrNoImpressions naming the file):
// every estimate from it would be a meaningless 0.
func (lr *LogReader) Next() (LogRecord, error) {
	if lr.rows != nil {
		return lr.nextRow()
	}
	for {
		rec, err := lr.next()
		if err != errNextFile && err != errSkipped {
			return rec, err
		}
	}
}

// errSkipped is what next returns for a record the filter refused.
var errSkipped = errors.New("skipped")

func (lr *LogReader) next() (LogRecord, error) {
	line, err := lr.pending, error(nil)
	if line == nil {
		line, err = lr.nextRecord()
	} else {
		lr.pending = nil
	}
	if err == io.EOF {
		err = lr.advance()
	}
	if err == io.EOF && lr.n+lr.skipped == 0 {
		return LogRecord{}, lr.fileErr(ErrNoImpressions, "no impression after the header line: nothing to estimate from")
	}
	if err != nil {
		return LogRecord{}, err
	}
	lr.fields = [3][]byte{}
	if err := lr.splitFields(line, lr.fields[:], "context, slate, reward"); err != nil {
		return LogRecord{}, err
	}
	q, err := lr.query()
	if err != nil {
		return LogRecord{}, err
	}
	m := lr.ds.QuerySize(q)
	named := lr.ds.hasDocIDs()
	slate := lr.slate[:0]
	rest := lr.fields[1]
	for i := 0; ; i++ {
		tok, r, more := bytes.Cut(rest, []byte{','})
		rest = r
		name := bytes.TrimSpace(tok)
		var d int
		if named {
			p, ok := lr.ds.findDoc(q, name)
			if !ok {
				return LogRecord{}, lr.Errorf(2, "slot %d: document %q is not in context %s", i+1, shorten(name), shorten(lr.fields[0]))
			}
			d = int(p)
		} else {
			var ok bool
			if d, ok = parseDoc(name); !ok {
				return LogRecord{}, lr.Errorf(2, "slot %d: %q is not a document position (if the log names documents by id, read the data with --doc-ids comment)", i+1, shorten(tok))
			}
			if d >= m {
				return LogRecord{}, lr.Errorf(2, "slot %d: document %d out of range 0..%d of context %s", i+1, d, m-1, shorten(lr.fields[0]))
			}
		}
		for j, e := range slate {
			if int(e) == d {
				if named {
					return LogRecord{}, lr.Errorf(2, "slot %d repeats document %q of slot %d", i+1, shorten(name), j+1)
				}
				return LogRecord{}, lr.Errorf(2, "slot %d repeats document %d of slot %d", i+1, d, j+1)
			}
		}
		if len(slate) == lr.slots {
			return LogRecord{}, lr.Errorf(2, "more than slots=%d documents", lr.slots)
		}
		slate = append(slate, int32(d))
		if !more {
			break
		}
	}
	lr.slate = slate
	r, ok := parseFinite(bytes.TrimSpace(lr.fields[2]))
	if !ok {
		return LogRecord{}, lr.Errorf(3, "reward is not a finite number")
	}
	lr.n++
	return LogRecord{Query: q, Context: lr.fields[0], Slate: slate, Reward: r, line: lr.line}, nil
}

// query returns the dataset query of the current line's first field (the
// qid, up to '@' for contexts); errSkipped when the filter refuses it.
func (lr *LogReader) query() (int, error) {
	qid := lr.fields[0]
	if lr.contexts {
		qid, _, _ = bytes.Cut(qid, []byte{'@'})
	}
	if lr.keep != nil && !lr.keep(qid) {
		lr.skipped++
		return 0, errSkipped
	}
	q, ok := lr.qids[string(qid)]
	if !ok {
		if len(qid) < len(lr.fields[0]) {
			return 0, lr.Errorf(1, "context %q: qid %q is not in %s", shorten(lr.fields[0]), shorten(qid), lr.ds.Source)
		}
		return 0, lr.Errorf(1, "context %q is not a qid of %s", shorten(qid), lr.ds.Source)
	}
	return q, nil
}

// Errorf returns an error about field (1 qid, 2 slate, 3 reward) of the line
// Next returned last, naming file, line and the field's text: what callers
// use for checks the reader cannot make (e.g. candidates).
func (lr *LogReader) Errorf(field int, format string, args ...any) error {
	if lr.rows != nil {
		return lr.rowErr(field, format, args...)
	}
	kind := ErrRow
	switch field {
	case 1:
		kind = ErrQID
	case 2:
		kind = ErrSlate
	case 3:
		kind = ErrNumber
	}
	var tok []byte
	if field >= 1 && field <= 3 {
		tok = lr.fields[field-1]
	}
	return lr.fieldErr(field, tok, kind, format, args...)
}

// fieldErr is an error about field (1-based), whose text is tok, of the
// current line.
func (lr *lineReader) fieldErr(field int, tok []byte, kind error, format string, args ...any) error {
	return &ParseError{File: lr.name, Line: lr.line, Field: field, Token: shorten(tok), Err: errorf(kind, format, args...)}
}

func (lr *lineReader) lineErr(kind error, format string, args ...any) error {
	return &ParseError{File: lr.name, Line: lr.line, Err: errorf(kind, format, args...)}
}

func (lr *lineReader) fileErr(kind error, format string, args ...any) error {
	return &ParseError{File: lr.name, Err: errorf(kind, format, args...)}
}

// LogWriter writes a slate log: the header line, then one
// `qid<TAB>d1,d2,...<TAB>reward` line per impression, documents named as
// the dataset names them (Dataset.AppendDoc: positions, or comment ids),
// rewards printed with strconv's shortest round-trip format so that reading
// them back gives the same float64.
type LogWriter struct {
	w   io.Writer
	ds  *Dataset
	buf []byte
}

// NewLogWriter writes h's header line to w (h must name slots and logging)
// for a log of ds's queries (nil: documents are named by position). Wrap w
// in a buffer: every impression is one Write call.
func NewLogWriter(w io.Writer, h Header, ds *Dataset) (*LogWriter, error) {
	for _, k := range []string{"slots", "logging"} {
		if _, ok := h[k]; !ok {
			return nil, fmt.Errorf("slate log header lacks %s", k)
		}
	}
	if _, err := io.WriteString(w, withDocIDs(h, ds).Format(LogMagic)+"\n"); err != nil {
		return nil, err
	}
	return &LogWriter{w: w, ds: ds, buf: make([]byte, 0, 128)}, nil
}

// Write appends one impression: context is the line's first field, written
// as it is (normally the raw qid of query q), q the dataset's query index
// and slate the documents' positions in q, named through the dataset.
func (lw *LogWriter) Write(context string, q int, slate []int32, reward float64) error {
	if math.IsInf(reward, 0) || math.IsNaN(reward) {
		return fmt.Errorf("slate log: reward %v of qid %s is not finite", reward, context)
	}
	b := append(lw.buf[:0], context...)
	b = append(b, '\t')
	for j, d := range slate {
		if j > 0 {
			b = append(b, ',')
		}
		if lw.ds == nil {
			b = strconv.AppendInt(b, int64(d), 10)
		} else {
			b = lw.ds.AppendDoc(b, q, d)
		}
	}
	b = append(b, '\t')
	b = strconv.AppendFloat(b, reward, 'g', -1, 64)
	b = append(b, '\n')
	lw.buf = b
	if err := checkLineLength("slate log", b); err != nil {
		return err
	}
	_, err := lw.w.Write(b)
	return err
}

// parseDoc reads a non-negative decimal document position (at most 9
// digits, so it cannot overflow) without allocating.
func parseDoc(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
