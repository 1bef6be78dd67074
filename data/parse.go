package data

import (
	"bytes"
)

// maxFeatureIndex bounds feature indices when no feature count is given:
// features are stored densely, so a stray index of 10^9 must be an error and
// not an attempt to allocate terabytes.
const maxFeatureIndex = 1 << 20

// lineSyntax holds what the line parser needs to know about the file.
type lineSyntax struct {
	maxLabel  int  // highest grade accepted
	features  int  // highest feature index accepted; 0: up to maxFeatureIndex
	wantQID   bool // lines carry qid: (false: a query file groups them)
	queryFile string
	docIDs    bool // keep each document's id from its comment (DocComment)
}

// parsedLine is one document line, as returned by parseLine.
type parsedLine struct {
	blank  bool   // no fields (empty or comment only): not a document
	label  uint8  //
	qid    []byte // sub-slice of the line; nil when the line has no qid:
	n      int    // number of features on the line
	maxIdx int    // highest feature index (0 without features)
}

// fieldError is a parse error inside a line, before the file and line
// number are known.
type fieldError struct {
	field int
	token []byte
	err   error
}

// separator marks the field separators: space, tab, the CR of CRLF line
// ends, and vertical tab and form feed for good measure.
var separator = [256]bool{' ': true, '\t': true, '\r': true, '\v': true, '\f': true}

func isSpace(c byte) bool { return separator[c] }

// isSpaceRune is isSpace for the bytes package's rune callbacks.
func isSpaceRune(r rune) bool { return r < 128 && isSpace(byte(r)) }

// tokenEnd returns the end of the field that starts at p.
func tokenEnd(line []byte, p int) int {
	for p < len(line) && !separator[line[p]] {
		p++
	}
	return p
}

// parseLine parses one line (without its '\n') of the form
// `<label> qid:<id> <index>:<value> ... # comment`, appending the features'
// 1-based indices and values to idx and val. A '#' starts a comment
// anywhere. It does not allocate except to grow idx and val.
func parseLine(line []byte, sx *lineSyntax, idx []int32, val []float32) (pl parsedLine, idxOut []int32, valOut []float32, fe *fieldError) {
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	p := 0
	for p < len(line) && separator[line[p]] {
		p++
	}
	if p == len(line) {
		pl.blank = true
		return pl, idx, val, nil
	}

	// Field 1: the label.
	start := p
	p = tokenEnd(line, p)
	tok := line[start:p]
	label, err := parseLabel(tok, sx.maxLabel)
	if err != nil {
		return pl, idx, val, &fieldError{1, tok, err}
	}
	pl.label = label

	field := 1
	prev := 0
	for {
		for p < len(line) && separator[line[p]] {
			p++
		}
		if p == len(line) {
			break
		}
		field++
		start = p
		if field == 2 {
			if len(line)-p >= 4 && string(line[p:p+4]) == "qid:" {
				p = tokenEnd(line, p)
				tok = line[start:p]
				if !sx.wantQID || len(tok) == 4 {
					return pl, idx, val, qidError(tok, sx)
				}
				pl.qid = tok[4:]
				continue
			}
			if sx.wantQID {
				tok = line[start:tokenEnd(line, p)]
				return pl, idx, val, &fieldError{field, tok, errorf(ErrQID, "missing qid: (want <label> qid:<id> <index>:<value> ...)")}
			}
		}
		// index:value, read in one pass.
		k := 0
		for p < len(line) && line[p]-'0' < 10 {
			if k <= maxFeatureIndex {
				k = k*10 + int(line[p]-'0')
			}
			p++
		}
		if p == start || p == len(line) || line[p] != ':' {
			return pl, idx, val, featureSyntaxError(field, line[start:tokenEnd(line, p)])
		}
		if k < 1 || k <= prev || (sx.features > 0 && k > sx.features) || k > maxFeatureIndex {
			return pl, idx, val, featureIndexError(field, line[start:tokenEnd(line, p)], k, prev, sx)
		}
		v, end, ok := scanFloat32(line, p+1)
		if !ok {
			return pl, idx, val, valueError(field, line[start:end])
		}
		p = end
		idx = append(idx, int32(k))
		val = append(val, v)
		prev = k
		pl.n++
	}
	if field == 1 && sx.wantQID {
		return pl, idx, val, &fieldError{2, nil, errorf(ErrQID, "missing qid: (the line has only a label)")}
	}
	pl.maxIdx = prev
	return pl, idx, val, nil
}

// commentID returns the document id in the comment of l, a document line
// that parseLine read as pl (DocComment mode): after the '#' and any
// spaces, the word that follows "docid", optional spaces and '=' when the
// comment starts so, else the comment's first word. The id is a sub-slice
// of l. A missing comment or a bad id is an error about the field after
// the line's data fields.
func commentID(l []byte, pl *parsedLine) ([]byte, *fieldError) {
	field := 2 + pl.n // the label, the features, then the comment
	if pl.qid != nil {
		field++
	}
	i := bytes.IndexByte(l, '#')
	if i < 0 {
		return nil, &fieldError{field, nil, errorf(ErrDocID, "no comment to take the document id from (--doc-ids comment wants `#docid = ID` or `# ID` on every line)")}
	}
	c := l[i+1:]
	p := skipSpace(c, 0)
	if len(c)-p >= 5 && string(c[p:p+5]) == "docid" {
		if q := skipSpace(c, p+5); q < len(c) && c[q] == '=' {
			p = skipSpace(c, q+1)
		}
	}
	id := c[p:tokenEnd(c, p)]
	if why := badDocID(id); why != "" {
		return nil, &fieldError{field, bytes.TrimRightFunc(l[i:], isSpaceRune), errorf(ErrDocID, "%s", why)}
	}
	return id, nil
}

// skipSpace returns the position of the first non-separator at or after p.
func skipSpace(b []byte, p int) int {
	for p < len(b) && separator[b[p]] {
		p++
	}
	return p
}

// The error constructors below are kept out of parseLine so that its loop
// stays short; they run at most once per file.

// qidError explains a qid: field (field 2) that is either not wanted or
// empty.
func qidError(tok []byte, sx *lineSyntax) *fieldError {
	if !sx.wantQID {
		return &fieldError{2, tok, errorf(ErrQID, "qid: given, but the query file %s groups the lines", sx.queryFile)}
	}
	return &fieldError{2, tok, errorf(ErrQID, "empty qid")}
}

// featureSyntaxError explains a feature field whose index is not a number
// followed by ':'.
func featureSyntaxError(field int, tok []byte) *fieldError {
	if bytes.IndexByte(tok, ':') < 0 {
		return &fieldError{field, tok, errorf(ErrFeature, "feature not of the form index:value")}
	}
	return &fieldError{field, tok, errorf(ErrFeature, "feature index not an integer")}
}

// featureIndexError explains a feature index k that is out of range or not
// above the previous index prev.
func featureIndexError(field int, tok []byte, k, prev int, sx *lineSyntax) *fieldError {
	switch {
	case k < 1:
		return &fieldError{field, tok, errorf(ErrFeature, "feature index < 1")}
	case k <= prev:
		return &fieldError{field, tok, errorf(ErrFeature, "feature index %d not increasing (after %d)", k, prev)}
	case sx.features > 0 && k > sx.features:
		return &fieldError{field, tok, errorf(ErrFeature, "feature index %d above --features %d", k, sx.features)}
	}
	return &fieldError{field, tok, errorf(ErrFeature, "feature index above the limit of %d dense features", maxFeatureIndex)}
}

// valueError explains a feature field whose value is not a finite number,
// naming the Go-only spellings strconv would take: hexadecimal floats and
// digit-separating underscores.
func valueError(field int, tok []byte) *fieldError {
	_, v, _ := bytes.Cut(tok, []byte(":"))
	switch {
	case bytes.ContainsAny(v, "xX"):
		return &fieldError{field, tok, errorf(ErrValue, "hexadecimal value not accepted (LETOR values are decimal)")}
	case bytes.ContainsRune(v, '_'):
		return &fieldError{field, tok, errorf(ErrValue, "underscore in value not accepted (LETOR values are decimal)")}
	}
	return &fieldError{field, tok, ErrValue}
}

// parseLabel reads a non-negative decimal integer no larger than maxLabel.
func parseLabel(tok []byte, maxLabel int) (uint8, error) {
	neg := len(tok) > 1 && tok[0] == '-'
	digits := tok
	if neg {
		digits = tok[1:]
	}
	v := 0
	for _, c := range digits {
		if c-'0' >= 10 {
			return 0, errorf(ErrLabel, "label not an integer")
		}
		if v <= maxLabel {
			v = v*10 + int(c-'0')
		}
	}
	if neg && v != 0 || v > maxLabel {
		return 0, errorf(ErrLabel, "label %s outside 0..%d (--max-label)", shorten(tok), maxLabel)
	}
	return uint8(v), nil
}
