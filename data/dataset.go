package data

import "fmt"

// Dataset holds a learning-to-rank file in flat slices.
//
// Features is row-major with NumFeatures columns per document: feature
// index i (1-based in the file) is column i-1. Query q owns the documents
// QueryOffsets[q] .. QueryOffsets[q+1]-1.
//
// piopt's files name a document by its 0-based position in its query, or,
// for a dataset read with DocComment (--doc-ids comment), by the id in its
// line's comment: see DocID, AppendDoc and FindDoc. A Dataset made from
// another (a subset, a copy) must carry the ids along with SetDocIDs.
type Dataset struct {
	Features     []float32
	NumFeatures  int
	Labels       []uint8
	QueryOffsets []int // len NumQueries()+1, QueryOffsets[0] == 0
	QIDs         []string
	Source       string // file name the data came from, for messages

	ids *docIDs // DocComment mode; nil: documents are named by position
	// namesOnly: no LETOR file was read; the documents are the names a
	// policy file gives (DocNamesFromPolicyFile).
	namesOnly bool
}

// NumQueries returns the number of queries.
func (d *Dataset) NumQueries() int { return len(d.QIDs) }

// NumDocs returns the number of documents over all queries.
func (d *Dataset) NumDocs() int { return len(d.Labels) }

// Query returns the half-open document range [lo, hi) of query q.
func (d *Dataset) Query(q int) (lo, hi int) { return d.QueryOffsets[q], d.QueryOffsets[q+1] }

// QuerySize returns the number of documents of query q.
func (d *Dataset) QuerySize(q int) int { return d.QueryOffsets[q+1] - d.QueryOffsets[q] }

// QueryLabels returns the labels of query q's documents (a sub-slice, not a copy).
func (d *Dataset) QueryLabels(q int) []uint8 {
	lo, hi := d.Query(q)
	return d.Labels[lo:hi:hi]
}

// Row returns the feature vector of document doc (global index; a sub-slice).
func (d *Dataset) Row(doc int) []float32 {
	f := d.NumFeatures
	return d.Features[doc*f : (doc+1)*f : (doc+1)*f]
}

// MaxLabel returns the highest grade present, or 0 for an empty dataset.
func (d *Dataset) MaxLabel() int {
	m := 0
	for _, l := range d.Labels {
		if int(l) > m {
			m = int(l)
		}
	}
	return m
}

// MaxQuerySize returns the largest number of documents of any query.
func (d *Dataset) MaxQuerySize() int {
	m := 0
	for q := range d.QIDs {
		if s := d.QuerySize(q); s > m {
			m = s
		}
	}
	return m
}

// Validate checks the internal consistency of d: slice lengths and offsets.
func (d *Dataset) Validate() error {
	if len(d.QueryOffsets) != len(d.QIDs)+1 {
		return fmt.Errorf("data: %d query offsets for %d queries", len(d.QueryOffsets), len(d.QIDs))
	}
	if d.QueryOffsets[0] != 0 || d.QueryOffsets[len(d.QIDs)] != len(d.Labels) {
		return fmt.Errorf("data: query offsets do not span the %d documents", len(d.Labels))
	}
	for q := range d.QIDs {
		if d.QueryOffsets[q+1] <= d.QueryOffsets[q] {
			return fmt.Errorf("data: query %q has no documents", d.QIDs[q])
		}
	}
	if len(d.Features) != len(d.Labels)*d.NumFeatures {
		return fmt.Errorf("data: %d feature values for %d documents × %d features", len(d.Features), len(d.Labels), d.NumFeatures)
	}
	if d.ids != nil && (len(d.ids.end) != len(d.Labels) || len(d.ids.order) != len(d.Labels)) {
		return fmt.Errorf("data: %d document ids for %d documents", len(d.ids.end), len(d.Labels))
	}
	return nil
}
