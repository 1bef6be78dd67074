package data

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// TargetList is what a target file gives for one context: documents with
// scores (a scores file) or in rank order (a TREC run).
type TargetList struct {
	Context string // QID or QID@TAG, as written
	Query   int    // index of QID in the dataset
	Line    int    // the context's first line in the file
	// Docs are the documents as positions of the query; a document the
	// dataset's query does not hold is negative, -(k+1) for Names[k].
	Docs   []int32
	Scores []float64 // parallel to Docs (scores file; a run's score column)
	Names  []string  // names of the documents the dataset does not hold
}

// TargetData are the per-context lists of a target file, by context.
type TargetData struct {
	Name     string
	Contexts map[string]*TargetList
	// Unused counts the lines whose qid the dataset does not hold (a run
	// over more queries than the log): they cannot be needed.
	Unused int
}

// Lookup returns the list of context (QID@TAG), or, when it has none of
// its own, its QID's.
func (t *TargetData) Lookup(context string) *TargetList {
	if l, ok := t.Contexts[context]; ok {
		return l
	}
	qid, _, _ := strings.Cut(context, "@")
	return t.Contexts[qid]
}

// ReadTargetScores reads a target scores file: one line per (context,
// document), `context<TAB>doc<TAB>score`, context QID or QID@TAG, documents
// named as ds names them, `#` lines skipped. A document the query does not
// hold is kept by name (it cannot be a candidate); a qid the dataset does
// not hold is counted in Unused. Every error names file, line and field.
func ReadTargetScores(path string, ds *Dataset) (*TargetData, error) {
	r, c, err := openSlateFile(path)
	if err != nil {
		return nil, fmt.Errorf("open target scores: %w", err)
	}
	defer c.Close()
	return readTargetScores(r, path, ds)
}

func readTargetScores(r io.Reader, name string, ds *Dataset) (*TargetData, error) {
	lr := newLineReader(r, name)
	td := &TargetData{Name: name, Contexts: map[string]*TargetList{}}
	qids := qidIndex(ds)
	seen := map[string]map[string]int{} // context → doc name → line
	var f [3][]byte
	err := lr.eachRow(f[:], "context, doc, score", func() error {
		ctx, doc := string(bytes.TrimSpace(f[0])), bytes.TrimSpace(f[1])
		s, ok := parseFinite(bytes.TrimSpace(f[2]))
		if !ok {
			return lr.fieldErr(3, f[2], ErrNumber, "score is not a finite number")
		}
		if why := badDocID(doc); why != "" {
			return lr.fieldErr(2, f[1], ErrSlate, "%s", why)
		}
		l, ok := td.list(lr, ctx, qids)
		if !ok {
			return nil
		}
		if seen[ctx] == nil {
			seen[ctx] = map[string]int{}
		}
		if prev, dup := seen[ctx][string(doc)]; dup {
			return lr.fieldErr(2, f[1], ErrSlate, "document %q of context %q is scored again (first on line %d)", shorten(doc), shortenString(ctx), prev)
		}
		seen[ctx][string(doc)] = lr.line
		l.add(ds, doc, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(td.Contexts) == 0 {
		return nil, lr.fileErr(ErrRow, "no line names a query of %s", ds.Source)
	}
	return td, nil
}

// list returns the list of context, made on its first line; ok is false
// (and the line counted as unused) when the dataset does not hold its qid.
func (td *TargetData) list(lr *lineReader, ctx string, qids map[string]int) (*TargetList, bool) {
	if l, ok := td.Contexts[ctx]; ok {
		return l, true
	}
	qid, _, _ := strings.Cut(ctx, "@")
	q, ok := qids[qid]
	if !ok {
		td.Unused++
		return nil, false
	}
	l := &TargetList{Context: ctx, Query: q, Line: lr.line}
	td.Contexts[ctx] = l
	return l, true
}

// add appends a document (by its name in ds) and its score.
func (l *TargetList) add(ds *Dataset, doc []byte, score float64) {
	d, ok := ds.findDoc(l.Query, doc)
	if !ok {
		l.Names = append(l.Names, string(doc))
		d = -int32(len(l.Names))
	}
	l.Docs = append(l.Docs, d)
	l.Scores = append(l.Scores, score)
}

// DocName returns the name of l's i-th document in ds's files.
func (l *TargetList) DocName(ds *Dataset, i int) string {
	if d := l.Docs[i]; d < 0 {
		return l.Names[-d-1]
	}
	return ds.DocID(l.Query, int(l.Docs[i]))
}

// ReadRun reads a TREC run, `qid Q0 doc rank score tag` per line (fields
// separated by white space; `#` lines skipped), as piopt rank --out writes
// it, into each qid's documents in rank order: by the rank column, equal
// ranks by decreasing score, then by document name (bytewise). The qid
// field may also be a context QID@TAG. Documents the query does not hold
// are kept by name; qids the dataset does not hold are counted in Unused.
func ReadRun(path string, ds *Dataset) (*TargetData, error) {
	r, c, err := openSlateFile(path)
	if err != nil {
		return nil, fmt.Errorf("open run: %w", err)
	}
	defer c.Close()
	return readRun(r, path, ds)
}

func readRun(r io.Reader, name string, ds *Dataset) (*TargetData, error) {
	lr := newLineReader(r, name)
	td := &TargetData{Name: name, Contexts: map[string]*TargetList{}}
	qids := qidIndex(ds)
	ranks := map[*TargetList][]int64{}
	seen := map[string]int{}
	err := lr.eachRecord(func(line []byte) error {
		f := bytes.Fields(line)
		if len(f) != 6 {
			return lr.lineErr(ErrRow, "%d fields, want 6 (qid Q0 doc rank score tag)", len(f))
		}
		rank, err := strconv.ParseInt(string(f[3]), 10, 64)
		if err != nil {
			return lr.fieldErr(4, f[3], ErrNumber, "rank is not an integer")
		}
		s, ok := parseFinite(f[4])
		if !ok {
			return lr.fieldErr(5, f[4], ErrNumber, "score is not a finite number")
		}
		if why := badDocID(f[2]); why != "" {
			return lr.fieldErr(3, f[2], ErrSlate, "%s", why)
		}
		ctx := string(f[0])
		key := ctx + "\t" + string(f[2])
		if prev, dup := seen[key]; dup {
			return lr.fieldErr(3, f[2], ErrSlate, "document %q of qid %q is ranked again (first on line %d)", shorten(f[2]), shortenString(ctx), prev)
		}
		seen[key] = lr.line
		if l, ok := td.list(lr, ctx, qids); ok {
			l.add(ds, f[2], s)
			ranks[l] = append(ranks[l], rank)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(td.Contexts) == 0 {
		return nil, lr.fileErr(ErrRow, "no line names a query of %s", ds.Source)
	}
	for l, rk := range ranks {
		l.sortByRank(ds, rk)
	}
	return td, nil
}

// sortByRank orders l's documents by rank, then decreasing score, then
// name.
func (l *TargetList) sortByRank(ds *Dataset, rank []int64) {
	idx := make([]int, len(l.Docs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if c := cmp.Compare(rank[a], rank[b]); c != 0 {
			return c
		}
		if c := cmp.Compare(l.Scores[b], l.Scores[a]); c != 0 {
			return c
		}
		return strings.Compare(l.DocName(ds, a), l.DocName(ds, b))
	})
	docs, scores := make([]int32, len(idx)), make([]float64, len(idx))
	for k, i := range idx {
		docs[k], scores[k] = l.Docs[i], l.Scores[i]
	}
	l.Docs, l.Scores = docs, scores
}
