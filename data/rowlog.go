package data

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
)

// RowLog is a log with a policy in every row (JSON lines, Parquet) after
// its first pass: the units it logs under, as a policy file would list
// them, so that the machinery of policy files (candidates, Γ per distinct
// policy, targets per context) runs on it unchanged, and a second pass
// (Open) streams its impressions as a slate log's.
//
// A unit is a context (QID or QID@TAG, the row's context; its qid is the
// part before the first '@') with one logging policy and one row target:
// rows of one context with the same policy share a unit, hence one Γ; rows
// of one context with different policies (a production logger scoring
// with user features) get a unit each, named CONTEXT[k] for the k-th
// (k ≥ 2), and stay one query of the dataset. A row without a policy takes
// its context's line of the policy file (RowLogOptions.PolicyFile).
type RowLog struct {
	Path    string
	Dataset *Dataset // the given one, or the names the rows use (NamesOnly)
	Slots   int
	// Policy lists the units' logging policies (Name is the log's path,
	// Line a unit's first row).
	Policy *PolicyFile
	// Target lists the units' row targets (a target policy file whose
	// contexts are the units); nil when no row carries one.
	Target *PolicyFile
	Rows   int64
	unit   []int32 // per row, in order: its unit
}

// RowLogOptions say how a row log is read.
type RowLogOptions struct {
	// Data is the dataset whose queries and documents the rows name; nil
	// builds one of names only from the rows (and the policy file).
	Data *Dataset
	// Slots is the slate length ℓ; 0 takes the longest slate of the log.
	Slots int
	// PolicyFile gives the logging policy of rows without one, per
	// context; "" when every row carries its policy.
	PolicyFile string
}

// ScanRowLog reads a row log (EachLogRow) once, building its units.
func ScanRowLog(path string, opt RowLogOptions) (*RowLog, error) {
	s, err := newRowScan(path, opt)
	if err != nil {
		return nil, err
	}
	if err := EachLogRow(path, s.add); err != nil {
		return nil, err
	}
	rl, err := s.finish()
	return rl, inUnits(err)
}

// rowScan is ScanRowLog's state.
type rowScan struct {
	rl      *RowLog
	opt     RowLogOptions
	names   *docNames
	units   map[[16]byte]int32
	count   map[string]int // units per context
	key     []byte
	tnames  [][]string // per unit with a row target: its candidates' names
	tslates [][][]string
	noPol   []noPolicyUnit
	maxLen  int
}

// noPolicyUnit is a unit of rows without a policy: the file's entry is
// filled in when the dataset is known.
type noPolicyUnit struct {
	unit    int32
	context string
	line    int64
}

func newRowScan(path string, opt RowLogOptions) (*rowScan, error) {
	s := &rowScan{rl: &RowLog{Path: path, Policy: &PolicyFile{Name: path}}, opt: opt,
		units: map[[16]byte]int32{}, count: map[string]int{}}
	s.names = newDocNames(opt.Data)
	if opt.PolicyFile != "" && opt.Data == nil {
		// The policy file's documents are the dataset's too.
		pds, err := DocNamesFromPolicyFile(opt.PolicyFile)
		if err != nil {
			return nil, err
		}
		for q, qid := range pds.QIDs {
			x, _ := s.names.query(qid)
			lo, hi := pds.Query(q)
			for d := range hi - lo {
				s.names.doc(x, pds.DocID(q, d))
			}
		}
	}
	return s, nil
}

// add takes one row of the first pass.
func (s *rowScan) add(n int64, r *LogRow) error {
	fail := func(field string, kind error, format string, args ...any) error {
		return &ParseError{File: s.rl.Path, Line: int(n), Name: field, Err: errorf(kind, format, args...)}
	}
	qid, _, _ := strings.Cut(r.Context, "@")
	q, ok := s.names.query(qid)
	if !ok {
		return fail("context", ErrQID, "qid %q is not in %s", shortenString(qid), s.opt.Data.Source)
	}
	if r.Policy == nil && s.opt.PolicyFile == "" {
		return fail("policy", ErrPolicy, "missing, and no policy file (--policy FILE) gives the logging policy of context %q", shortenString(r.Context))
	}
	key := s.unitKey(r)
	u, ok := s.units[key]
	if !ok {
		var err error
		if u, err = s.newUnit(key, n, q, r); err != nil {
			return err
		}
	}
	for i, d := range r.Slate {
		if _, ok := s.names.doc(q, d); !ok {
			return fail(elem("slate", i), ErrSlate, "document %q is not in qid %s of %s", shortenString(d), shortenString(qid), s.opt.Data.Source)
		}
	}
	s.maxLen = max(s.maxLen, len(r.Slate))
	s.rl.unit = append(s.rl.unit, u)
	s.rl.Rows++
	return nil
}

// unitKey hashes what makes a unit: the context, the policy (or none: the
// policy file's) and the target.
func (s *rowScan) unitKey(r *LogRow) [16]byte {
	b := appendField(s.key[:0], r.Context)
	b = appendPolicy(b, r.Policy)
	b = appendPolicy(b, r.Target)
	s.key = b
	h := fnv.New128a()
	h.Write(b)
	var k [16]byte
	h.Sum(k[:0])
	return k
}

func appendField(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendPolicy(b []byte, p *RowPolicy) []byte {
	if p == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = appendField(b, p.Spec)
	b = binary.AppendUvarint(b, uint64(len(p.Candidates)))
	for _, c := range p.Candidates {
		b = appendField(b, c)
	}
	for _, list := range [][]float64{p.Scores, p.Probs} {
		b = binary.AppendUvarint(b, uint64(len(list)))
		for _, x := range list {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	}
	b = binary.AppendUvarint(b, uint64(len(p.Slates)))
	for _, sl := range p.Slates {
		b = binary.AppendUvarint(b, uint64(len(sl)))
		for _, d := range sl {
			b = appendField(b, d)
		}
	}
	return b
}

// newUnit adds the unit of row r (line n, query q).
func (s *rowScan) newUnit(key [16]byte, n int64, q int, r *LogRow) (int32, error) {
	u := int32(len(s.rl.Policy.Entries))
	s.units[key] = u
	k := s.count[r.Context] + 1
	s.count[r.Context] = k
	name := r.Context
	if k > 1 {
		name += "[" + strconv.Itoa(k) + "]"
	}
	e := PolicyEntry{Context: name, Query: q, Line: int(n)}
	if r.Policy == nil {
		s.noPol = append(s.noPol, noPolicyUnit{unit: u, context: r.Context, line: n})
	} else if err := s.rowEntry(&e, n, "policy", r.Policy); err != nil {
		return 0, err
	}
	s.rl.Policy.Entries = append(s.rl.Policy.Entries, e)
	if r.Target != nil {
		for len(s.tnames) < int(u) {
			s.tnames, s.tslates = append(s.tnames, nil), append(s.tslates, nil)
		}
		s.tnames = append(s.tnames, append([]string(nil), r.Target.Candidates...))
		var sl [][]string
		for _, x := range r.Target.Slates {
			sl = append(sl, append([]string(nil), x...))
		}
		s.tslates = append(s.tslates, sl)
		if s.rl.Target == nil {
			s.rl.Target = &PolicyFile{Name: s.rl.Path, target: true}
		}
		t := PolicyEntry{Context: name, Query: q, Spec: r.Target.Spec, Line: int(n), Scores: append([]float64(nil), r.Target.Scores...),
			Probs: append([]float64(nil), r.Target.Probs...)}
		s.rl.Target.Entries = append(s.rl.Target.Entries, t)
	}
	return u, nil
}

// rowEntry fills a logging entry from a row's policy: its candidates in
// the row's order, scores, and slates as indices into the candidates.
func (s *rowScan) rowEntry(e *PolicyEntry, n int64, name string, p *RowPolicy) error {
	e.Spec = p.Spec
	e.Docs = make([]int32, len(p.Candidates))
	for i, c := range p.Candidates {
		d, ok := s.names.doc(e.Query, c)
		if !ok {
			return &ParseError{File: s.rl.Path, Line: int(n), Name: elem(name+".candidates", i),
				Err: errorf(ErrSlate, "document %q is not in qid %s of %s", shortenString(c), s.opt.Data.QIDs[e.Query], s.opt.Data.Source)}
		}
		e.Docs[i] = d
	}
	if p.Scores != nil {
		e.Scores = append([]float64(nil), p.Scores...)
	}
	if p.Slates != nil {
		l := len(p.Slates[0])
		for k, sl := range p.Slates {
			if len(sl) != l {
				return &ParseError{File: s.rl.Path, Line: int(n), Name: elem(name+".slates", k),
					Err: errorf(ErrSlate, "%d documents, but slates[0] has %d", len(sl), l)}
			}
			for _, d := range sl {
				e.Slates = append(e.Slates, int32(indexString(p.Candidates, d)))
			}
		}
		e.Probs = append([]float64(nil), p.Probs...)
	}
	return nil
}

func indexString(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
