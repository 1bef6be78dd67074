package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// ReadOptions controls how a LETOR file is read. The zero value reads MSLR
// files: grades 0..4, feature count from the data, binary cache on.
type ReadOptions struct {
	// Features fixes the feature count; 0 means the largest index seen.
	// An index above a given count is an error.
	Features int
	// MaxLabel is the highest grade accepted (MSLR: 4); 0 means 4.
	MaxLabel int
	// QueryFile is a LightGBM-style group-size file for inputs without
	// qid:; empty means FILE.query when it exists and the file's first
	// line has no qid:.
	QueryFile string
	// CacheDir holds the binary cache; empty means the user cache folder
	// (os.UserCacheDir()/piopt).
	CacheDir string
	// NoCache disables reading and writing the binary cache.
	NoCache bool
	// CacheNotice, when set, is told that the cache folder dir cannot be
	// used (not a folder, read-only, full); the data is then read without
	// the cache. CacheNotices makes one that prints once per folder.
	CacheNotice func(dir string, err error)
	// threads used to parse; 0 means all cores. The result does not
	// depend on it.
	threads int
	// Progress, when set, is called after each parsed chunk with the input
	// bytes read so far and the input's size (0 when unknown).
	Progress func(done, total int64)
	// DocIDs says how piopt's files name the documents: DocPosition (the
	// zero value) by position in the query, DocComment by the id in each
	// line's comment, which every document line must then have, distinct
	// within its query.
	DocIDs DocIDs

	chunkSize int // bytes of text per parallel chunk; tests make it tiny
}

// DefaultReadOptions are the options of MSLR-WEB10K: grades 0..4.
func DefaultReadOptions() ReadOptions { return ReadOptions{MaxLabel: 4} }

const (
	defaultChunkSize = 2 << 20
	maxLineBytes     = 64 << 20
)

func (o ReadOptions) normalize() (ReadOptions, error) {
	if o.MaxLabel == 0 {
		o.MaxLabel = 4
	}
	if o.MaxLabel < 0 || o.MaxLabel > 255 {
		return o, fmt.Errorf("data: max label --max-label %d outside 1..255", o.MaxLabel)
	}
	if o.Features < 0 || o.Features > maxFeatureIndex {
		return o, fmt.Errorf("data: feature count --features %d outside 0..%d", o.Features, maxFeatureIndex)
	}
	if o.DocIDs > DocComment {
		return o, fmt.Errorf("data: document ids --doc-ids %v unknown (want position or comment)", o.DocIDs)
	}
	if o.threads <= 0 {
		o.threads = runtime.GOMAXPROCS(0)
	}
	if o.chunkSize <= 0 {
		o.chunkSize = defaultChunkSize
	}
	return o, nil
}

// Load reads a LETOR/SVMlight file, plain or gzip (detected by its magic
// bytes), using the binary cache unless opt.NoCache.
//
// Each line is `<label> qid:<id> <index>:<value> ... [# comment]`: fields
// are separated by spaces or tabs, CRLF line ends and trailing spaces are
// fine, a lone CR (old Mac line end) ends a line like LF, '#' starts a
// comment anywhere (`#docid = ..` and `# docid` alike), blank and
// comment-only lines are skipped, and features may be listed
// sparsely (a missing index is 0) but with increasing indices. A query is a
// maximal run of lines with one qid; a qid that reappears later is an error.
// Lines without qid: are grouped by a LightGBM query file instead (one group
// size per line; opt.QueryFile, or FILE.query when the file's first line
// has no qid:); its queries are named "1", "2", ... in file order.
//
// The last line may lack its newline (many files do); it is read like any
// other line unless it looks cut short, which is an ErrTruncated error:
// when it does not parse (cut inside "12:0.5" as "12:" or "12"), or when
// the file is dense — every other line lists exactly features 1..k, as
// MSLR's do — and the last line lists only 1..n, n < k. A value cut between
// digits ("0.12" of "0.1234") or a sparse line cut after a whole feature
// still reads as complete: nothing in the text tells them apart. A final CR
// (of a CRLF cut before its LF) counts as a line end.
//
// The feature count is opt.Features or else the largest index seen. Rows
// are dense, so without opt.Features an index above 2^20, or a matrix of
// more than 64 bytes per byte of text (and over 1 GiB), is refused rather
// than allocated. Lines are at most 64 MiB.
//
// Parsing runs on opt.Threads cores over chunks of whole lines, merged in
// file order. The binary cache keeps one entry per absolute path, query file
// and options; an entry is used only when the source's size, mtime and
// content hash (CRC-32C and CRC-32 of every byte) and the entry's own
// checksum match, so a stale or corrupt entry is re-parsed and rewritten
// (atomically). A hit costs one read of the source, to hash it, and one of
// the entry.
//
// With opt.DocIDs == DocComment each document line must carry its id in its
// comment: `#docid = ID` (the word after "docid" and '='; spaces optional),
// or else the first word after '#' (`# ID`, `#ID more words`). A line
// without one, an empty id, an id with a ',' and an id that another line of
// the query has are ErrDocID errors; the last names both lines.
//
// Errors about the input are *ParseError values naming file, line and field.
func Load(path string, opt ReadOptions) (*Dataset, error) {
	return LoadContext(context.Background(), path, opt)
}

// LoadContext is Load with a context that can stop a long parse.
func LoadContext(ctx context.Context, path string, opt ReadOptions) (*Dataset, error) {
	opt, err := opt.normalize()
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s: is a folder, not a LETOR file", path)
	}
	qpath, auto := opt.QueryFile, false
	if qpath == "" {
		qpath = findQueryFile(path)
		auto = qpath != ""
	}
	// Read once: the cache key hashes the same bytes the parser uses.
	qf := readQueryFile(qpath)

	var ce *cacheEntry
	if !opt.NoCache {
		ce = newCacheEntry(path, st, qf, opt)
		if ds := ce.load(f); ds != nil {
			return ds, nil
		}
	}
	h := newHashReader(f)
	ds, err := parse(ctx, h, path, opt, qf, auto, st.Size())
	if err != nil {
		return nil, err
	}
	if ce != nil {
		ce.store(ds, h.sum())
	}
	return ds, nil
}

// Read parses a LETOR stream (plain or gzip) as Load does, without the
// cache. name is used in error messages. Lines without qid: need
// opt.QueryFile.
func Read(r io.Reader, name string, opt ReadOptions) (*Dataset, error) {
	return readContext(context.Background(), r, name, opt)
}

// readContext is Read with a context.
func readContext(ctx context.Context, r io.Reader, name string, opt ReadOptions) (*Dataset, error) {
	opt, err := opt.normalize()
	if err != nil {
		return nil, err
	}
	return parse(ctx, newHashReader(r), name, opt, readQueryFile(opt.QueryFile), false, 0)
}

// QueryFileOf returns the group file that reading the LETOR file at path
// without ReadOptions.QueryFile picks up by itself: FILE.query (or, for
// FILE.gz, FILE.query) when it exists, else "".
func QueryFileOf(path string) string { return findQueryFile(path) }

// findQueryFile returns FILE.query (or, for FILE.gz, FILE.query) when it
// exists.
func findQueryFile(path string) string {
	for _, q := range []string{path + ".query", strings.TrimSuffix(path, ".gz") + ".query"} {
		if st, err := os.Stat(q); err == nil && st.Mode().IsRegular() {
			return q
		}
	}
	return ""
}

// parse reads the text behind raw (gzip is detected) with opt.Threads
// workers. total is raw's size when known.
func parse(ctx context.Context, raw *hashReader, name string, opt ReadOptions, qf queryFile, auto bool, total int64) (*Dataset, error) {
	br := bufio.NewReaderSize(raw, 64<<10)
	var text *bufio.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		defer zr.Close()
		text = bufio.NewReaderSize(zr, 64<<10)
	}
	sx := &lineSyntax{maxLabel: opt.MaxLabel, features: opt.Features, wantQID: true, docIDs: opt.DocIDs == DocComment}
	var groups []group
	if qf.path != "" && (!auto || !firstLineHasQID(text)) {
		var err error
		if groups, err = qf.groups(); err != nil {
			return nil, err
		}
		sx.wantQID, sx.queryFile = false, qf.path
	}
	b := newBuilder(name, sx, groups, total)
	return runPipeline(ctx, crReader{text}, raw, sx, b, opt)
}

// firstLineHasQID reports whether the first document line (within the first
// 64 KiB) has a qid: field. Lines end at LF or CR (crReader).
func firstLineHasQID(br *bufio.Reader) bool {
	b, _ := br.Peek(64 << 10)
	for len(b) > 0 {
		line := b
		if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		f := bytes.FieldsFunc(line, isSpaceRune)
		if len(f) > 0 {
			return len(f) > 1 && bytes.HasPrefix(f[1], []byte("qid:"))
		}
	}
	return false
}

// queryFile is a LightGBM query file's content, read once (err is the
// reading error, reported only if the file is needed).
type queryFile struct {
	path string
	data []byte
	err  error
}

func readQueryFile(path string) queryFile {
	if path == "" {
		return queryFile{}
	}
	data, err := ReadFileCapped(path, MaxQueryFileBytes, "--query-file")
	return queryFile{path, data, err}
}

// groups parses the query file: one positive group size per line.
func (qf queryFile) groups() ([]group, error) {
	if qf.err != nil {
		return nil, qf.err
	}
	path := qf.path
	var gs []group
	for i, l := range bytes.Split(qf.data, []byte("\n")) {
		l = bytes.TrimFunc(l, isSpaceRune)
		if len(l) == 0 {
			continue
		}
		n, err := strconv.Atoi(string(l))
		if err != nil || n < 1 || n > math.MaxInt32 {
			return nil, &ParseError{File: path, Line: i + 1, Field: 1, Token: shorten(l), Err: errorf(ErrGroups, "group size not a positive integer")}
		}
		gs = append(gs, group{size: n, line: i + 1})
	}
	if len(gs) == 0 {
		return nil, &ParseError{File: path, Err: errorf(ErrGroups, "no group sizes")}
	}
	return gs, nil
}

// runPipeline cuts text into chunks of whole lines, parses them on
// opt.Threads workers and merges them in input order, so the result does
// not depend on the number of workers.
func runPipeline(ctx context.Context, text io.Reader, raw *hashReader, sx *lineSyntax, b *builder, opt ReadOptions) (*Dataset, error) {
	threads := opt.threads
	order := make(chan *chunk, 2*threads)
	jobs := make(chan *chunk)
	free := make(chan *chunk, 3*threads+2)
	quit := make(chan struct{})
	var readErr error
	var wg sync.WaitGroup
	wg.Add(1 + threads)
	go func() {
		defer wg.Done()
		readErr = produce(text, raw, order, jobs, free, quit, opt.chunkSize)
	}()
	for range threads {
		go func() {
			defer wg.Done()
			for c := range jobs {
				c.parse(sx)
				c.done <- struct{}{}
			}
		}()
	}
	var err error
	for c := range order {
		<-c.done
		if err == nil {
			if err = ctx.Err(); err != nil {
				err = fmt.Errorf("%s: %w", b.name, err)
			} else {
				err = b.merge(c)
			}
			if err != nil {
				close(quit)
			} else if opt.Progress != nil {
				opt.Progress(c.rawPos, b.total)
			}
		}
		c.text = nil
		select {
		case free <- c:
		default:
		}
	}
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if readErr != nil {
		return nil, fmt.Errorf("%s: read: %w", b.name, readErr)
	}
	return b.finish()
}

// produce reads text into chunks that end at a line end and hands each to
// the workers (jobs) and, in order, to the merger (order).
func produce(text io.Reader, raw *hashReader, order, jobs chan<- *chunk, free chan *chunk, quit <-chan struct{}, size int) error {
	defer close(order)
	defer close(jobs)
	var carry []byte
	for {
		var c *chunk
		select {
		case c = <-free:
		default:
			c = newChunk(size)
		}
		if len(c.buf) < max(size, 2*len(carry)) {
			c.buf = make([]byte, max(size, 2*len(carry)))
		}
		buf := c.buf
		n := copy(buf, carry)
		carry = carry[:0]
		eof, cut := false, -1
		c.tooLong = false
		for {
			for n < len(buf) && !eof {
				m, err := text.Read(buf[n:])
				n += m
				if err == io.EOF {
					eof = true
				} else if err != nil {
					if err == io.ErrUnexpectedEOF {
						err = fmt.Errorf("%w (truncated gzip stream?)", err)
					}
					return err
				}
			}
			if eof {
				break
			}
			if cut = bytes.LastIndexByte(buf[:n], '\n'); cut >= 0 {
				break
			}
			if n > maxLineBytes {
				c.tooLong = true
				break
			}
			nb := make([]byte, min(2*len(buf), maxLineBytes+1))
			copy(nb, buf[:n])
			buf, c.buf = nb, nb
		}
		switch {
		case eof:
			c.text, c.final = buf[:n], true
		case c.tooLong:
			c.text, c.final = nil, true
		default:
			c.text, c.final = buf[:cut+1], false
			carry = append(carry, buf[cut+1:n]...)
		}
		c.rawPos = raw.n
		select {
		case jobs <- c:
		case <-quit:
			return nil
		}
		select {
		case order <- c:
		case <-quit:
			return nil
		}
		if c.final {
			return nil
		}
	}
}

// hashReader passes reads through, hashing the bytes (CRC-32C and CRC-32
// IEEE: 64 bits, both hardware-accelerated) and counting them.
type hashReader struct {
	r    io.Reader
	c, i uint32
	n    int64
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func newHashReader(r io.Reader) *hashReader { return &hashReader{r: r} }

func (h *hashReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.c = crc32.Update(h.c, castagnoli, p[:n])
	h.i = crc32.Update(h.i, crc32.IEEETable, p[:n])
	h.n += int64(n)
	return n, err
}

func (h *hashReader) sum() uint64 { return uint64(h.c)<<32 | uint64(h.i) }
