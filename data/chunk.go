package data

import (
	"bytes"
	"fmt"
)

// chunk is a run of whole lines of the input and, once parsed, its
// documents. Chunks are parsed in parallel and merged in input order; line
// numbers inside a chunk are local (1-based) until the merge adds the lines
// of the chunks before it.
type chunk struct {
	buf     []byte // owns the text's memory, reused across chunks
	text    []byte // whole lines; the final chunk's last line may lack '\n'
	final   bool   // the last chunk of the input
	rawPos  int64  // raw (possibly compressed) input bytes read when cut
	tooLong bool   // a line longer than maxLineBytes starts this chunk
	done    chan struct{}

	lines   int     // physical lines in text
	labels  []uint8 // per document
	docLine []int32 // local line of each document
	rowEnd  []int32 // end of each document's features in idx/val
	idx     []int32 // 1-based feature indices
	val     []float32
	runs    []run   // maximal runs of one qid (qid files only)
	ids     []byte  // DocComment mode: the documents' ids, end to end
	idEnd   []int32 // end of each document's id in ids

	maxIdx     int // highest feature index in the chunk
	maxIdxLine int
	lineShape
	err *ParseError
}

// lineShape is what tells a cut last line from a complete one (see
// builder.finish): the feature counts of the lines that end in '\n', and
// the last line when it does not.
type lineShape struct {
	minN, maxN int  // features per terminated document line; minN < 0: none yet
	gaps       bool // some terminated line does not list exactly features 1..n
	open       openLine
}

// openLine is a final document line without '\n'.
type openLine struct {
	ok    bool
	n     int    // features on it
	gap   bool   // it does not list exactly features 1..n
	field int    // its number of fields
	tok   string // its last field
	line  int
}

// add records a parsed document line.
func (s *lineShape) add(pl *parsedLine, terminated bool, l []byte, line int) {
	if !terminated {
		s.open = openLine{ok: true, n: pl.n, gap: pl.maxIdx != pl.n, line: line}
		s.open.field, s.open.tok = lastField(l)
		return
	}
	if s.minN < 0 || pl.n < s.minN {
		s.minN = pl.n
	}
	s.maxN = max(s.maxN, pl.n)
	s.gaps = s.gaps || pl.maxIdx != pl.n
}

// merge adds the shape of the lines that follow, whose line numbers start
// after base.
func (s *lineShape) merge(t *lineShape, base int) {
	if t.minN >= 0 {
		if s.minN < 0 || t.minN < s.minN {
			s.minN = t.minN
		}
		s.maxN = max(s.maxN, t.maxN)
		s.gaps = s.gaps || t.gaps
	}
	if t.open.ok {
		s.open = t.open
		s.open.line += base
	}
}

// run is a maximal run of documents of one qid inside a chunk.
type run struct {
	qid   string
	start int32 // first document (chunk index)
	line  int32 // its local line
}

func newChunk(size int) *chunk {
	return &chunk{buf: make([]byte, size), done: make(chan struct{}, 1)}
}

func (c *chunk) reset() {
	c.lines = 0
	c.labels, c.docLine, c.rowEnd = c.labels[:0], c.docLine[:0], c.rowEnd[:0]
	c.idx, c.val = c.idx[:0], c.val[:0]
	c.ids, c.idEnd = c.ids[:0], c.idEnd[:0]
	clear(c.runs) // drop the qid strings
	c.runs = c.runs[:0]
	c.maxIdx, c.maxIdxLine = 0, 0
	c.lineShape = lineShape{minN: -1, maxN: -1}
	c.err = nil
}

// parse parses the chunk's text. It stops at the first bad line, keeping
// the documents before it.
func (c *chunk) parse(sx *lineSyntax) {
	c.reset()
	if c.tooLong {
		c.err = &ParseError{Line: 1, Err: fmt.Errorf("line longer than %d bytes", maxLineBytes)}
		return
	}
	text := c.text
	line := 0
	var prevQID []byte
	for len(text) > 0 {
		line++
		var l []byte
		terminated := true
		if nl := bytes.IndexByte(text, '\n'); nl >= 0 {
			l, text = text[:nl], text[nl+1:]
		} else {
			// Only the final chunk can end without '\n'. A final CR is
			// the first half of a CRLF: the line itself is complete.
			l, text = text, nil
			terminated = l[len(l)-1] == '\r'
		}
		pl, idx, val, fe := parseLine(l, sx, c.idx, c.val)
		c.idx, c.val = idx, val
		if fe != nil {
			c.fail(fe, line, terminated)
			return
		}
		if pl.blank {
			continue
		}
		if sx.docIDs {
			id, fe := commentID(l, &pl)
			if fe != nil {
				c.fail(fe, line, terminated)
				return
			}
			c.ids = append(c.ids, id...)
			c.idEnd = append(c.idEnd, int32(len(c.ids)))
		}
		c.lineShape.add(&pl, terminated, l, line)
		if sx.wantQID && (len(c.labels) == 0 || !bytes.Equal(pl.qid, prevQID)) {
			c.runs = append(c.runs, run{qid: string(pl.qid), start: int32(len(c.labels)), line: int32(line)})
			prevQID = pl.qid
		}
		c.labels = append(c.labels, pl.label)
		c.docLine = append(c.docLine, int32(line))
		c.rowEnd = append(c.rowEnd, int32(len(c.idx)))
		if pl.maxIdx > c.maxIdx {
			c.maxIdx, c.maxIdxLine = pl.maxIdx, line
		}
	}
	c.lines = line
}

// fail records the error fe of the chunk's local line, which ends the
// chunk's parse.
func (c *chunk) fail(fe *fieldError, line int, terminated bool) {
	err := fe.err
	if !terminated {
		err = fmt.Errorf("%w (no final newline): %w", ErrTruncated, err)
	}
	c.err = &ParseError{Line: line, Field: fe.field, Token: shorten(fe.token), Err: err}
	c.lines = line
}

// lastField returns the number of fields of a line and its last field
// (comments excluded), for the message about a truncated last line.
func lastField(l []byte) (int, string) {
	if i := bytes.IndexByte(l, '#'); i >= 0 {
		l = l[:i]
	}
	f := bytes.FieldsFunc(l, isSpaceRune)
	if len(f) == 0 {
		return 0, ""
	}
	return len(f), shorten(f[len(f)-1])
}
