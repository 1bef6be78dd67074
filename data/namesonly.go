package data

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// DocNamesFromPolicyFile returns the dataset a log and its policy file
// describe on their own, with no LETOR file: its queries are the qids of
// the policy file's contexts (in order of first appearance), each query's
// documents the union of its contexts' candidates (in order of first
// appearance), named by the names the file uses, with no feature and no
// label. Evaluating from a log needs no more (PI, wPI, IPS and wIPS read
// μ, π, the slates and the rewards alone). The dataset's files name
// documents by these names, and headers' queries=, docs= and doc-ids= are
// not checked against it (they describe a dataset that is not read).
func DocNamesFromPolicyFile(path string) (*Dataset, error) {
	r, c, err := openSlateFile(path)
	if err != nil {
		return nil, fmt.Errorf("open policy file: %w", err)
	}
	defer c.Close()
	lr := newLineReader(r, path)
	if _, err := lr.readHeader(policyMagic); err != nil {
		return nil, err
	}
	var qids []string
	docs := map[string][]string{}
	seen := map[string]map[string]bool{}
	var f [3][]byte
	err = lr.eachRow(f[:], "context, spec, candidates", func() error {
		qid, _, _ := strings.Cut(string(f[0]), "@")
		if seen[qid] == nil {
			seen[qid] = map[string]bool{}
			qids = append(qids, qid)
		}
		for _, name := range candidateNames(string(bytes.TrimSpace(f[1])), f[2]) {
			if why := badDocID(name); why != "" {
				return lr.fieldErr(3, f[2], ErrSlate, "%s", why)
			}
			if n := string(name); !seen[qid][n] {
				seen[qid][n] = true
				docs[qid] = append(docs[qid], n)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(qids) == 0 {
		return nil, lr.fileErr(ErrPolicy, "no context after the header line")
	}
	ds := &Dataset{QIDs: qids, QueryOffsets: []int{0}, Source: path, namesOnly: true}
	var ids []string
	for _, q := range qids {
		ids = append(ids, docs[q]...)
		ds.QueryOffsets = append(ds.QueryOffsets, len(ids))
	}
	ds.Labels = make([]uint8, len(ids))
	if err := ds.setDocIDs(ids); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ds, nil
}

// candidateNames are the document names of a policy file line's
// candidates field, for its spec (ReadPolicy checks the rest).
func candidateNames(spec string, field []byte) [][]byte {
	if _, base, ok := strings.Cut(spec, ","); ok && strings.HasPrefix(spec, "eps:") {
		spec = base
	}
	var out [][]byte
	for _, tok := range bytes.Split(field, []byte{','}) {
		tok = bytes.TrimSpace(tok)
		switch {
		case spec == "slates":
			names, _, _ := bytes.Cut(tok, []byte{'='})
			out = append(out, bytes.Fields(names)...)
		case strings.HasPrefix(spec, "pl:"):
			if i := bytes.LastIndexByte(tok, ':'); i >= 0 {
				tok = tok[:i]
			}
			out = append(out, tok)
		default:
			out = append(out, tok)
		}
	}
	return out
}

// NamesOnly reports whether d holds document names only (no LETOR file
// was read: DocNamesFromPolicyFile).
func (d *Dataset) NamesOnly() bool { return d.namesOnly }

// PolicyPath returns the policy file a slate log's header names
// (policy=), relative to the log's folder unless absolute; "" when the
// header names none.
func PolicyPath(logPath string, h Header) string {
	name := h["policy"]
	if name == "" || filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(filepath.Dir(logPath), name)
}

// ReadLogHeader returns the header of a slate log, nil when its first line
// is not a header (a headerless log).
func ReadLogHeader(path string) (Header, error) {
	files, err := LogFiles(path)
	if err != nil {
		return nil, err
	}
	path = files[0]
	r, c, err := openSlateFile(path)
	if err != nil {
		return nil, fmt.Errorf("open slate log: %w", err)
	}
	defer c.Close()
	lr := newLineReader(r, path)
	if first, err := lr.br.Peek(1); err != nil || first[0] != '#' {
		return nil, nil
	}
	return lr.readHeader(LogMagic)
}
