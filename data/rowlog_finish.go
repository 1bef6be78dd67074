package data

import (
	"fmt"
	"sort"
)

// sortUnits puts the units in the order of their names (bytewise), so
// that their order, which sums over units follow, does not depend on the
// order of the rows: a policy file listing its contexts sorted gives the
// same bits.
func (s *rowScan) sortUnits() {
	e := s.rl.Policy.Entries
	order := make([]int32, len(e))
	for i := range order {
		order[i] = int32(i)
	}
	sort.Slice(order, func(a, b int) bool { return e[order[a]].Context < e[order[b]].Context })
	perm := make([]int32, len(e))
	sorted := make([]PolicyEntry, len(e))
	for k, i := range order {
		perm[i] = int32(k)
		sorted[k] = e[i]
	}
	s.rl.Policy.Entries = sorted
	for i, u := range s.rl.unit {
		s.rl.unit[i] = perm[u]
	}
}

// finish settles the slots and the dataset, fills the units of rows
// without a policy from the policy file, and resolves the row targets'
// documents.
func (s *rowScan) finish() (*RowLog, error) {
	rl := s.rl
	rl.Dataset = s.opt.Data
	if rl.Dataset == nil {
		var err error
		if rl.Dataset, err = s.names.dataset(rl.Path); err != nil {
			return nil, err
		}
	}
	rl.Slots = s.opt.Slots
	if s.opt.PolicyFile != "" {
		pf, err := ReadPolicyFile(s.opt.PolicyFile, rl.Dataset)
		if err != nil {
			return nil, err
		}
		if rl.Slots == 0 {
			rl.Slots = pf.Slots
		}
		if pf.Slots != rl.Slots {
			return nil, &ParseError{File: pf.Name, Line: 1, Err: errorf(ErrHeader, "slots=%d but --slots %d", pf.Slots, rl.Slots)}
		}
		if err := s.fromFile(pf); err != nil {
			return nil, err
		}
	}
	if rl.Slots == 0 {
		rl.Slots = min(s.maxLen, MaxSlots)
	}
	if s.maxLen > rl.Slots {
		return nil, &ParseError{File: rl.Path, Err: errorf(ErrSlate, "a slate of %d documents, longer than --slots %d", s.maxLen, rl.Slots)}
	}
	rl.Policy.Slots = rl.Slots
	s.sortUnits()
	for i := range rl.Policy.Entries {
		if err := checkEntrySlates(rl.Path, "policy", &rl.Policy.Entries[i], rl.Slots); err != nil {
			return nil, err
		}
	}
	if rl.Target != nil {
		rl.Target.Slots = rl.Slots
		if err := s.targets(); err != nil {
			return nil, err
		}
	}
	return rl, nil
}

// fromFile gives the units of rows without a policy their context's
// entry of the policy file pf.
func (s *rowScan) fromFile(pf *PolicyFile) error {
	byCtx := make(map[string]int, len(pf.Entries))
	for i := range pf.Entries {
		byCtx[pf.Entries[i].Context] = i
	}
	for _, u := range s.noPol {
		i, ok := byCtx[u.context]
		if !ok {
			return &ParseError{File: s.rl.Path, Line: int(u.line), Name: "policy",
				Err: errorf(ErrPolicy, "missing, and context %q has no line in the policy file %s", shortenString(u.context), pf.Name)}
		}
		e := &s.rl.Policy.Entries[u.unit]
		f := pf.Entries[i]
		e.Spec, e.Docs, e.Scores, e.Slates, e.Probs = f.Spec, f.Docs, f.Scores, f.Slates, f.Probs
	}
	return nil
}

// checkEntrySlates checks that an explicit slate distribution's slates
// have min(slots, candidates) documents, as its Γ needs.
func checkEntrySlates(file, name string, e *PolicyEntry, slots int) error {
	if len(e.Probs) == 0 {
		return nil
	}
	l, want := len(e.Slates)/len(e.Probs), min(slots, len(e.Docs))
	if l != want {
		return &ParseError{File: file, Line: e.Line, Name: name + ".slates",
			Err: errorf(ErrSlate, "slates of %d documents; with slots=%d and %d candidates a slate has %d", l, slots, len(e.Docs), want)}
	}
	return nil
}

// targets resolves the row targets' documents on the dataset: a document
// the unit's query does not hold is kept by name (PolicyEntry.Names), as
// in a target policy file.
func (s *rowScan) targets() error {
	ds := s.rl.Dataset
	for i := range s.rl.Target.Entries {
		e := &s.rl.Target.Entries[i]
		names := s.tnames[i]
		code := func(name string) int32 {
			if d, ok := ds.findDoc(e.Query, []byte(name)); ok {
				return d
			}
			for k, n := range e.Names {
				if n == name {
					return -int32(k + 1)
				}
			}
			e.Names = append(e.Names, name)
			return -int32(len(e.Names))
		}
		for _, n := range names {
			e.Docs = append(e.Docs, code(n))
		}
		for _, sl := range s.tslates[i] {
			for _, d := range sl {
				e.Slates = append(e.Slates, int32(indexString(names, d)))
			}
		}
		if len(s.tslates[i]) > 0 {
			for k, sl := range s.tslates[i] {
				if len(sl) != len(s.tslates[i][0]) {
					return &ParseError{File: s.rl.Path, Line: e.Line, Name: elem("target.slates", k),
						Err: errorf(ErrSlate, "%d documents, but slates[0] has %d", len(sl), len(s.tslates[i][0]))}
				}
			}
			if err := checkEntrySlates(s.rl.Path, "target", e, s.rl.Slots); err != nil {
				return err
			}
		}
	}
	s.tnames, s.tslates = nil, nil
	return nil
}

// docNames resolves the qids and document names rows use: on a given
// dataset, or, without one, by giving every new name the next position of
// its query (in order of first appearance), for a dataset of names only.
type docNames struct {
	ds    *Dataset
	qids  map[string]int
	list  []string           // names only: the qids in order
	docs  []map[string]int32 // names only: per query, name → position
	names [][]string         // names only: per query, the names in order
}

func newDocNames(ds *Dataset) *docNames {
	if ds != nil {
		return &docNames{ds: ds, qids: qidIndex(ds)}
	}
	return &docNames{qids: map[string]int{}}
}

// query returns the query of qid (a new one on names only).
func (n *docNames) query(qid string) (int, bool) {
	q, ok := n.qids[qid]
	if ok || n.ds != nil {
		return q, ok
	}
	q = len(n.list)
	n.qids[qid] = q
	n.list = append(n.list, qid)
	n.docs = append(n.docs, map[string]int32{})
	n.names = append(n.names, nil)
	return q, true
}

// doc returns the position of document name in query q (a new one on
// names only).
func (n *docNames) doc(q int, name string) (int32, bool) {
	if n.ds != nil {
		return n.ds.findDoc(q, []byte(name))
	}
	d, ok := n.docs[q][name]
	if !ok {
		d = int32(len(n.names[q]))
		n.docs[q][name] = d
		n.names[q] = append(n.names[q], name)
	}
	return d, true
}

// dataset is the dataset of names only the rows named (source: the log).
func (n *docNames) dataset(source string) (*Dataset, error) {
	ds := &Dataset{QIDs: n.list, QueryOffsets: []int{0}, Source: source, namesOnly: true}
	var ids []string
	for q := range n.list {
		ids = append(ids, n.names[q]...)
		ds.QueryOffsets = append(ds.QueryOffsets, len(ids))
	}
	ds.Labels = make([]uint8, len(ids))
	if err := ds.setDocIDs(ids); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return ds, nil
}
