package data

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// policyMagic is the magic word of a policy file's header line.
const policyMagic = "piopt-policy"

// ErrPolicy: a policy file's line names an unknown spec, a bad parameter,
// or probabilities that do not sum to 1.
var ErrPolicy = errors.New("bad policy")

// PolicyEntry is one context of a policy file: the logging policy μ of a
// query at some time or impression.
type PolicyEntry struct {
	Context string // QID or QID@TAG, as written
	Query   int    // index of QID in the dataset
	// Spec is the policy as written: uniform, pa:ALPHA, pl:TAU, slates or
	// eps:E,SPEC.
	Spec string
	// Docs are the candidates as document positions of the query: in the
	// listed order (uniform, pa: the logger's rank order; pl: as listed),
	// for slates in order of first appearance.
	Docs []int32
	// Scores are pl's candidate scores, parallel to Docs (nil otherwise).
	Scores []float64
	// Slates are the listed slates of a slates spec, len(Probs) of them,
	// each min(slots, len(Docs)) indices into Docs, flattened; nil otherwise.
	Slates []int32
	Probs  []float64
	Line   int // 1-based line of the file
	// Names, in a target policy file (ReadTargetPolicyFile), are the
	// documents the dataset's query does not hold: such a document is
	// -(k+1) in Docs for Names[k] (the logger never shows it).
	Names []string
}

// DocName returns the name of e's i-th candidate in ds's files.
func (e *PolicyEntry) DocName(ds *Dataset, i int) string {
	if d := e.Docs[i]; d < 0 {
		return e.Names[-d-1]
	}
	return ds.DocID(e.Query, int(e.Docs[i]))
}

// PolicyFile is a logging policy per context: a header line `# piopt-policy
// v1 slots=L`, then one line per context
//
//	<context>\t<spec>\t<candidates>
//
// with <context> QID or QID@TAG (the qid is the part before the first @)
// and, by spec, <candidates>
//
//	uniform, pa:ALPHA   d1,d2,...           (pa: the logger's rank order, best first)
//	pl:TAU              d1:s1,d2:s2,...     (Plackett–Luce on the scores s)
//	slates              d1 d2 d3=p,d4 d5 d6=p,...   (probabilities summing to 1)
//	eps:E,SPEC          as SPEC's
//	rank                d1,d2,...           (a target's only: the first ℓ, deterministic)
//
// Documents are named as the dataset names them (positions or ids).
type PolicyFile struct {
	Name    string
	header  Header
	Slots   int
	Entries []PolicyEntry
	// Hash is the content hash of the file's (uncompressed) bytes, as a
	// log's header records it under PolicyHashKey.
	Hash string
	// target: a target policy file (ReadTargetPolicyFile), whose documents
	// need not be the dataset's, and whose qids need not be either (their
	// lines are counted in Unused).
	target bool
	Unused int
}

// ReadTargetPolicyFile reads a policy file that gives a target policy π
// per context: as ReadPolicyFile, plus the deterministic spec `rank` ·
// d1,d2,… (the first ℓ in that order). A document the dataset's query
// does not hold is kept by name (see PolicyEntry.Names); a line whose qid
// the dataset does not hold is counted in Unused.
func ReadTargetPolicyFile(path string, ds *Dataset) (*PolicyFile, error) {
	r, c, err := openSlateFile(path)
	if err != nil {
		return nil, fmt.Errorf("open target policy file: %w", err)
	}
	defer c.Close()
	return readPolicy(r, path, ds, true)
}

// ReadPolicyFile reads a policy file (optionally gzip-compressed) whose
// qids and documents are ds's.
func ReadPolicyFile(path string, ds *Dataset) (*PolicyFile, error) {
	r, c, err := openSlateFile(path)
	if err != nil {
		return nil, fmt.Errorf("open policy file: %w", err)
	}
	defer c.Close()
	return ReadPolicy(r, path, ds)
}

// ReadPolicy reads a policy file from r; name is the file name used in
// errors. Every error names the file, the line and the field.
func ReadPolicy(r io.Reader, name string, ds *Dataset) (*PolicyFile, error) {
	return readPolicy(r, name, ds, false)
}

func readPolicy(r io.Reader, name string, ds *Dataset, target bool) (*PolicyFile, error) {
	sum := NewContentHash()
	lr := newLineReader(io.TeeReader(r, sum), name)
	h, err := lr.readHeader(policyMagic)
	if err != nil {
		return nil, err
	}
	slots, ok, err := h.Int("slots")
	switch {
	case err != nil:
		return nil, lr.lineErr(ErrHeader, "%v", err)
	case !ok:
		return nil, lr.lineErr(ErrHeader, "header lacks slots=")
	case slots < 1 || slots > MaxSlots:
		return nil, lr.lineErr(ErrHeader, "header slots=%d: must be in 1..%d", slots, MaxSlots)
	}
	if err := checkHeaderData(h, ds); err != nil {
		return nil, lr.lineErr(ErrHeader, "%v", err)
	}
	pf := &PolicyFile{Name: name, header: h, Slots: slots, target: target}
	qids := qidIndex(ds)
	seen := map[string]int{}
	var fields [3][]byte
	err = lr.eachRow(fields[:], "context, spec, candidates", func() error {
		e, err := pf.parseEntry(lr, fields, qids, ds)
		if err == errUnused {
			pf.Unused++
			return nil
		}
		if err != nil {
			return err
		}
		if prev, dup := seen[e.Context]; dup {
			return lr.fieldErr(1, fields[0], ErrPolicy, "context %q is given again (first on line %d)", e.Context, prev)
		}
		seen[e.Context] = e.Line
		pf.Entries = append(pf.Entries, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(pf.Entries) == 0 && target {
		return nil, lr.fileErr(ErrPolicy, "no context of a query of %s after the header line", ds.Source)
	}
	if len(pf.Entries) == 0 {
		return nil, lr.fileErr(ErrPolicy, "no context after the header line")
	}
	pf.Hash = sum.Sum()
	return pf, nil
}

// parseEntry reads one line's fields.
func (pf *PolicyFile) parseEntry(lr *lineReader, f [3][]byte, qids map[string]int, ds *Dataset) (PolicyEntry, error) {
	e := PolicyEntry{Context: string(f[0]), Spec: string(bytes.TrimSpace(f[1])), Line: lr.line}
	qid, _, _ := strings.Cut(e.Context, "@")
	q, ok := qids[qid]
	if !ok && pf.target {
		return e, errUnused
	}
	if !ok {
		return e, lr.fieldErr(1, f[0], ErrQID, "qid %q is not in %s", shortenString(qid), ds.Source)
	}
	e.Query = q
	base := e.Spec
	if rest, ok := strings.CutPrefix(base, "eps:"); ok {
		_, b, ok := strings.Cut(rest, ",")
		if !ok {
			return e, lr.fieldErr(2, f[1], ErrPolicy, "want eps:E,SPEC")
		}
		base = b
	}
	var err error
	switch {
	case strings.HasPrefix(base, "pl:"):
		err = e.parseScored(lr, f[2], ds, pf.target)
	case base == "slates":
		err = e.parseSlates(lr, f[2], ds, pf.Slots, pf.target)
	case base == "uniform" || strings.HasPrefix(base, "pa:"):
		err = e.parseList(lr, f[2], ds, pf.target)
	case base == "rank" && pf.target && base == e.Spec:
		err = e.parseList(lr, f[2], ds, true)
	case base == "rank" && pf.target:
		return e, lr.fieldErr(2, f[1], ErrPolicy, "rank is deterministic: it has no eps: mixture")
	case pf.target:
		return e, lr.fieldErr(2, f[1], ErrPolicy, "want uniform, pa:ALPHA, pl:TAU, slates, rank or eps:E,SPEC")
	default:
		return e, lr.fieldErr(2, f[1], ErrPolicy, "want uniform, pa:ALPHA, pl:TAU, slates or eps:E,SPEC")
	}
	return e, err
}

// errUnused: a target policy file's line names a qid the dataset does not
// hold (it is skipped and counted).
var errUnused = errors.New("unused context")

// doc resolves a candidate's name, checking it is not repeated; with
// named, a name the query does not hold is kept in e.Names (a negative
// code, the same for the same name).
func (e *PolicyEntry) doc(lr *lineReader, field []byte, tok []byte, ds *Dataset, pos map[int32]int, named bool) (int32, error) {
	d, ok := ds.findDoc(e.Query, tok)
	if !ok && named {
		if len(tok) == 0 {
			return 0, lr.fieldErr(3, field, ErrSlate, "empty document name")
		}
		k := slices.Index(e.Names, string(tok))
		if k < 0 {
			e.Names = append(e.Names, string(tok))
			k = len(e.Names) - 1
		}
		d, ok = -int32(k+1), true
	}
	if !ok {
		return 0, lr.fieldErr(3, field, ErrSlate, "document %q is not in qid %s", shorten(tok), ds.QIDs[e.Query])
	}
	if i, dup := pos[d]; dup && pos != nil {
		return 0, lr.fieldErr(3, field, ErrSlate, "candidate %q is repeated (candidate %d)", shorten(tok), i+1)
	}
	return d, nil
}

func (e *PolicyEntry) parseList(lr *lineReader, field []byte, ds *Dataset, named bool) error {
	pos := map[int32]int{}
	for _, tok := range bytes.Split(field, []byte{','}) {
		d, err := e.doc(lr, field, bytes.TrimSpace(tok), ds, pos, named)
		if err != nil {
			return err
		}
		pos[d] = len(e.Docs)
		e.Docs = append(e.Docs, d)
	}
	return nil
}

func (e *PolicyEntry) parseScored(lr *lineReader, field []byte, ds *Dataset, named bool) error {
	pos := map[int32]int{}
	for _, tok := range bytes.Split(field, []byte{','}) {
		name, score, ok := splitLast(bytes.TrimSpace(tok), ':')
		if !ok {
			return lr.fieldErr(3, field, ErrPolicy, "candidate %q: want DOC:SCORE", shorten(tok))
		}
		d, err := e.doc(lr, field, name, ds, pos, named)
		if err != nil {
			return err
		}
		s, ok := parseFinite(score)
		if !ok {
			return lr.fieldErr(3, field, ErrNumber, "score %q of candidate %q is not a finite number", shorten(score), shorten(name))
		}
		pos[d] = len(e.Docs)
		e.Docs = append(e.Docs, d)
		e.Scores = append(e.Scores, s)
	}
	return nil
}

func (e *PolicyEntry) parseSlates(lr *lineReader, field []byte, ds *Dataset, slots int, named bool) error {
	pos := map[int32]int{}
	type slate struct {
		docs []int32
		p    float64
	}
	var list []slate
	total := 0.0
	for k, tok := range bytes.Split(field, []byte{','}) {
		docs, prob, ok := splitLast(bytes.TrimSpace(tok), '=')
		if !ok {
			return lr.fieldErr(3, field, ErrPolicy, "slate %d: want DOC DOC ...=PROBABILITY", k+1)
		}
		p, ok := parseFinite(bytes.TrimSpace(prob))
		if !ok || !(p > 0 && p <= 1) {
			return lr.fieldErr(3, field, ErrNumber, "slate %d: probability %q is not in (0, 1]", k+1, shorten(prob))
		}
		var s slate
		s.p = p
		for _, name := range bytes.Fields(docs) {
			d, err := e.doc(lr, field, name, ds, nil, named)
			if err != nil {
				return err
			}
			for _, o := range s.docs {
				if o == d {
					return lr.fieldErr(3, field, ErrSlate, "slate %d repeats document %q", k+1, shorten(name))
				}
			}
			s.docs = append(s.docs, d)
			if _, ok := pos[d]; !ok {
				pos[d] = len(e.Docs)
				e.Docs = append(e.Docs, d)
			}
		}
		list = append(list, s)
		total += p
	}
	if math.Abs(total-1) > 1e-9 {
		return lr.fieldErr(3, field, ErrPolicy, "slate probabilities sum to %.12g, not 1 (within 1e-9)", total)
	}
	l := min(slots, len(e.Docs))
	for k, s := range list {
		if len(s.docs) != l {
			return lr.fieldErr(3, field, ErrSlate, "slate %d has %d documents; with slots=%d and %d candidates a slate has %d", k+1, len(s.docs), slots, len(e.Docs), l)
		}
		for _, d := range s.docs {
			e.Slates = append(e.Slates, int32(pos[d]))
		}
		e.Probs = append(e.Probs, s.p)
	}
	return nil
}

// WritePolicy writes a policy file of entries over ds's documents. The
// header's slots is slots; h's other keys are written too.
func WritePolicy(w io.Writer, h Header, slots int, entries []PolicyEntry, ds *Dataset) error {
	h = withDocIDs(h.Clone(), ds)
	h["slots"] = strconv.Itoa(slots)
	bw := bufio.NewWriter(w)
	bw.WriteString(h.Format(policyMagic) + "\n")
	var b []byte
	for _, e := range entries {
		b = append(b[:0], e.Context...)
		b = append(b, '\t')
		b = append(b, e.Spec...)
		b = append(b, '\t')
		switch {
		case e.Probs != nil:
			l := len(e.Slates) / len(e.Probs)
			for k, p := range e.Probs {
				if k > 0 {
					b = append(b, ',')
				}
				for j, a := range e.Slates[k*l : (k+1)*l] {
					if j > 0 {
						b = append(b, ' ')
					}
					b = ds.AppendDoc(b, e.Query, e.Docs[a])
				}
				b = append(b, '=')
				b = strconv.AppendFloat(b, p, 'g', -1, 64)
			}
		default:
			for i, d := range e.Docs {
				if i > 0 {
					b = append(b, ',')
				}
				b = ds.AppendDoc(b, e.Query, d)
				if e.Scores != nil {
					b = append(b, ':')
					b = strconv.AppendFloat(b, e.Scores[i], 'g', -1, 64)
				}
			}
		}
		b = append(b, '\n')
		if err := checkLineLength("policy file", b); err != nil {
			return err
		}
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}
