package data

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// JSONLogWriter writes a JSON-lines log with a policy in every row (the
// shape ReadJSONLog reads): one object a line, its context's logging
// policy inline, documents named as the dataset names them
// (Dataset.AppendDoc: comment ids, or positions), numbers in strconv's
// shortest round-trip format so that reading them back gives the same
// float64. Each context's policy object is rendered once.
type JSONLogWriter struct {
	w      io.Writer
	ds     *Dataset
	ctx    [][]byte // per entry: `{"context":"…","slate":[`
	query  []int    // per entry: its query
	policy [][]byte // per entry: `,"policy":{…}}` and the newline
	buf    []byte
}

// NewJSONLogWriter returns a writer of rows whose logging policies are
// entries (a policy file's, by index), on ds. Wrap w in a buffer: every
// impression is one Write call.
func NewJSONLogWriter(w io.Writer, ds *Dataset, entries []PolicyEntry) *JSONLogWriter {
	jw := &JSONLogWriter{w: w, ds: ds, ctx: make([][]byte, len(entries)), query: make([]int, len(entries)), policy: make([][]byte, len(entries))}
	for i := range entries {
		e := &entries[i]
		jw.query[i] = e.Query
		b := appendJSONString([]byte(`{"context":`), e.Context)
		jw.ctx[i] = append(b, `,"slate":[`...)
		jw.policy[i] = append(jw.appendPolicy([]byte(`,"policy":`), e), "}\n"...)
	}
	return jw
}

// appendPolicy appends entry e as a row's policy object.
func (jw *JSONLogWriter) appendPolicy(b []byte, e *PolicyEntry) []byte {
	b = append(b, `{"spec":`...)
	b = appendJSONString(b, e.Spec)
	b = append(b, `,"candidates":`...)
	b = jw.appendDocs(b, e.Query, e.Docs)
	if e.Scores != nil {
		b = append(b, `,"scores":`...)
		b = appendFloats(b, e.Scores)
	}
	if e.Probs != nil {
		b = append(b, `,"slates":[`...)
		l := len(e.Slates) / len(e.Probs)
		for k := range e.Probs {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			for j, a := range e.Slates[k*l : (k+1)*l] {
				if j > 0 {
					b = append(b, ',')
				}
				b = jw.appendDoc(b, e.Query, e.Docs[a])
			}
			b = append(b, ']')
		}
		b = append(b, `],"probs":`...)
		b = appendFloats(b, e.Probs)
	}
	return append(b, '}')
}

// Write appends one impression of entry i: slate holds document positions
// of the entry's query.
func (jw *JSONLogWriter) Write(i int, slate []int32, reward float64) error {
	if math.IsInf(reward, 0) || math.IsNaN(reward) {
		return fmt.Errorf("JSON-lines log: reward %v of context %d is not finite", reward, i)
	}
	b := append(jw.buf[:0], jw.ctx[i]...)
	for j, d := range slate {
		if j > 0 {
			b = append(b, ',')
		}
		b = jw.appendDoc(b, jw.query[i], d)
	}
	b = append(b, `],"reward":`...)
	b = strconv.AppendFloat(b, reward, 'g', -1, 64)
	b = append(b, jw.policy[i]...)
	jw.buf = b
	_, err := jw.w.Write(b)
	return err
}

func (jw *JSONLogWriter) appendDocs(b []byte, q int, docs []int32) []byte {
	b = append(b, '[')
	for i, d := range docs {
		if i > 0 {
			b = append(b, ',')
		}
		b = jw.appendDoc(b, q, d)
	}
	return append(b, ']')
}

// appendDoc appends document d of query q as a JSON string.
func (jw *JSONLogWriter) appendDoc(b []byte, q int, d int32) []byte {
	if jw.ds == nil {
		b = append(b, '"')
		b = strconv.AppendInt(b, int64(d), 10)
		return append(b, '"')
	}
	b = append(b, '"')
	start := len(b)
	b = jw.ds.AppendDoc(b, q, d)
	for _, c := range b[start:] {
		if c == '"' || c == '\\' || c < 0x20 {
			name := string(b[start:]) // rare: an id to escape
			return appendJSONString(b[:start-1], name)
		}
	}
	return append(b, '"')
}

func appendFloats(b []byte, xs []float64) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, x, 'g', -1, 64)
	}
	return append(b, ']')
}

// appendJSONString appends s as a JSON string: '"' and '\' escaped, control
// characters as \u00XX (ids have none), the rest as it is (UTF-8).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		case c < utf8.RuneSelf:
			b = append(b, c)
		default:
			_, n := utf8.DecodeRuneInString(s[i:])
			b = append(b, s[i:i+n]...)
			i += n
			continue
		}
		i++
	}
	return append(b, '"')
}
