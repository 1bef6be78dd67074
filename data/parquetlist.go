package data

import "github.com/parquet-go/parquet-go"

// The LIST fields of a Parquet log row. A list's values arrive one per
// entry (one in all for a null or empty list); the definition level says
// how far down the path each is present and the repetition level which
// list a value starts (0: the row, rep1: an outer entry, rep2: an inner
// entry).

// listHead reads the first value of list leaf l's row and classifies it:
// the enclosing struct null (present false), the list null (v nil, a nil
// list) or empty (v nil, an empty list), or its first entry (v).
func (rd *pqReader) listHead(l *pqLeaf, required bool) (v *parquet.Value, present, null bool, err error) {
	c := rd.cursor(l)
	if v, err = c.next(); err != nil {
		return nil, false, false, rd.corruptField(l, err)
	}
	if err := rd.checkFirst(l, v); err != nil {
		return nil, false, false, err
	}
	d := v.DefinitionLevel()
	switch {
	case d < l.dStruct:
		return nil, false, false, rd.listEnd(l)
	case d < l.dField && required:
		return nil, true, false, rd.rowErr(ErrParquetLog, l.field, "null")
	case d < l.dField:
		return nil, true, true, rd.listEnd(l)
	case d < l.dEntry:
		return nil, true, false, rd.listEnd(l)
	}
	return v, true, false, nil
}

// listEnd checks that a row whose list has no entries has no more values.
func (rd *pqReader) listEnd(l *pqLeaf) error {
	if more, err := rd.cursor(l).more(); err != nil || more {
		return rd.corruptField(l, err)
	}
	return nil
}

// listNext returns the next value of the row's list, nil after the row's
// last.
func (rd *pqReader) listNext(l *pqLeaf) (*parquet.Value, error) {
	c := rd.cursor(l)
	more, err := c.more()
	if err != nil {
		return nil, rd.corruptField(l, err)
	}
	if !more {
		return nil, nil
	}
	v, err := c.next()
	if err != nil {
		return nil, rd.corruptField(l, err)
	}
	return v, nil
}

// strings reads a list of strings into dst (reusing its array). required
// lists (slate) may not be null. It reports whether the enclosing struct
// is present.
func (rd *pqReader) strings(l *pqLeaf, dst *[]string, required bool) (bool, error) {
	return pqReadList(rd, l, dst, required, func(v *parquet.Value, i int, s *string) error {
		return rd.value(l, v, l.field, i, -1, s, nil)
	})
}

// numbers reads a list of numbers (scores, probs) into dst.
func (rd *pqReader) numbers(l *pqLeaf, dst *[]float64) (bool, error) {
	return pqReadList(rd, l, dst, false, func(v *parquet.Value, i int, x *float64) error {
		return rd.value(l, v, l.field, i, -1, nil, x)
	})
}

// pqReadList reads a flat list of leaf l into dst (reusing its array), each
// element by read: a null list is nil, a null element an error naming its
// index. It reports whether the enclosing struct is present.
func pqReadList[T any](rd *pqReader, l *pqLeaf, dst *[]T, required bool, read func(v *parquet.Value, i int, x *T) error) (bool, error) {
	v, present, null, err := rd.listHead(l, required)
	if err != nil || !present || null {
		if null {
			*dst = nil // a null list is nil; a null struct's are not read
		}
		return present, err
	}
	out := (*dst)[:0]
	if out == nil {
		out = make([]T, 0, 16)
	}
	for i := 0; v != nil; i++ {
		if i > 0 && (v.RepetitionLevel() != l.rep1 || v.DefinitionLevel() < l.dEntry) {
			return true, rd.corruptField(l, errPQLevels)
		}
		if v.DefinitionLevel() < l.dElem {
			return true, rd.rowErr(ErrParquetLog, pqIndex(l.field, i, -1), "null")
		}
		var x T
		if err := read(v, i, &x); err != nil {
			return true, err
		}
		out = append(out, x)
		if v, err = rd.listNext(l); err != nil {
			return true, err
		}
	}
	*dst = out
	return true, nil
}

// slates reads a list of lists of strings (a slates policy's slates) into
// dst, reusing its arrays. A null inner list or element is an error; an
// empty inner list is kept (the spec's reader judges it).
func (rd *pqReader) slates(l *pqLeaf, dst *[][]string) (bool, error) {
	v, present, null, err := rd.listHead(l, false)
	if err != nil || !present || null {
		if null {
			*dst = nil // a null list is nil; a null struct's are not read
		}
		return present, err
	}
	out := (*dst)[:0]
	if out == nil {
		out = make([][]string, 0, 8)
	}
	i, j := -1, 0
	for v != nil {
		switch r := v.RepetitionLevel(); {
		case i < 0 || r == l.rep1: // a new slate
			if i >= 0 && v.DefinitionLevel() < l.dEntry {
				return true, rd.corruptField(l, errPQLevels)
			}
			i, j = i+1, 0
			if v.DefinitionLevel() < l.dElem {
				return true, rd.rowErr(ErrParquetLog, pqIndex(l.field, i, -1), "null")
			}
			if len(out) < cap(out) && out[:i+1][i] != nil {
				out = out[:i+1]
				out[i] = out[i][:0]
			} else {
				out = append(out, make([]string, 0, 4))
			}
		case r == l.rep2 && j > 0 && v.DefinitionLevel() >= l.dEntry2: // the slate's next document
		default:
			return true, rd.corruptField(l, errPQLevels)
		}
		if d := v.DefinitionLevel(); d >= l.dEntry2 {
			if d < l.dElem2 {
				return true, rd.rowErr(ErrParquetLog, pqIndex(l.field, i, j), "null")
			}
			var s string
			if err := rd.value(l, v, l.field, i, j, &s, nil); err != nil {
				return true, err
			}
			out[i] = append(out[i], s)
			j++
		}
		if v, err = rd.listNext(l); err != nil {
			return true, err
		}
	}
	*dst = out
	return true, nil
}
