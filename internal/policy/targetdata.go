package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/ope"
)

// Targets given as data rather than as a ranker piopt scores: a policy
// file per context (--target-policy FILE, spelt policy:FILE), a scores file
// (--target-scores FILE, scores:FILE) and a TREC run (run:FILE). They read
// no feature, so they need no dataset beyond the documents' names.
const (
	PolicyTargetKind = "policy"
	ScoresTargetKind = "scores"
	RunTargetKind    = "run"
	// RowTargetKind is the target a log with a policy per row gives in
	// its rows' target objects (--target row).
	RowTargetKind = "row"
)

// TargetKinds lists every spelling of a target, for messages.
const TargetKinds = "feature:K, model:PATH, tree:SUBSET[@DEPTH], lasso:SUBSET[@L1], run:FILE, row (the targets of a log with a policy per row), or --target-policy FILE or --target-scores FILE"

// DataTarget reports whether spec is a target given as data, and its file.
func DataTarget(spec string) (kind, path string, ok bool) {
	if spec == RowTargetKind {
		return RowTargetKind, "", true
	}
	kind, path, ok = strings.Cut(spec, ":")
	switch kind {
	case PolicyTargetKind, ScoresTargetKind, RunTargetKind:
		return kind, path, ok && path != ""
	}
	return "", "", false
}

// dataTarget builds the target of a spec DataTarget accepts on the
// candidates c.
func dataTarget(spec, kind, path string, c *impute.Candidates, slots int, gopt impute.GammaOptions) (*ope.Target, error) {
	ds := c.Dataset()
	switch kind {
	case PolicyTargetKind:
		pf, err := data.ReadTargetPolicyFile(path, ds)
		if err != nil {
			return nil, err
		}
		return policyTarget(spec, pf, c, slots, gopt)
	case ScoresTargetKind:
		td, err := data.ReadTargetScores(path, ds)
		if err != nil {
			return nil, err
		}
		return scoresTarget(spec, td, c, slots)
	}
	td, err := data.ReadRun(path, ds)
	if err != nil {
		return nil, err
	}
	return runTarget(spec, td, c, slots)
}

// noLine is the error of a context the target file does not give.
func noLine(file, what string, c *impute.Candidates, q int) error {
	name := c.Name(q)
	qid, _, tagged := strings.Cut(name, "@")
	if tagged {
		return fmt.Errorf("%s: no %s for context %q nor for its qid %s", file, what, name, qid)
	}
	return fmt.Errorf("%s: no %s for context %q", file, what, name)
}

// scoresTarget shows each context's top ℓ_x candidates by the file's
// scores, ties by document name (bytewise).
func scoresTarget(spec string, td *data.TargetData, c *impute.Candidates, slots int) (*ope.Target, error) {
	ds := c.Dataset()
	slates := make([][]int32, c.NumQueries())
	for q := range slates {
		l := td.Lookup(c.Name(q))
		if l == nil {
			return nil, noLine(td.Name, "scores", c, q)
		}
		docs := c.Docs(q)
		score := make([]float64, len(docs))
		for a, d := range docs {
			i := slices.Index(l.Docs, d)
			if i < 0 {
				return nil, &data.ParseError{File: td.Name, Line: l.Line, Err: fmt.Errorf("context %q: candidate %q has no score", c.Name(q), ds.DocID(c.Query(q), int(d)))}
			}
			score[a] = l.Scores[i]
		}
		idx := make([]int32, len(docs))
		for a := range idx {
			idx[a] = int32(a)
		}
		slices.SortStableFunc(idx, func(a, b int32) int {
			if score[a] != score[b] {
				if score[a] > score[b] {
					return -1
				}
				return 1
			}
			return strings.Compare(ds.DocID(c.Query(q), int(docs[a])), ds.DocID(c.Query(q), int(docs[b])))
		})
		slates[q] = idx[:c.Slots(q, slots)]
	}
	return ope.NewSlateTarget(spec, c, slots, func(q int) []int32 { return slates[q] })
}

// runTarget shows each context's first ℓ_x documents of the run, in rank
// order; a document that is not a candidate is ope.Unseen, as is a slot
// past the run's last document.
func runTarget(spec string, td *data.TargetData, c *impute.Candidates, slots int) (*ope.Target, error) {
	slates := make([][]int32, c.NumQueries())
	for q := range slates {
		l := td.Lookup(c.Name(q))
		if l == nil {
			return nil, noLine(td.Name, "ranking", c, q)
		}
		s := make([]int32, c.Slots(q, slots))
		for j := range s {
			s[j] = ope.Unseen
			if j < len(l.Docs) {
				s[j] = candidateIndex(c, q, l.Docs[j])
			}
		}
		slates[q] = s
	}
	return ope.NewSlateTarget(spec, c, slots, func(q int) []int32 { return slates[q] })
}

// candidateIndex is doc's candidate index on unit q, ope.Unseen when doc
// is not a candidate (or not a document of the dataset, doc < 0).
func candidateIndex(c *impute.Candidates, q int, doc int32) int32 {
	if doc < 0 {
		return ope.Unseen
	}
	if a := c.Index(q, doc); a >= 0 {
		return int32(a)
	}
	return ope.Unseen
}
