package data

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"strconv"
	"sync"

	"github.com/piopt/piopt/internal/atomicfile"
)

// Targets are the regression targets of PI-OPT: one row per logged query,
// candidate document and slot, as written by `piopt impute`.
//
// File format (text, one row per line, after a header line
// `# piopt-targets v1 key=value ...`):
//
//	qid<TAB>doc<TAB>slot<TAB>target<TAB>weight
//
// doc is the 0-based position inside the query's block, or with --doc-ids
// comment the id of the document's line comment (Dataset.AppendDoc); slot is
// 1-based. Rows are sorted by (query order in the dataset, doc position,
// slot). Floats are
// written in strconv's shortest round-trip form, so reading gives back the
// exact float64 values.
type Targets struct {
	Header map[string]string // key=value pairs of the header line
	Slots  int               // ℓ: the slate length the targets were made for
	Query  []int32           // query index in the Dataset
	Doc    []int32           // document position inside its query
	Slot   []uint8           // 1-based slot
	Target []float64
	Weight []float64
}

// Len returns the number of rows.
func (t *Targets) Len() int { return len(t.Target) }

// ReadTargets reads a targets file (optionally gzip-compressed) and checks
// it against ds: qids present, docs of their query (Dataset.findDoc), slots
// within the header's slots, finite targets, finite non-negative weights, no row given
// twice. Rows come back sorted by (query, doc, slot) whatever their order in
// the file. Errors are *ParseError values naming file, line and field.
func ReadTargets(path string, ds *Dataset) (*Targets, error) {
	r, c, err := openSlateFile(path)
	if err != nil {
		return nil, fmt.Errorf("open targets: %w", err)
	}
	defer c.Close()
	return readTargets(r, path, ds)
}

func readTargets(r io.Reader, name string, ds *Dataset) (*Targets, error) {
	lr := newLineReader(r, name)
	h, slots, err := readTargetsHeader(lr, ds)
	if err != nil {
		return nil, err
	}
	qids := qidIndex(ds)
	t := &Targets{Header: h, Slots: slots}
	var lines []int32
	sorted := true
	// Its own loop, not eachRecord: a targets file has a row per (query,
	// doc, slot), and a call through a closure per row cost about 4% here.
	for {
		line, err := lr.nextRecord()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		row, err := parseTargetRow(lr, line, qids, ds, slots)
		if err != nil {
			return nil, err
		}
		if n := len(t.Target); n > 0 && sorted {
			sorted = rowLess(t.Query[n-1], t.Doc[n-1], t.Slot[n-1], row.query, row.doc, row.slot)
		}
		t.Query = append(t.Query, row.query)
		t.Doc = append(t.Doc, row.doc)
		t.Slot = append(t.Slot, row.slot)
		t.Target = append(t.Target, row.target)
		t.Weight = append(t.Weight, row.weight)
		lines = append(lines, int32(lr.line))
	}
	if !sorted {
		if err := t.sortRows(name, lines, ds); err != nil {
			return nil, err
		}
	}
	if err := t.checkUseful(name); err != nil {
		return nil, err
	}
	return t, nil
}

// checkUseful refuses targets a model cannot learn from: no row, every
// weight 0, or a header slots= above every row's slot while some query has
// candidates for more slots (the file was not made for that many slots, and
// a model trained on it would never see its last slots). Rows are sorted.
func (t *Targets) checkUseful(name string) error {
	if t.Len() == 0 {
		return &ParseError{File: name, Err: errorf(ErrRow, "no target rows after the header")}
	}
	maxSlot, maxDocs := 0, 0
	nonzero := false
	for i, docs := 0, 0; i < t.Len(); i++ {
		nonzero = nonzero || t.Weight[i] != 0
		maxSlot = max(maxSlot, int(t.Slot[i]))
		if i == 0 || t.Query[i] != t.Query[i-1] {
			docs = 0
		}
		if i == 0 || t.Query[i] != t.Query[i-1] || t.Doc[i] != t.Doc[i-1] {
			docs++
		}
		maxDocs = max(maxDocs, docs)
	}
	if !nonzero {
		return &ParseError{File: name, Err: errorf(ErrNumber, "every row's weight is 0: a model trained on it would learn nothing")}
	}
	if want := min(t.Slots, maxDocs); maxSlot < want {
		return &ParseError{File: name, Line: 1, Err: errorf(ErrHeader,
			"header slots=%d, but no row has a slot above %d although a query has %d candidate documents: the targets were not made for %d slots",
			t.Slots, maxSlot, maxDocs, t.Slots)}
	}
	return nil
}

// readTargetsHeader reads the header line and checks its slots= and that it
// was made for ds.
func readTargetsHeader(lr *lineReader, ds *Dataset) (Header, int, error) {
	h, err := lr.readHeader(targetsMagic)
	if err != nil {
		return nil, 0, err
	}
	slots, ok, err := h.Int("slots")
	if err == nil && !ok {
		err = fmt.Errorf("header lacks slots=")
	}
	if err == nil && (slots < 1 || slots > 255) {
		err = fmt.Errorf("header slots=%d outside 1..255", slots)
	}
	if err == nil {
		err = checkHeaderData(h, ds)
	}
	if err != nil {
		return nil, 0, lr.lineErr(ErrHeader, "%v", err)
	}
	return h, slots, nil
}

// targetRow is one parsed row of a targets file.
type targetRow struct {
	query, doc int32
	slot       uint8
	target     float64
	weight     float64
}

// parseTargetRow parses the current line of lr, a row of the targets file
// of ds with the header's slots, naming the field at fault on error.
func parseTargetRow(lr *lineReader, line []byte, qids map[string]int, ds *Dataset, slots int) (targetRow, error) {
	var fields [5][]byte
	if err := lr.splitFields(line, fields[:], "qid, doc, slot, target, weight"); err != nil {
		return targetRow{}, err
	}
	fieldErr := func(f int, kind error, format string, args ...any) error {
		return lr.fieldErr(f, fields[f-1], kind, format, args...)
	}
	q, ok := qids[string(fields[0])]
	if !ok {
		return targetRow{}, fieldErr(1, ErrQID, "qid %q is not in %s", shorten(fields[0]), ds.Source)
	}
	doc, ok := ds.findDoc(q, bytes.TrimSpace(fields[1]))
	if !ok {
		if ds.hasDocIDs() {
			return targetRow{}, fieldErr(2, ErrRow, "doc %q is not in qid %s", shorten(bytes.TrimSpace(fields[1])), ds.QIDs[q])
		}
		return targetRow{}, fieldErr(2, ErrRow, "doc must be a position 0..%d of qid %s", ds.QuerySize(q)-1, ds.QIDs[q])
	}
	slot, ok := parseDoc(bytes.TrimSpace(fields[2]))
	if !ok || slot < 1 || slot > slots {
		return targetRow{}, fieldErr(3, ErrRow, "slot must be 1..%d (header slots=%d)", slots, slots)
	}
	target, ok := parseFinite(bytes.TrimSpace(fields[3]))
	if !ok {
		return targetRow{}, fieldErr(4, ErrNumber, "target is not a finite number")
	}
	weight, ok := parseFinite(bytes.TrimSpace(fields[4]))
	if !ok || weight < 0 {
		return targetRow{}, fieldErr(5, ErrNumber, "weight is not a finite number ≥ 0")
	}
	// XGBoost trains on float32 labels and weights: larger values would
	// become infinite there.
	if math.Abs(target) > math.MaxFloat32 {
		return targetRow{}, fieldErr(4, ErrNumber, "target %g is outside float32's range ±%.4g, which training uses", target, math.MaxFloat32)
	}
	if weight > math.MaxFloat32 {
		return targetRow{}, fieldErr(5, ErrNumber, "weight %g is outside float32's range ±%.4g, which training uses", weight, math.MaxFloat32)
	}
	return targetRow{query: int32(q), doc: doc, slot: uint8(slot), target: target, weight: weight}, nil
}

func rowLess(q1, d1 int32, s1 uint8, q2, d2 int32, s2 uint8) bool {
	if q1 != q2 {
		return q1 < q2
	}
	if d1 != d2 {
		return d1 < d2
	}
	return s1 < s2
}

// sortRows sorts the rows by (query, doc, slot) and refuses duplicates,
// naming both lines (and the doc as ds names it).
func (t *Targets) sortRows(name string, lines []int32, ds *Dataset) error {
	idx := make([]int, t.Len())
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		i, j := idx[a], idx[b]
		return rowLess(t.Query[i], t.Doc[i], t.Slot[i], t.Query[j], t.Doc[j], t.Slot[j])
	})
	for k := 1; k < len(idx); k++ {
		i, j := idx[k-1], idx[k]
		if t.Query[i] == t.Query[j] && t.Doc[i] == t.Doc[j] && t.Slot[i] == t.Slot[j] {
			return &ParseError{File: name, Line: int(lines[j]),
				Err: errorf(ErrRow, "row for doc %s, slot %d repeats line %d", ds.DocID(int(t.Query[j]), int(t.Doc[j])), t.Slot[j], lines[i])}
		}
	}
	out := &Targets{Header: t.Header, Slots: t.Slots, Query: make([]int32, len(idx)), Doc: make([]int32, len(idx)),
		Slot: make([]uint8, len(idx)), Target: make([]float64, len(idx)), Weight: make([]float64, len(idx))}
	for k, i := range idx {
		out.Query[k], out.Doc[k], out.Slot[k], out.Target[k], out.Weight[k] = t.Query[i], t.Doc[i], t.Slot[i], t.Target[i], t.Weight[i]
	}
	*t = *out
	return nil
}

// WriteTargets writes t in the targets format: the header (t.Header with
// slots set to t.Slots) and one row per line, in t's row order. Rows are
// formatted in parallel and written in order, so the bytes do not depend on
// the number of cores.
func WriteTargets(w io.Writer, t *Targets, ds *Dataset) error {
	n := t.Len()
	if len(t.Query) != n || len(t.Doc) != n || len(t.Slot) != n || len(t.Weight) != n {
		return fmt.Errorf("targets: columns of different lengths")
	}
	h := withDocIDs(Header(t.Header), ds).Clone()
	h["slots"] = strconv.Itoa(t.Slots)
	if _, err := io.WriteString(w, h.Format(targetsMagic)+"\n"); err != nil {
		return err
	}
	const chunk = 1 << 15
	workers := runtime.GOMAXPROCS(0)
	bufs := make([][]byte, workers)
	for lo := 0; lo < n; lo += chunk * workers {
		var wg sync.WaitGroup
		for k := range workers {
			a := lo + k*chunk
			b := min(a+chunk, n)
			if a >= b {
				bufs[k] = bufs[k][:0]
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				bufs[k] = appendTargetRows(bufs[k][:0], t, ds, a, b)
			}()
		}
		wg.Wait()
		for _, b := range bufs {
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
	}
	return nil
}

func appendTargetRows(b []byte, t *Targets, ds *Dataset, lo, hi int) []byte {
	// A query's rows share one weight: format it once per run of equal weights.
	var wbuf []byte
	lastW := math.NaN()
	for i := lo; i < hi; i++ {
		b = append(b, ds.QIDs[t.Query[i]]...)
		b = append(b, '\t')
		b = ds.AppendDoc(b, int(t.Query[i]), t.Doc[i])
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(t.Slot[i]), 10)
		b = append(b, '\t')
		b = strconv.AppendFloat(b, t.Target[i], 'g', -1, 64)
		b = append(b, '\t')
		if w := t.Weight[i]; w != lastW || math.Signbit(w) != math.Signbit(lastW) {
			wbuf = strconv.AppendFloat(wbuf[:0], w, 'g', -1, 64)
			lastW = w
		}
		b = append(b, wbuf...)
		b = append(b, '\n')
	}
	return b
}

// SaveTargets writes t to path atomically (a reader never sees a partial
// file).
func SaveTargets(path string, t *Targets, ds *Dataset) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := WriteTargets(f, t, ds); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}
