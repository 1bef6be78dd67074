package data

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
)

// DocIDs says how piopt's files (slate logs, targets, policy files, TREC
// runs) name a document of a query.
type DocIDs uint8

const (
	// DocPosition names a document by its 0-based position in its query's
	// block of the dataset file (the default).
	DocPosition DocIDs = iota
	// DocComment names a document by the id in its LETOR line's comment:
	// `#docid = ID`, or else the first word after '#'.
	DocComment
)

// ParseDocIDs reads a --doc-ids mode: "position" or "comment".
func ParseDocIDs(s string) (DocIDs, error) {
	switch s {
	case "position":
		return DocPosition, nil
	case "comment":
		return DocComment, nil
	}
	return 0, fmt.Errorf("document ids %q: want position or comment", s)
}

// String returns the spelling ParseDocIDs reads.
func (m DocIDs) String() string {
	switch m {
	case DocPosition:
		return "position"
	case DocComment:
		return "comment"
	}
	return "DocIDs(" + strconv.Itoa(int(m)) + ")"
}

// docIDs are the ids of a Dataset's documents in DocComment mode: one blob
// and the end of each document's id in it, so that 1.2M documents cost one
// allocation rather than 1.2M strings; and, per query, its positions sorted
// by id, for FindDoc's binary search.
type docIDs struct {
	blob  []byte
	end   []int   // end[i]: end of document i's id (global index) in blob
	order []int32 // [lo:hi] of query q: its positions 0..m-1 sorted by id
}

// id returns the id of document i (global index).
func (x *docIDs) id(i int) []byte {
	lo := 0
	if i > 0 {
		lo = x.end[i-1]
	}
	return x.blob[lo:x.end[i]:x.end[i]]
}

// docIDMode returns how piopt's files name d's documents: DocComment when d
// was read with it (HasDocIDs), else DocPosition.
func (d *Dataset) docIDMode() DocIDs {
	if d.ids != nil {
		return DocComment
	}
	return DocPosition
}

// docIDsKey is the header key of piopt's text files (slate logs, targets,
// policy files) that says their documents are named by comment id:
// `doc-ids=comment`. Files that name documents by position do not carry it.
const docIDsKey = "doc-ids"

// withDocIDs returns the header to write for a file naming ds's documents:
// h with doc-ids=comment when ds has document ids, h without doc-ids
// otherwise. h itself is not changed.
func withDocIDs(h Header, ds *Dataset) Header {
	_, has := h[docIDsKey]
	switch {
	case ds != nil && ds.hasDocIDs():
		if h[docIDsKey] != DocComment.String() {
			h = h.Clone()
			h[docIDsKey] = DocComment.String()
		}
	case has:
		h = h.Clone()
		delete(h, docIDsKey)
	}
	return h
}

// checkHeaderDocIDs refuses a header whose doc-ids= differs from the way ds
// names its documents.
func checkHeaderDocIDs(h Header, ds *Dataset) error {
	v, ok := h[docIDsKey]
	if !ok {
		return nil
	}
	mode, err := ParseDocIDs(v)
	if err != nil {
		return fmt.Errorf("header %s=%q: want position or comment", docIDsKey, shortenString(v))
	}
	if have := ds.docIDMode(); mode != have {
		return fmt.Errorf("header %s=%s: the file names documents by %s, but %s is read with --doc-ids %s", docIDsKey, v, mode.what(), ds.Source, have)
	}
	return nil
}

// what describes how documents are named in mode m, for messages.
func (m DocIDs) what() string {
	if m == DocComment {
		return "their comment ids"
	}
	return "position"
}

// hasDocIDs reports whether d's documents are named by the ids of their
// lines' comments (read with DocComment) rather than by position.
func (d *Dataset) hasDocIDs() bool { return d.ids != nil }

// DocID returns the name of document pos of query q in piopt's files: its
// id in DocComment mode, else its position in decimal.
func (d *Dataset) DocID(q, pos int) string {
	if d.ids == nil {
		return strconv.Itoa(pos)
	}
	return string(d.ids.id(d.QueryOffsets[q] + pos))
}

// AppendDoc appends the name of document pos of query q, as piopt's files
// write it (see DocID), to b.
func (d *Dataset) AppendDoc(b []byte, q int, pos int32) []byte {
	if d.ids == nil {
		return strconv.AppendInt(b, int64(pos), 10)
	}
	return append(b, d.ids.id(d.QueryOffsets[q]+int(pos))...)
}

// findDoc returns the position in query q of the document that tok names:
// in position mode a decimal position below the query's size, in DocComment
// mode an id of the query (a binary search; no allocation). ok is false when
// tok names no document of q.
func (d *Dataset) findDoc(q int, tok []byte) (pos int32, ok bool) {
	lo, hi := d.Query(q)
	if d.ids == nil {
		p, ok := parseDoc(tok)
		if !ok || p >= hi-lo {
			return 0, false
		}
		return int32(p), true
	}
	order := d.ids.order[lo:hi]
	a, b := 0, len(order)
	for a < b {
		m := int(uint(a+b) >> 1)
		if bytes.Compare(d.ids.id(lo+int(order[m])), tok) < 0 {
			a = m + 1
		} else {
			b = m
		}
	}
	if a < len(order) && bytes.Equal(d.ids.id(lo+int(order[a])), tok) {
		return order[a], true
	}
	return 0, false
}

// setDocIDs names d's documents by ids (one per document, in d's order),
// as reading with DocComment does; nil goes back to positions. Each id must
// be non-empty, without spaces, tabs, line ends or ',', and distinct within
// its query.
func (d *Dataset) setDocIDs(ids []string) error {
	if ids == nil {
		d.ids = nil
		return nil
	}
	if len(ids) != d.NumDocs() || len(d.QueryOffsets) != d.NumQueries()+1 {
		return fmt.Errorf("data: %d document ids for %d documents", len(ids), d.NumDocs())
	}
	x := &docIDs{end: make([]int, len(ids)), order: make([]int32, len(ids))}
	n := 0
	for _, s := range ids {
		n += len(s)
	}
	x.blob = make([]byte, 0, n)
	for i, s := range ids {
		if why := badDocID([]byte(s)); why != "" {
			return fmt.Errorf("data: document %d's id %q: %s", i, shortenString(s), why)
		}
		x.blob = append(x.blob, s...)
		x.end[i] = len(x.blob)
	}
	for q := range d.NumQueries() {
		lo, hi := d.Query(q)
		if a, b, dup := x.sortQuery(lo, hi); dup {
			return fmt.Errorf("data: documents %d and %d of query %q have the same id %q", a, b, d.QIDs[q], ids[lo+int(b)])
		}
	}
	d.ids = x
	return nil
}

// sortQuery fills order[lo:hi] with the positions 0..hi-lo-1 of the query
// whose documents are lo..hi-1, sorted by id. dup reports two documents with
// the same id: the first position that repeats an earlier one (b) and the
// earliest position with that id (a).
func (x *docIDs) sortQuery(lo, hi int) (a, b int32, dup bool) {
	order := x.order[lo:hi]
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int {
		if c := bytes.Compare(x.id(lo+int(i)), x.id(lo+int(j))); c != 0 {
			return c
		}
		return int(i - j)
	})
	b = -1
	g := 0 // start of the current group of equal ids
	for k := 1; k <= len(order); k++ {
		if k < len(order) && bytes.Equal(x.id(lo+int(order[k])), x.id(lo+int(order[g]))) {
			continue
		}
		if k-g >= 2 && (b < 0 || order[g+1] < b) {
			a, b = order[g], order[g+1]
		}
		g = k
	}
	return a, b, b >= 0
}

// check checks x against d's shape: one end per document, ends
// increasing within the blob, and each query's order a strictly increasing
// (by id) arrangement of its positions. Used on cache entries.
func (x *docIDs) check(d *Dataset) bool {
	if len(x.end) != d.NumDocs() || len(x.order) != d.NumDocs() {
		return false
	}
	prev := 0
	for _, e := range x.end {
		if e <= prev || e > len(x.blob) {
			return false
		}
		prev = e
	}
	if prev != len(x.blob) {
		return false
	}
	for q := range d.NumQueries() {
		lo, hi := d.Query(q)
		order := x.order[lo:hi]
		for k, p := range order {
			if p < 0 || int(p) >= hi-lo {
				return false
			}
			if k > 0 && bytes.Compare(x.id(lo+int(order[k-1])), x.id(lo+int(p))) >= 0 {
				return false
			}
		}
	}
	return true
}
