package impute

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/piopt/piopt/data"
)

// Candidates are the documents each query's slates are drawn from, A(x), in
// rank order (best first): candidate index i of a query is its document of
// rank i+1. With a limit M only each query's first M documents are
// candidates, as in the paper's evaluation experiment.
type Candidates struct {
	ds      *data.Dataset
	limit   int
	offsets []int   // query q's candidates are docs[offsets[q]:offsets[q+1]]
	docs    []int32 // document positions inside the query
	labels  []uint8 // labels of the candidates, in candidate order
	index   []int32 // per dataset document (global): candidate index, or −1
}

// NewCandidates builds the candidates of every query of ds. order is the
// per-query document order of a rank source, flattened like ds's documents
// (ranker.Order's result), or nil for document-position order. limit > 0
// keeps each query's first limit documents of that order; 0 keeps all.
func NewCandidates(ds *data.Dataset, order []int32, limit int) (*Candidates, error) {
	if limit < 0 {
		return nil, fmt.Errorf("impute: candidate limit %d < 0", limit)
	}
	if order != nil && len(order) != ds.NumDocs() {
		return nil, fmt.Errorf("impute: rank order has %d entries for %d documents", len(order), ds.NumDocs())
	}
	nq := ds.NumQueries()
	c := &Candidates{ds: ds, limit: limit, offsets: make([]int, nq+1), index: make([]int32, ds.NumDocs())}
	for i := range c.index {
		c.index[i] = -1
	}
	for q := range nq {
		m := ds.QuerySize(q)
		if limit > 0 {
			m = min(m, limit)
		}
		c.offsets[q+1] = c.offsets[q] + m
	}
	c.docs = make([]int32, c.offsets[nq])
	c.labels = make([]uint8, c.offsets[nq])
	for q := range nq {
		lo, hi := ds.Query(q)
		out := c.docs[c.offsets[q]:c.offsets[q+1]]
		for i := range out {
			d := int32(i)
			if order != nil {
				d = order[lo+i]
				if d < 0 || int(d) >= hi-lo {
					return nil, fmt.Errorf("impute: rank order of query %q names document %d of %d", ds.QIDs[q], d, hi-lo)
				}
				if c.index[lo+int(d)] >= 0 {
					return nil, fmt.Errorf("impute: rank order of query %q repeats document %d", ds.QIDs[q], d)
				}
			}
			out[i] = d
			c.index[lo+int(d)] = int32(i)
			c.labels[c.offsets[q]+i] = ds.Labels[lo+int(d)]
		}
	}
	return c, nil
}

// Dataset returns the dataset the candidates belong to.
func (c *Candidates) Dataset() *data.Dataset { return c.ds }

// Limit returns the per-query candidate limit (0: all documents).
func (c *Candidates) Limit() int { return c.limit }

// NumQueries returns the number of queries.
func (c *Candidates) NumQueries() int { return len(c.offsets) - 1 }

// Size returns m_x, the number of candidates of query q.
func (c *Candidates) Size(q int) int { return c.offsets[q+1] - c.offsets[q] }

// Docs returns query q's candidates as document positions, best first (a
// sub-slice, not a copy).
func (c *Candidates) Docs(q int) []int32 {
	return c.docs[c.offsets[q]:c.offsets[q+1]:c.offsets[q+1]]
}

// Index returns the candidate index of document position doc of query q, or
// −1 when doc is out of range or not a candidate.
func (c *Candidates) Index(q int, doc int32) int {
	lo, hi := c.ds.Query(q)
	if doc < 0 || int(doc) >= hi-lo {
		return -1
	}
	return int(c.index[lo+int(doc)])
}

// Labels returns the candidates' labels in candidate order, all queries
// flattened; with Offsets it describes a dataset whose queries are the
// candidate sets, so that eval.NewScorer(metric, c.Labels(), c.Offsets())
// scores slates of candidate indices with DCG* taken over A(x).
func (c *Candidates) Labels() []uint8 { return c.labels }

// Offsets returns the per-query offsets into Labels (length NumQueries()+1).
func (c *Candidates) Offsets() []int { return c.offsets }

// Slots returns ℓ_x = min(ℓ, m_x), the slate length of query q for ℓ slots.
func (c *Candidates) Slots(q, l int) int { return min(l, c.Size(q)) }

// ReadLog reads every record of a slate log for ℓ = slots, checking what
// the reader cannot know: that the slate has exactly ℓ_x slots and that
// every document is one of the query's candidates. It calls add with the
// query, the slate in candidate indices (reused between calls) and the
// reward. Errors name the log's file, line and field. progress, when not
// nil, is called with 1 after every record.
func (c *Candidates) ReadLog(ctx context.Context, lr *data.LogReader, slots int, progress func(n int64), add func(q int, s []int32, r float64)) error {
	slate := make([]int32, 0, slots)
	for n := 0; ; n++ {
		if n&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rec, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		q := rec.Query
		if want := c.Slots(q, slots); len(rec.Slate) != want {
			return lr.Errorf(2, "%d documents; query %q has %d candidates, so its slates have %d slots",
				len(rec.Slate), c.ds.QIDs[q], c.Size(q), want)
		}
		var ok bool
		if slate, ok = c.ToIndices(q, rec.Slate, slate); !ok {
			j := len(slate)
			return lr.Errorf(2, "slot %d: document %d of query %q is not one of its %d candidates",
				j+1, rec.Slate[j], c.ds.QIDs[q], c.Size(q))
		}
		add(q, slate, rec.Reward)
		if progress != nil {
			progress(1)
		}
	}
}

// ToIndices converts a slate of document positions of query q into
// candidate indices in dst (resized), reporting false when a document is out
// of range or not a candidate.
func (c *Candidates) ToIndices(q int, docs []int32, dst []int32) ([]int32, bool) {
	dst = dst[:0]
	for _, d := range docs {
		a := c.Index(q, d)
		if a < 0 {
			return dst, false
		}
		dst = append(dst, int32(a))
	}
	return dst, true
}
