package policy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/impute"
)

// readPolicySetup completes ReadSetup for a log whose logging policy is a
// policy file: --policy names it, else the header's policy=, relative to
// the log's folder. The named-policy flags cannot be combined with it.
func readPolicySetup(lr *data.LogReader, f Flags, s Setup, metric string) (Setup, string, error) {
	for _, kv := range []struct {
		set  bool
		name string
	}{{f.LoggingSet, "logging"}, {f.RankBySet, "rank-by"}, {f.CandidatesSet, "candidates"}, {f.CandidatesBySet, "candidates-by"}} {
		if kv.set {
			return Setup{}, "", fmt.Errorf("--%s: the log's policy file gives the logging policy; leave --%s out", kv.name, kv.name)
		}
	}
	path := f.Policy
	if path == "" {
		name := lr.Header()["policy"]
		path = data.PolicyPath(lr.Name(), lr.Header())
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return Setup{}, "", &data.ParseError{File: lr.Name(), Line: 1, Err: data.Errorf(data.ErrHeader, "header policy=%s: no file %s; name the policy file with --policy FILE",
				name, path)}
		}
	}
	pf, err := data.ReadPolicyFile(path, lr.Dataset())
	if err != nil {
		return Setup{}, "", err
	}
	if pf.Slots != s.Slots {
		return Setup{}, "", &data.ParseError{File: pf.Name, Line: 1, Err: data.Errorf(data.ErrHeader, "slots=%d but the log %s has slots=%d",
			pf.Slots, lr.Name(), s.Slots)}
	}
	if err := checkPolicyPair(lr, pf); err != nil {
		return Setup{}, "", err
	}
	s.Policy, s.RankBy, s.CandidatesBy = pf, "", ""
	lr.SetContexts()
	return s, metric, nil
}

// Policies builds the candidates of every unit (the dataset's queries, or
// the policy file's contexts) and the logging policy's Γ cache over them:
// per shape for uniform and pa, per context for a policy file and for
// Plackett–Luce on the rank source's scores. opt trains a feature-subset
// rank source; gopt tunes Γ.
func (s Setup) Policies(ctx context.Context, ds *data.Dataset, opt Options, gopt impute.GammaOptions) (*impute.Candidates, *impute.GammaCache, error) {
	if s.Policy != nil {
		return s.policyFile(ds, gopt)
	}
	if !s.Logging.NeedsScores() {
		c, err := s.Candidates(ctx, ds, opt)
		if err != nil {
			return nil, nil, err
		}
		return c, impute.NewGammaCache(s.Logging, gopt), nil
	}
	scores, c, err := s.rank(ctx, ds, opt)
	if err != nil {
		return nil, nil, err
	}
	dists := make([]*impute.Dist, c.NumQueries())
	var sc []float64
	for q := range dists {
		lo, _ := ds.Query(q)
		sc = sc[:0]
		for _, d := range c.Docs(q) {
			sc = append(sc, scores[lo+int(d)])
		}
		if dists[q], err = s.Logging.ScoredDist(sc, c.Slots(q, s.Slots)); err != nil {
			return nil, nil, s.rankError(fmt.Errorf("query %s: %w", ds.QIDs[q], err))
		}
	}
	return c, impute.NewContextGammas(dists, gopt), nil
}

// policyFile builds the contexts and their distributions of s.Policy.
// Plackett–Luce candidates are put in order of decreasing score (stable),
// so that equal scores form one weight class.
func (s Setup) policyFile(ds *data.Dataset, gopt impute.GammaOptions) (*impute.Candidates, *impute.GammaCache, error) {
	pf := s.Policy
	contexts := make([]impute.Context, len(pf.Entries))
	dists := make([]*impute.Dist, len(pf.Entries))
	for i := range pf.Entries {
		e := &pf.Entries[i]
		docs, scores := EntryOrder(e)
		d, err := entryDist(e, scores, min(pf.Slots, len(docs)))
		if err != nil {
			return nil, nil, &data.ParseError{File: pf.Name, Line: e.Line, Field: 2, Token: e.Spec, Err: data.Errorf(data.ErrPolicy, "%v", err)}
		}
		contexts[i] = impute.Context{Name: e.Context, Query: e.Query, Docs: docs, Dist: d}
		dists[i] = d
	}
	c, err := impute.NewContextCandidates(ds, contexts)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", pf.Name, err)
	}
	return c, impute.NewContextGammas(dists, gopt), nil
}

// EntryOrder returns a policy-file entry's candidates in the order of its
// context's candidate indices (and, for pl, their scores in that order):
// as listed, except Plackett–Luce's, by decreasing score.
func EntryOrder(e *data.PolicyEntry) (docs []int32, scores []float64) {
	if e.Scores == nil {
		return e.Docs, nil
	}
	idx := make([]int, len(e.Docs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return e.Scores[idx[a]] > e.Scores[idx[b]] })
	docs, scores = make([]int32, len(idx)), make([]float64, len(idx))
	for k, i := range idx {
		docs[k], scores[k] = e.Docs[i], e.Scores[i]
	}
	return docs, scores
}

// entryDist is the slate distribution of one policy-file entry over l
// slots, its candidates in EntryOrder.
func entryDist(e *data.PolicyEntry, scores []float64, l int) (*impute.Dist, error) {
	lg, err := impute.ParseLogging(e.Spec)
	if err != nil {
		return nil, err
	}
	switch {
	case lg.NeedsScores():
		if scores == nil {
			return nil, fmt.Errorf("%s needs DOC:SCORE candidates", lg)
		}
		return lg.ScoredDist(scores, l)
	case lg.NeedsSlates():
		return lg.SlateDist(len(e.Docs), l, e.Slates, e.Probs)
	}
	return lg.Dist(len(e.Docs), l)
}

// rank scores and orders every query's documents by the rank source and
// keeps the top Limit as candidates (the top Limit by CandidatesBy, when
// set, in the rank source's order).
func (s Setup) rank(ctx context.Context, ds *data.Dataset, opt Options) ([]float64, *impute.Candidates, error) {
	order, scores, err := s.order(ctx, ds, opt, true)
	if err != nil {
		return nil, nil, err
	}
	c, err := impute.NewCandidates(ds, order, s.Limit)
	if err != nil {
		return nil, nil, s.rankError(err)
	}
	return scores, c, nil
}

// PolicyEntries returns the policy file of the setup's logging policy on
// the candidates c and Γ cache gc (as Policies built them): one context per
// query, named by its qid, so that a log simulated under the setup is read
// back with --policy to the same statistics and targets.
func (s Setup) PolicyEntries(c *impute.Candidates, gc *impute.GammaCache) []data.PolicyEntry {
	out := make([]data.PolicyEntry, c.NumQueries())
	for q := range out {
		out[q] = data.PolicyEntry{Context: c.Name(q), Query: c.Query(q), Spec: s.Logging.String(), Docs: c.Docs(q)}
		if d := gc.Dist(q); d != nil {
			out[q].Scores = d.Scores()
		}
	}
	return out
}
