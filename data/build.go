package data

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// builder merges parsed chunks, in input order, into a Dataset.
type builder struct {
	name   string
	sx     *lineSyntax
	groups []group // query-file mode: the group sizes
	nGroup int     // their sum
	total  int64   // raw input size, 0 when unknown; for capacity estimates

	labels []uint8
	feat   []float32 // row-major with stride columns
	stride int
	maxIdx int
	starts []int    // first document of each query (qid mode)
	qids   []string // qid mode
	seen   map[string]int
	line   int   // lines of the chunks merged so far
	text   int64 // text bytes merged so far
	shape  lineShape
	final  bool // finish has begun: the last query ends at the last document

	// DocComment mode: the documents' ids, and how far they are checked.
	// A query's ids are sorted (and its duplicates found) once it is
	// complete, or, before an error is returned, as far as it goes.
	ids     docIDs
	idQ     int   // queries checked and sorted
	idLo    int   // first document of query idQ
	idLines []int // line of each document from idLine0 on, for messages
	idLine0 int
}

// group is one line of a LightGBM query file.
type group struct {
	size int
	line int // line in the query file
}

func newBuilder(name string, sx *lineSyntax, groups []group, total int64) *builder {
	b := &builder{name: name, sx: sx, groups: groups, total: total, shape: lineShape{minN: -1, maxN: -1}}
	if sx.wantQID {
		b.seen = make(map[string]int)
	}
	for _, g := range groups {
		b.nGroup += g.size
	}
	if sx.features > 0 {
		b.stride = sx.features
	}
	return b
}

func (b *builder) errAt(line int, e *ParseError) *ParseError {
	e.File = b.name
	e.Line = line
	return e
}

// merge appends the documents of c. It returns the chunk's parse error, or
// an error found while merging (a reappearing qid), whichever comes first
// in the file.
func (b *builder) merge(c *chunk) error {
	nd0, add := len(b.labels), len(c.labels)
	b.text += int64(len(c.text))
	if add > 0 {
		if c.maxIdx > b.stride {
			if err := b.widen(c.maxIdx, b.line+c.maxIdxLine); err != nil {
				return err
			}
		}
		b.maxIdx = max(b.maxIdx, c.maxIdx)
		if err := b.reserve(nd0+add, c.rawPos, b.line+c.maxIdxLine); err != nil {
			return err
		}
		s := b.stride
		lo := int32(0)
		for d, hi := range c.rowEnd {
			row := b.feat[(nd0+d)*s : (nd0+d+1)*s]
			for i := lo; i < hi; i++ {
				row[c.idx[i]-1] = c.val[i]
			}
			lo = hi
		}
		b.labels = append(b.labels, c.labels...)
		if b.sx.docIDs {
			b.addIDs(c)
		}
	}
	if b.sx.wantQID {
		for i, r := range c.runs {
			if i == 0 && len(b.qids) > 0 && b.qids[len(b.qids)-1] == r.qid {
				continue // the previous chunk's last query goes on
			}
			line := b.line + int(r.line)
			if first, ok := b.seen[r.qid]; ok {
				if err := b.checkIDs(nd0+int(r.start), true); err != nil {
					return err
				}
				return &ParseError{File: b.name, Line: line, Field: 2, Token: shorten([]byte("qid:" + r.qid)),
					Err: errorf(ErrQIDReappears, "qid %s reappears: a query's lines must be contiguous (its first block starts at line %d)", r.qid, first)}
			}
			b.seen[r.qid] = line
			b.qids = append(b.qids, r.qid)
			b.starts = append(b.starts, nd0+int(r.start))
		}
	} else if sum := b.nGroup; nd0+add > sum && nd0 <= sum {
		if err := b.checkIDs(sum, true); err != nil {
			return err
		}
		return &ParseError{File: b.name, Line: b.line + int(c.docLine[sum-nd0]),
			Err: errorf(ErrGroups, "document %d is beyond the %d documents of the %d groups in %s", sum+1, sum, len(b.groups), b.sx.queryFile)}
	}
	if c.err != nil {
		if err := b.checkIDs(len(b.labels), true); err != nil {
			return err
		}
		e := *c.err
		return b.errAt(b.line+c.err.Line, &e)
	}
	b.shape.merge(&c.lineShape, b.line)
	b.line += c.lines
	return b.checkIDs(len(b.labels), false)
}

// addIDs appends the ids of c's documents, which merge has just appended.
func (b *builder) addIDs(c *chunk) {
	x := &b.ids
	base := len(x.blob)
	x.blob = append(x.blob, c.ids...)
	for d, e := range c.idEnd {
		x.end = append(x.end, base+int(e))
		b.idLines = append(b.idLines, b.line+int(c.docLine[d]))
	}
	x.order = slices.Grow(x.order, len(c.idEnd))[:len(x.order)+len(c.idEnd)]
}

// queryEnd returns the end of query q's documents when it is known: the
// next query has started, the input is finished, or a query file gives it.
func (b *builder) queryEnd(q int) (int, bool) {
	if !b.sx.wantQID {
		if q < len(b.groups) {
			return b.idLo + b.groups[q].size, true
		}
		return 0, false
	}
	switch {
	case q+1 < len(b.starts):
		return b.starts[q+1], true
	case q < len(b.starts) && b.final:
		return len(b.labels), true
	}
	return 0, false
}

// checkIDs sorts the ids of every complete query whose documents all lie
// below doc upto, refusing one with two equal ids. With partial it also
// checks the documents below upto of the query that goes on past it: what
// merge does before it returns an error at a later line, so that the error
// that comes first in the file is the one reported.
func (b *builder) checkIDs(upto int, partial bool) error {
	if !b.sx.docIDs {
		return nil
	}
	defer b.dropIDLines()
	for {
		lo := b.idLo
		hi, known := b.queryEnd(b.idQ)
		if !known || hi > upto {
			if !partial || upto <= lo || (!known && b.idQ >= b.numQueries()) {
				return nil
			}
			hi, known = upto, false
		}
		if first, rep, dup := b.ids.sortQuery(lo, hi); dup {
			lines := b.idLines[lo-b.idLine0:]
			return &ParseError{File: b.name, Line: lines[rep], Err: errorf(ErrDocID,
				"document id %q of qid %s repeats line %d: ids must be distinct within a query",
				shorten(b.ids.id(lo+int(rep))), b.queryName(b.idQ), lines[first])}
		}
		if !known {
			return nil
		}
		b.idQ++
		b.idLo = hi
	}
}

// numQueries returns the number of queries begun so far (qid mode).
func (b *builder) numQueries() int { return len(b.starts) }

// queryName returns the qid of query q, as the Dataset will name it.
func (b *builder) queryName(q int) string {
	if b.sx.wantQID {
		return b.qids[q]
	}
	return strconv.Itoa(q + 1)
}

// dropIDLines forgets the lines of the documents of checked queries.
func (b *builder) dropIDLines() {
	if k := b.idLo - b.idLine0; k > 0 {
		n := copy(b.idLines, b.idLines[k:])
		b.idLines = b.idLines[:n]
		b.idLine0 = b.idLo
	}
}

// widen grows the row stride to hold feature index need. The stride grows
// geometrically so that a file whose largest index creeps up chunk by chunk
// costs O(n) copying; finish trims it to the largest index.
func (b *builder) widen(need, line int) error {
	nd := len(b.labels)
	s := need
	if nd > 0 {
		s = max(need, b.stride+b.stride/4)
	}
	if _, err := b.checkSize(nd, s, line); err != nil {
		return err
	}
	if nd == 0 || b.stride == 0 {
		b.stride, b.feat = s, nil
		if nd > 0 {
			b.feat = make([]float32, nd*s)
		}
		return nil
	}
	docs := max(nd, cap(b.feat)/b.stride) // keep reserve's capacity
	nf := make([]float32, nd*s, docs*s)
	for d := range nd {
		copy(nf[d*s:], b.feat[d*b.stride:(d+1)*b.stride])
	}
	b.feat, b.stride = nf, s
	return nil
}

// reserve makes room for nd documents. When the input's size is known the
// capacity follows the documents-per-byte rate seen so far, so the matrix is
// allocated about once instead of doubling.
func (b *builder) reserve(nd int, rawPos int64, line int) error {
	need := nd * b.stride
	if need <= cap(b.feat) {
		b.feat = b.feat[:need]
		return nil
	}
	docs := nd + nd/2 + 64
	if b.total > 0 && rawPos > 0 && rawPos < b.total {
		est := int(float64(nd)*float64(b.total)/float64(rawPos)*1.03) + 64
		docs = max(est, nd+nd/16+64)
	}
	avail, err := b.checkSize(nd, b.stride, line)
	if err != nil {
		return err
	}
	if b.sx.features == 0 && b.total > 0 {
		// Never reserve beyond the size check's bound for the whole input.
		docs = min(docs, max(nd, int(b.limitBytes(b.total)/int64(4*max(b.stride, 1)))))
	}
	if lim := avail / int64(4*max(b.stride, 1)); lim < int64(docs) {
		// Nor beyond the memory available (checkSize passed for nd).
		docs = max(nd, int(lim))
	}
	nf := make([]float32, need, docs*b.stride)
	copy(nf, b.feat)
	b.feat = nf
	return nil
}

// limitBytes is the largest dense matrix accepted for text bytes of input
// when the feature count is not given: 1 GiB, or 64 bytes of matrix per
// byte of text (MSLR needs 0.5, LightGBM's sparse example 1.5).
func (b *builder) limitBytes(text int64) int64 {
	return max(1<<30, 64*text)
}

// minMemoryBound is the least memory checkSize assumes available, whatever
// the system reports.
const minMemoryBound = 64 << 20

// checkSize refuses a dense matrix of nd documents × stride features that
// is unreasonably large for the text (when the feature count comes from the
// data) or larger than the memory available (whatever its source), before
// it is allocated. It returns the bytes of memory available (MaxInt64 when
// the system does not tell), read once for both the check and reserve.
func (b *builder) checkSize(nd, stride, line int) (int64, error) {
	bytes := int64(nd) * int64(stride) * 4
	if b.sx.features == 0 && bytes > b.limitBytes(b.text) {
		return 0, &ParseError{File: b.name, Line: line, Err: errorf(ErrTooLarge,
			"feature index %d makes the dense feature matrix %.1f GiB (%d documents × %d features) for %.1f MiB of text; if that is intended, give the feature count (--features)",
			stride, float64(bytes)/(1<<30), nd, stride, float64(b.text)/(1<<20))}
	}
	avail, ok := memAvailable()
	if !ok {
		return math.MaxInt64, nil
	}
	// The reading is the kernel's estimate of one moment: a host squeezed
	// for a second once reported 0.0 GiB and refused a 310-document file.
	// A matrix this small is not what exhausts memory.
	avail = max(avail, minMemoryBound)
	if bytes > avail {
		what := fmt.Sprintf("--features %d", b.sx.features)
		if b.sx.features == 0 {
			what = fmt.Sprintf("feature index %d", stride)
		} else {
			line = 0 // the count comes from the flag, not from a line
		}
		return 0, &ParseError{File: b.name, Line: line, Err: errorf(ErrTooLarge,
			"%s makes the dense feature matrix %.1f GiB (%d documents × %d features × 4 bytes), more than the %.1f GiB of memory available; at most %d features fit for %d documents",
			what, float64(bytes)/(1<<30), nd, stride, float64(avail)/(1<<30), avail/(4*int64(max(nd, 1))), nd)}
	}
	return avail, nil
}

// finish checks the end of the input and returns the Dataset.
func (b *builder) finish() (*Dataset, error) {
	nd := len(b.labels)
	b.final = true
	if err := b.checkIDs(nd, false); err != nil {
		return nil, err
	}
	// A dense file lists features 1..k on every line; a last line without
	// newline that lists 1..n, n < k, was cut.
	if sh, o := b.shape, b.shape.open; o.ok && sh.minN >= 0 && sh.minN == sh.maxN && !sh.gaps && !o.gap && o.n < sh.minN {
		return nil, &ParseError{File: b.name, Line: o.line, Field: o.field, Token: o.tok,
			Err: fmt.Errorf("%w (no final newline): %d features where every other line has %d", ErrTruncated, o.n, sh.minN)}
	}
	if nd == 0 {
		return nil, &ParseError{File: b.name, Err: ErrEmpty}
	}
	ds := &Dataset{Labels: b.labels, Source: b.name}
	if b.sx.wantQID {
		ds.QIDs = b.qids
		ds.QueryOffsets = append(b.starts, nd)
	} else {
		if b.nGroup != nd {
			at := 0
			for _, g := range b.groups {
				at += g.size
				if at > nd {
					return nil, &ParseError{File: b.sx.queryFile, Line: g.line, Err: errorf(ErrGroups,
						"group sizes reach %d here, but %s has only %d documents", at, b.name, nd)}
				}
			}
		}
		ds.QIDs = make([]string, len(b.groups))
		ds.QueryOffsets = make([]int, len(b.groups)+1)
		for q, g := range b.groups {
			ds.QIDs[q] = strconv.Itoa(q + 1)
			ds.QueryOffsets[q+1] = ds.QueryOffsets[q] + g.size
		}
	}
	f := b.sx.features
	if f == 0 {
		f = b.maxIdx
	}
	if b.stride != f {
		// Compact rows in place: row d moves down from d·stride to d·f.
		for d := range nd {
			copy(b.feat[d*f:(d+1)*f], b.feat[d*b.stride:d*b.stride+f])
		}
	}
	ds.Features = b.feat[: nd*f : nd*f]
	ds.NumFeatures = f
	if b.sx.docIDs {
		b.idLines = nil
		ds.ids = &docIDs{blob: trim(b.ids.blob), end: trim(b.ids.end), order: trim(b.ids.order)}
	}
	if err := ds.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", b.name, err)
	}
	return ds, nil
}

// trim returns s, copied into a slice of its own length when appending
// left much room beyond it.
func trim[S ~[]E, E any](s S) S {
	if cap(s)-len(s) <= len(s)/8 {
		return s[:len(s):len(s)]
	}
	return slices.Clone(s)
}
