package impute

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"

	"github.com/piopt/piopt/data"
)

// Candidates are the documents each query's slates are drawn from, A(x), in
// rank order (best first): candidate index i of a query is its document of
// rank i+1. With a limit M only each query's first M documents are
// candidates, as in the paper's evaluation experiment.
//
// With a policy file the units are contexts instead (NewContextCandidates):
// a context is a query at some time or impression (`QID@TAG`), with its own
// candidates in the order its policy lists them; everything indexed by
// "query q" below is then indexed by context.
type Candidates struct {
	ds      *data.Dataset
	limit   int     // per-query candidate limit (0: all documents)
	offsets []int   // query q's candidates are docs[offsets[q]:offsets[q+1]]
	docs    []int32 // document positions inside the query
	labels  []uint8 // labels of the candidates, in candidate order
	index   []int32 // per dataset document (global): candidate index, or −1

	// Contexts (nil for one unit per dataset query): the dataset query and
	// name of every context, and per context its candidates' document
	// positions sorted (byDoc) with their candidate indices (byDocIdx), for
	// lookups in O(log m).
	query    []int32
	names    []string
	byName   map[string]int
	byDoc    []int32
	byDocIdx []int32
	dists    []*Dist // per context, or nil
}

// Context is one context of a policy file: a dataset query at some time or
// impression, with its candidates.
type Context struct {
	Name  string  // QID or QID@TAG
	Query int     // index of the query in the dataset
	Docs  []int32 // candidate document positions, in the policy's order
	// Dist, when not nil, is the context's logging distribution: a logged
	// slate it gives probability 0 is refused (ReadLog).
	Dist *Dist
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

// NewContextCandidates builds the candidates of every context. Names must
// be distinct; a context's documents must be distinct positions of its
// query.
func NewContextCandidates(ds *data.Dataset, contexts []Context) (*Candidates, error) {
	n := len(contexts)
	c := &Candidates{ds: ds, offsets: make([]int, n+1), query: make([]int32, n), names: make([]string, n),
		byName: make(map[string]int, n)}
	for q, x := range contexts {
		if x.Query < 0 || x.Query >= ds.NumQueries() {
			return nil, fmt.Errorf("impute: context %q: query %d out of range", x.Name, x.Query)
		}
		if _, dup := c.byName[x.Name]; dup {
			return nil, fmt.Errorf("impute: context %q given twice", x.Name)
		}
		c.byName[x.Name] = q
		c.query[q], c.names[q] = int32(x.Query), x.Name
		if x.Dist != nil {
			if c.dists == nil {
				c.dists = make([]*Dist, n)
			}
			c.dists[q] = x.Dist
		}
		c.offsets[q+1] = c.offsets[q] + len(x.Docs)
	}
	total := c.offsets[n]
	c.docs, c.labels = make([]int32, total), make([]uint8, total)
	c.byDoc, c.byDocIdx = make([]int32, total), make([]int32, total)
	for q, x := range contexts {
		lo, hi := ds.Query(x.Query)
		off := c.offsets[q]
		for i, d := range x.Docs {
			if d < 0 || int(d) >= hi-lo {
				return nil, fmt.Errorf("impute: context %q names document %d of %d", x.Name, d, hi-lo)
			}
			c.docs[off+i], c.labels[off+i] = d, ds.Labels[lo+int(d)]
			c.byDocIdx[off+i] = int32(i)
		}
		idx := c.byDocIdx[off : off+len(x.Docs)]
		sort.Slice(idx, func(i, j int) bool { return x.Docs[idx[i]] < x.Docs[idx[j]] })
		for i, a := range idx {
			c.byDoc[off+i] = x.Docs[a]
			if i > 0 && c.byDoc[off+i] == c.byDoc[off+i-1] {
				return nil, fmt.Errorf("impute: context %q repeats document %d", x.Name, x.Docs[a])
			}
		}
	}
	return c, nil
}

// PerContext reports whether the units are a policy file's contexts rather
// than the dataset's queries.
func (c *Candidates) PerContext() bool { return c.query != nil }

// Query returns the dataset query of unit q (q itself without contexts).
func (c *Candidates) Query(q int) int {
	if c.query == nil {
		return q
	}
	return int(c.query[q])
}

// Name returns the name of unit q: its context (QID or QID@TAG), or its
// query's qid.
func (c *Candidates) Name(q int) string {
	if c.names == nil {
		return c.ds.QIDs[q]
	}
	return c.names[q]
}

// lookup returns the context named name (a byte slice so that the log
// reader's lookups do not allocate), reporting false when there is none.
func (c *Candidates) lookup(name []byte) (int, bool) {
	q, ok := c.byName[string(name)]
	return q, ok
}

// Dataset returns the dataset the candidates belong to.
func (c *Candidates) Dataset() *data.Dataset { return c.ds }

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
	if c.query != nil {
		docs := c.byDoc[c.offsets[q]:c.offsets[q+1]]
		i, ok := slices.BinarySearch(docs, doc)
		if !ok {
			return -1
		}
		return int(c.byDocIdx[c.offsets[q]+i])
	}
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
// every document is one of the query's candidates, and, in a log piopt
// simulated (seed= and samples= in its header), that each reward is the
// header's metric of its slate under the candidates' labels (rewardCheck).
// It calls add with the
// query, the slate in candidate indices (reused between calls) and the
// reward. Errors name the log's file, line and field. progress, when not
// nil, is called with 1 after every record.
func (c *Candidates) ReadLog(ctx context.Context, lr *data.LogReader, slots int, progress func(n int64), add func(q int, s []int32, r float64)) error {
	slate := make([]int32, 0, slots)
	rc := c.newRewardCheck(lr.Header(), slots)
	done := ctx.Done()
	for n := 0; ; n++ {
		if n&stopEvery == 0 && stopped(done) {
			return ctx.Err()
		}
		rec, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		q := rec.Query
		unit := "query"
		if c.query != nil {
			var ok bool
			if q, ok = c.lookup(rec.Context); !ok {
				return lr.Errorf(1, "context %q is not in the policy file", rec.Context)
			}
			unit = "context"
		}
		if want := c.Slots(q, slots); len(rec.Slate) != want {
			return lr.Errorf(2, "%d documents; %s %q has %d candidates, so its slates have %d slots",
				len(rec.Slate), unit, c.Name(q), c.Size(q), want)
		}
		var ok bool
		if slate, ok = c.toIndices(q, rec.Slate, slate); !ok {
			j := len(slate)
			return lr.Errorf(2, "slot %d: document %s of %s %q is not one of its %d candidates",
				j+1, c.ds.DocID(c.Query(q), int(rec.Slate[j])), unit, c.Name(q), c.Size(q))
		}
		if c.dists != nil && c.dists[q] != nil && !c.dists[q].FullSupport() && c.dists[q].Prob(slate) == 0 {
			return lr.Errorf(2, "the slate has probability 0 under context %q's policy (%s): it cannot have been logged by it",
				c.Name(q), c.dists[q].Logging())
		}
		if rc != nil {
			if err := rc.check(lr, q, slate, rec.Reward); err != nil {
				return err
			}
		}
		add(q, slate, rec.Reward)
		if progress != nil {
			progress(1)
		}
	}
}

// toIndices converts a slate of document positions of query q into
// candidate indices in dst (resized), reporting false when a document is out
// of range or not a candidate.
func (c *Candidates) toIndices(q int, docs []int32, dst []int32) ([]int32, bool) {
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
