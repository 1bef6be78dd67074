package data

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/parquet-go/parquet-go"
)

// pqCursor walks one leaf column of a row group value by value, a page at
// a time. A value's bytes are valid until the cursor moves past it.
type pqCursor struct {
	pages parquet.Pages
	page  parquet.Page
	vals  parquet.ValueReader
	buf   []parquet.Value
	i, n  int
}

// reset starts the cursor on a new column chunk.
func (c *pqCursor) reset(pages parquet.Pages) {
	c.close()
	c.pages = pages
	if c.buf == nil {
		c.buf = make([]parquet.Value, 512)
	}
}

// close releases the current page and the chunk's page reader.
func (c *pqCursor) close() {
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	if c.pages != nil {
		c.pages.Close()
		c.pages = nil
	}
	c.vals, c.i, c.n = nil, 0, 0
}

// fill loads the next values, reading pages as needed; it reports false
// at the end of the chunk.
func (c *pqCursor) fill() (bool, error) {
	for c.i == c.n {
		if c.vals != nil {
			n, err := c.vals.ReadValues(c.buf)
			c.i, c.n = 0, n
			if n > 0 {
				return true, nil
			}
			if err != nil && err != io.EOF {
				return false, err
			}
			parquet.Release(c.page)
			c.page, c.vals = nil, nil
		}
		p, err := c.pages.ReadPage()
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		c.page, c.vals = p, p.Values()
	}
	return true, nil
}

// next returns the next value; a chunk that ends inside a row group is
// corrupt.
func (c *pqCursor) next() (*parquet.Value, error) {
	ok, err := c.fill()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("the column ends before the row group's last row (corrupt file?)")
	}
	c.i++
	return &c.buf[c.i-1], nil
}

// more reports whether the next value continues the current row (its
// repetition level is above 0).
func (c *pqCursor) more() (bool, error) {
	ok, err := c.fill()
	if err != nil || !ok {
		return false, err
	}
	return c.buf[c.i].RepetitionLevel() > 0, nil
}

// pqReader holds a read's state: the plan, a cursor per planned leaf, and
// the LogRow handed to fn, reused row after row.
type pqReader struct {
	path    string
	fn      func(row int64, r *LogRow) error
	plan    *pqPlan
	row     int64 // the current row, from 1
	inFn    bool  // fn is running: a panic is fn's own
	leaves  []*pqLeaf
	cursors []pqCursor
	out     LogRow
	reward  float64      // out.Reward points to it
	pol     [2]RowPolicy // the policy and target out points to
	num     [24]byte     // a DECIMAL's text
	ids     pqInterner
}

// init lists the planned leaves, one cursor each.
func (rd *pqReader) init() {
	p := rd.plan
	rd.leaves = []*pqLeaf{&p.context, &p.slate, &p.reward}
	for _, sp := range []*pqStructPlan{p.policy, p.target} {
		if sp == nil {
			continue
		}
		rd.leaves = append(rd.leaves, &sp.spec)
		for _, l := range []*pqLeaf{sp.candidates, sp.scores, sp.slates, sp.probs} {
			if l != nil {
				rd.leaves = append(rd.leaves, l)
			}
		}
	}
	for i, l := range rd.leaves {
		l.cur = i
	}
	rd.cursors = make([]pqCursor, len(rd.leaves))
	rd.ids.m = make(map[string]string)
}

// cursor returns the cursor of leaf l.
func (rd *pqReader) cursor(l *pqLeaf) *pqCursor { return &rd.cursors[l.cur] }

// rowGroup reads the rows of one row group.
func (rd *pqReader) rowGroup(rg parquet.RowGroup) error {
	chunks := rg.ColumnChunks()
	for i, l := range rd.leaves {
		if l.col < 0 || l.col >= len(chunks) {
			return rd.corrupt(fmt.Errorf("a row group without column %s", l.field))
		}
		rd.cursors[i].reset(chunks[l.col].Pages())
	}
	defer func() {
		for i := range rd.cursors {
			rd.cursors[i].close()
		}
	}()
	for n := rg.NumRows(); n > 0; n-- {
		rd.row++
		if err := rd.readRow(); err != nil {
			return err
		}
		rd.inFn = true
		err := rd.fn(rd.row, &rd.out)
		rd.inFn = false
		if err != nil {
			return err
		}
	}
	for i := range rd.cursors {
		if ok, err := rd.cursors[i].fill(); err != nil || ok {
			return rd.rowErr(ErrParquetLog, rd.leaves[i].field, "values after the row group's last row (corrupt file?)")
		}
	}
	return nil
}

// readRow assembles the current row into rd.out.
func (rd *pqReader) readRow() error {
	p, r := rd.plan, &rd.out
	if err := rd.scalar(&p.context, &r.Context, nil); err != nil {
		return err
	}
	if _, err := rd.strings(&p.slate, &r.Slate, true); err != nil {
		return err
	}
	if err := rd.scalar(&p.reward, nil, &rd.reward); err != nil {
		return err
	}
	r.Reward = &rd.reward
	var err error
	if r.Policy, err = rd.policy(p.policy, &rd.pol[0]); err != nil {
		return err
	}
	r.Target, err = rd.policy(p.target, &rd.pol[1])
	return err
}

// policy reads a policy/target struct into pol; nil when the file has no
// such column or the row's is null.
func (rd *pqReader) policy(sp *pqStructPlan, pol *RowPolicy) (*RowPolicy, error) {
	if sp == nil {
		return nil, nil
	}
	present := true
	if err := rd.scalarIn(&sp.spec, &pol.Spec, nil, &present); err != nil {
		return nil, err
	}
	for _, l := range []*pqLeaf{sp.candidates, sp.scores, sp.slates, sp.probs} {
		if l == nil {
			continue
		}
		var here bool
		var err error
		switch l {
		case sp.candidates:
			here, err = rd.strings(l, &pol.Candidates, false)
		case sp.scores:
			here, err = rd.numbers(l, &pol.Scores)
		case sp.probs:
			here, err = rd.numbers(l, &pol.Probs)
		default:
			here, err = rd.slates(l, &pol.Slates)
		}
		if err != nil {
			return nil, err
		}
		if here != present {
			return nil, rd.rowErr(ErrParquetLog, l.field, "the struct is null here but not in its spec column, or the reverse (corrupt file?)")
		}
	}
	if !present {
		return nil, nil
	}
	// A field the file lacks is nil, as a null one.
	if sp.candidates == nil {
		pol.Candidates = nil
	}
	if sp.scores == nil {
		pol.Scores = nil
	}
	if sp.slates == nil {
		pol.Slates = nil
	}
	if sp.probs == nil {
		pol.Probs = nil
	}
	return pol, nil
}

// scalar reads a top-level single value (context or reward): into s for a
// string, into f for a number; a null is an error.
func (rd *pqReader) scalar(l *pqLeaf, s *string, f *float64) error {
	present := true
	return rd.scalarIn(l, s, f, &present)
}

// scalarIn reads a single value, inside a struct when l.dStruct > 0:
// present is set to whether the struct is there. A null value of a present
// struct (or at top level) is an error. The value is used up before the
// cursor moves on, which may overwrite it.
func (rd *pqReader) scalarIn(l *pqLeaf, s *string, f *float64, present *bool) error {
	c := rd.cursor(l)
	v, err := c.next()
	if err != nil {
		return rd.corruptField(l, err)
	}
	if err := rd.checkFirst(l, v); err != nil {
		return err
	}
	d := v.DefinitionLevel()
	*present = d >= l.dStruct
	switch {
	case !*present:
	case d < l.dField:
		return rd.rowErr(ErrParquetLog, l.field, "null")
	default:
		if err := rd.value(l, v, l.field, -1, -1, s, f); err != nil {
			return err
		}
	}
	if more, err := c.more(); err != nil || more {
		return rd.corruptField(l, err)
	}
	return nil
}

// checkFirst checks that v starts a row and holds a valid level.
func (rd *pqReader) checkFirst(l *pqLeaf, v *parquet.Value) error {
	maxDef := l.dField
	switch l.shape {
	case pqList:
		maxDef = l.dElem
	case pqLists:
		maxDef = l.dElem2
	}
	if v.RepetitionLevel() != 0 || v.DefinitionLevel() > maxDef || v.DefinitionLevel() < 0 {
		return rd.rowErr(ErrParquetLog, l.field, "levels %d/%d out of place (corrupt file?)", v.RepetitionLevel(), v.DefinitionLevel())
	}
	return nil
}

// value converts a present value of leaf l into s or f, checking it: ids
// by the id rule, numbers finite. i and j index the field for errors (-1:
// no index).
func (rd *pqReader) value(l *pqLeaf, v *parquet.Value, field string, i, j int, s *string, f *float64) error {
	if v.IsNull() || v.Kind() != pqKind(l.num) {
		return rd.rowErr(ErrParquetLog, pqIndex(field, i, j), "a %s value in a %s column (corrupt file?)", v.Kind(), pqKind(l.num))
	}
	if l.num == pqString {
		b := v.ByteArray()
		if why := rd.badID(l, b); why != "" {
			kind := ErrDocID
			if l.field == "context" || l.field == "policy.spec" || l.field == "target.spec" {
				kind = ErrParquetLog
			}
			return rd.rowErr(kind, pqIndex(field, i, j), "%q: %s", shorten(b), why)
		}
		*s = rd.ids.get(b)
		return nil
	}
	x := rd.number(l, v)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return rd.rowErr(ErrValue, pqIndex(field, i, j), "%v is not a finite number", x)
	}
	*f = x
	return nil
}

// badID says what makes b unusable in leaf l, or "": ids of documents by
// the rule of every reader (badDocID); a context by the same rule, spaces
// and ',' allowed (a log's context is a field of its own); a spec must be
// non-empty UTF-8 without control characters.
func (rd *pqReader) badID(l *pqLeaf, b []byte) string {
	switch l.field {
	case "slate", "policy.candidates", "target.candidates", "policy.slates", "target.slates":
		return badDocID(b)
	}
	switch {
	case len(b) == 0:
		return "empty"
	case !utf8.Valid(b):
		return "not valid UTF-8"
	}
	for _, c := range b {
		if c < 0x20 || c == 0x7f {
			return fmt.Sprintf("contains the control character %#02x", c)
		}
	}
	return ""
}

// pqKind is the physical kind of a leaf's values.
func pqKind(n pqNum) parquet.Kind {
	switch n {
	case pqString:
		return parquet.ByteArray
	case pqDouble:
		return parquet.Double
	case pqFloat:
		return parquet.Float
	case pqInt32, pqUint32, pqDecimal32:
		return parquet.Int32
	}
	return parquet.Int64
}

// number converts a numeric value to the float64 its decimal text reads as.
func (rd *pqReader) number(l *pqLeaf, v *parquet.Value) float64 {
	var unscaled int64
	switch l.num {
	case pqDouble:
		return v.Double()
	case pqFloat:
		return float64(v.Float())
	case pqInt32:
		return float64(v.Int32())
	case pqUint32:
		return float64(v.Uint32())
	case pqInt64:
		return float64(v.Int64())
	case pqUint64:
		return float64(v.Uint64())
	case pqDecimal32:
		unscaled = int64(v.Int32())
	default:
		unscaled = v.Int64()
	}
	// DIGITSe-SCALE, read by strconv: the correctly rounded float64 of
	// the decimal, as a JSON reader gets from its text.
	b := strconv.AppendInt(rd.num[:0], unscaled, 10)
	b = append(b, 'e')
	b = strconv.AppendInt(b, -int64(l.scale), 10)
	x, _ := strconv.ParseFloat(unsafe.String(&b[0], len(b)), 64)
	return x
}

// pqIndex names field[i] or field[i][j] (-1: no index).
func pqIndex(field string, i, j int) string {
	switch {
	case i < 0:
		return field
	case j < 0:
		return field + "[" + strconv.Itoa(i) + "]"
	}
	return field + "[" + strconv.Itoa(i) + "][" + strconv.Itoa(j) + "]"
}

// rowErr is an error about field of the current row.
func (rd *pqReader) rowErr(kind error, field, format string, args ...any) error {
	return &ParseError{File: rd.path, Line: int(rd.row), Unit: "row",
		Err: errorf(kind, "field %s: %s", field, fmt.Sprintf(format, args...))}
}

// corruptField is an error the library or the levels report while
// reading field l of the current row.
func (rd *pqReader) corruptField(l *pqLeaf, err error) error {
	if err == nil {
		err = errors.New("a single value repeated (corrupt file?)")
	}
	return &ParseError{File: rd.path, Line: int(rd.row), Unit: "row",
		Err: pqWrap{fmt.Errorf("field %s: %w", l.field, err)}}
}

// corrupt is an error about the file at the current row (none before the
// first).
func (rd *pqReader) corrupt(err error) error {
	return &ParseError{File: rd.path, Line: int(rd.row), Unit: "row", Err: pqWrap{err}}
}

// pqWrap is an error of the library or of a corrupt file's levels: it
// reads as err and matches both err and ErrParquetLog under errors.Is.
type pqWrap struct{ err error }

func (e pqWrap) Error() string   { return e.err.Error() }
func (e pqWrap) Unwrap() []error { return []error{ErrParquetLog, e.err} }

// pqInterner hands out one string per distinct id, so that a log's
// repeated ids (the same documents row after row) are not allocated
// again. It forgets everything when it holds more than 1 MiB of ids,
// so memory stays bounded on a log of unique ids.
type pqInterner struct {
	m     map[string]string
	bytes int
}

func (t *pqInterner) get(b []byte) string {
	if s, ok := t.m[string(b)]; ok {
		return s
	}
	if t.bytes > 1<<20 {
		clear(t.m)
		t.bytes = 0
	}
	s := string(b)
	t.m[s] = s
	t.bytes += len(s) + 16
	return s
}

// errPQLevels: a value's levels do not fit the schema's, or the values before.
var errPQLevels = errors.New("levels out of place (corrupt file?)")
