package data

import (
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// The plan of a Parquet log: which leaf column holds which field of
// LogRow, how its values convert, and the definition and repetition
// levels that say, value by value, which node of the field's path is null
// or empty. It is built from the file's own schema, so columns may come in
// any order, a warehouse's extra columns are never read, and DuckDB's
// all-OPTIONAL schema and pyarrow's REQUIRED variants read alike.

// pqShape is the shape of a field: a single value, a list, or a list of
// lists (a policy's slates).
type pqShape uint8

const (
	pqScalar pqShape = iota
	pqList
	pqLists
)

// pqNum says how a leaf's physical values become a float64. Numbers may be
// DOUBLE, FLOAT, or integers (INT32, INT64, signed or unsigned, or a
// DECIMAL on them): a warehouse writes a click as an integer and a
// literal 0.42 as DECIMAL(3,2). Every conversion gives the float64 that
// the number's decimal text reads as (float64 of an integer and a
// decimal's digits read by strconv are both correctly rounded), so a
// Parquet log and its JSON-lines twin hold the same numbers.
type pqNum uint8

const (
	pqString pqNum = iota // not a number: BYTE_ARRAY, plain or STRING/ENUM
	pqDouble
	pqFloat
	pqInt32
	pqUint32
	pqInt64
	pqUint64
	pqDecimal32
	pqDecimal64
)

// pqLeaf is one leaf column of the plan. The d* fields are the definition
// levels from which each node of the field's path is present (a REQUIRED
// node's equals its parent's, so it is never found null): the enclosing
// policy/target struct (0 at top level), the field, an entry of the outer
// list, the outer element (for lists of lists, the inner list), an entry of
// the inner list and its element.
type pqLeaf struct {
	col   int    // index of the leaf column (its column chunk in a row group)
	cur   int    // index of its cursor in pqReader.cursors
	field string // the field's name in errors: "slate", "policy.scores"
	shape pqShape
	num   pqNum
	scale int32 // a DECIMAL's scale

	dStruct, dField, dEntry, dElem, dEntry2, dElem2 int
	// rep1 and rep2 are the repetition levels of outer and inner entries.
	rep1, rep2 int
}

// pqPlan is the plan of a whole file: the three required columns and the
// optional policy and target structs.
type pqPlan struct {
	context, slate, reward pqLeaf
	policy, target         *pqStructPlan // nil when the file has no such column
}

// pqStructPlan is a policy/target struct column: spec decides whether
// the struct is null (every other field must agree); absent fields are
// nil.
type pqStructPlan struct {
	spec                              pqLeaf
	candidates, scores, slates, probs *pqLeaf
}

// pqLevels carries the definition and repetition levels of a node's parent
// down the schema.
type pqLevels struct{ def, rep int }

// down returns the levels of child node n below l.
func (l pqLevels) down(n *parquet.Column) pqLevels {
	switch {
	case n.Repeated():
		return pqLevels{l.def + 1, l.rep + 1}
	case n.Optional():
		return pqLevels{l.def + 1, l.rep}
	}
	return l
}

// pqSchemaError is an error about the file's schema (not a row).
func pqSchemaError(path, format string, args ...any) error {
	return &ParseError{File: path, Err: errorf(ErrParquetLog, format, args...)}
}

// pqChild returns the child of c named name, nil when there is none, and
// an error when there are several.
func pqChild(path string, c *parquet.Column, name, what string) (*parquet.Column, error) {
	var found *parquet.Column
	for _, k := range c.Columns() {
		if k.Name() == name {
			if found != nil {
				return nil, pqSchemaError(path, "column %s%s appears twice", what, name)
			}
			found = k
		}
	}
	return found, nil
}

// pqBuildPlan reads the plan from the file's schema: context, slate and
// reward are required columns, policy and target optional structs whose
// fields are spec (required) and candidates, scores, slates and probs;
// other top-level columns are ignored, other struct fields refused.
func pqBuildPlan(path string, root *parquet.Column) (*pqPlan, error) {
	p := &pqPlan{}
	top := []struct {
		name  string
		leaf  *pqLeaf
		shape pqShape
		num   bool
	}{{"context", &p.context, pqScalar, false}, {"slate", &p.slate, pqList, false}, {"reward", &p.reward, pqScalar, true}}
	for _, t := range top {
		c, err := pqChild(path, root, t.name, "")
		if err != nil {
			return nil, err
		}
		if c == nil {
			return nil, pqSchemaError(path, "column %s missing (a log needs context, slate and reward)", t.name)
		}
		if err := pqPlanLeaf(path, c, t.name, t.shape, t.num, pqLevels{}, t.leaf); err != nil {
			return nil, err
		}
	}
	for _, name := range []string{"policy", "target"} {
		c, err := pqChild(path, root, name, "")
		if err != nil {
			return nil, err
		}
		if c == nil {
			continue
		}
		sp, err := pqPlanStruct(path, c, name)
		if err != nil {
			return nil, err
		}
		if name == "policy" {
			p.policy = sp
		} else {
			p.target = sp
		}
	}
	return p, nil
}

// pqPlanStruct plans a policy/target struct column.
func pqPlanStruct(path string, c *parquet.Column, name string) (*pqStructPlan, error) {
	if c.Leaf() || c.Repeated() || pqIsList(c) {
		return nil, pqSchemaError(path, "column %s: %s, want a struct (spec, candidates, scores, slates, probs)", name, pqDescribe(c))
	}
	lv := pqLevels{}.down(c)
	sp := &pqStructPlan{}
	var haveSpec bool
	for _, f := range c.Columns() {
		var leaf **pqLeaf
		shape, num := pqList, false
		switch f.Name() {
		case "spec":
			if haveSpec {
				return nil, pqSchemaError(path, "column %s.spec appears twice", name)
			}
			haveSpec = true
			if err := pqPlanLeaf(path, f, name+".spec", pqScalar, false, lv, &sp.spec); err != nil {
				return nil, err
			}
			continue
		case "candidates":
			leaf = &sp.candidates
		case "scores":
			leaf, num = &sp.scores, true
		case "slates":
			leaf, shape = &sp.slates, pqLists
		case "probs":
			leaf, num = &sp.probs, true
		default:
			return nil, pqSchemaError(path, "column %s.%s: unknown field (a %s has spec, candidates, scores, slates, probs)", name, f.Name(), name)
		}
		if *leaf != nil {
			return nil, pqSchemaError(path, "column %s.%s appears twice", name, f.Name())
		}
		*leaf = &pqLeaf{}
		if err := pqPlanLeaf(path, f, name+"."+f.Name(), shape, num, lv, *leaf); err != nil {
			return nil, err
		}
	}
	if !haveSpec {
		return nil, pqSchemaError(path, "column %s.spec missing (a %s needs its spec)", name, name)
	}
	return sp, nil
}

// pqIsList reports whether group c is annotated as a LIST.
func pqIsList(c *parquet.Column) bool {
	if c.Leaf() {
		return false
	}
	lt := c.Type().LogicalType()
	if lt != nil {
		if _, ok := lt.Value.(*format.ListType); ok {
			return true
		}
	}
	ct := c.Type().ConvertedType()
	return ct != nil && *ct == deprecated.List
}

// pqListElement returns the element node of LIST column c and the levels
// of its entry (the repeated node): the standard 3-level layout (`list`
// then `element`, as DuckDB and pyarrow write it, or `item`: any names),
// or the legacy 2-level one (a repeated leaf, whose elements cannot be
// null).
func pqListElement(path string, c *parquet.Column, field string, lv pqLevels) (*parquet.Column, pqLevels, error) {
	kids := c.Columns()
	if !pqIsList(c) || c.Repeated() || len(kids) != 1 || !kids[0].Repeated() {
		return nil, lv, pqSchemaError(path, "column %s: %s, want a LIST", field, pqDescribe(c))
	}
	rep := kids[0]
	entry := lv.down(rep)
	if rep.Leaf() {
		return rep, entry, nil
	}
	if len(rep.Columns()) != 1 || rep.Columns()[0].Repeated() {
		return nil, lv, pqSchemaError(path, "column %s: a LIST whose repeated group has %d fields, want one element", field, len(rep.Columns()))
	}
	return rep.Columns()[0], entry, nil
}

// pqPlanLeaf plans field c (a leaf, a LIST of leaves, or a LIST of LISTs
// of leaves, as shape says) whose parent has levels lv, into l.
func pqPlanLeaf(path string, c *parquet.Column, field string, shape pqShape, num bool, lv pqLevels, l *pqLeaf) error {
	*l = pqLeaf{field: field, shape: shape, dStruct: lv.def}
	if c.Repeated() {
		return pqSchemaError(path, "column %s: a repeated field, want a single value or a LIST", field)
	}
	lv = lv.down(c)
	l.dField = lv.def
	leaf := c
	if shape != pqScalar {
		el, entry, err := pqListElement(path, c, field, lv)
		if err != nil {
			return err
		}
		l.dEntry, l.rep1 = entry.def, entry.rep
		lv = entry
		if el != c.Columns()[0] { // 3-level: the element node may be optional
			lv = lv.down(el)
		}
		l.dElem = lv.def
		leaf = el
		if shape == pqLists {
			el2, entry2, err := pqListElement(path, el, field+"[]", lv)
			if err != nil {
				return err
			}
			l.dEntry2, l.rep2 = entry2.def, entry2.rep
			lv = entry2
			if el2 != el.Columns()[0] {
				lv = lv.down(el2)
			}
			l.dElem2 = lv.def
			leaf = el2
		}
	}
	if !leaf.Leaf() {
		return pqSchemaError(path, "column %s: %s, want %s", field, pqDescribe(leaf), pqWant(shape, num))
	}
	if leaf.MaxDefinitionLevel() != lv.def || leaf.MaxRepetitionLevel() != lv.rep {
		return pqSchemaError(path, "column %s: levels %d/%d, want %d/%d (corrupt schema?)", field, leaf.MaxDefinitionLevel(), leaf.MaxRepetitionLevel(), lv.def, lv.rep)
	}
	l.col = leaf.Index()
	var ok bool
	l.num, l.scale, ok = pqLeafType(leaf.Type(), num)
	if !ok {
		return pqSchemaError(path, "column %s: %s, want %s", field, pqDescribe(leaf), pqWant(shape, num))
	}
	return nil
}

// pqLeafType says how values of type t convert, and whether t is
// acceptable: strings are BYTE_ARRAY (plain, STRING or ENUM); numbers are
// DOUBLE, FLOAT, and INT32/INT64 plain, INT(bits, signed or not) or
// DECIMAL.
func pqLeafType(t parquet.Type, num bool) (pqNum, int32, bool) {
	var lv format.LogicalTypeValue
	if lt := t.LogicalType(); lt != nil {
		lv = lt.Value
	}
	if !num {
		switch lv.(type) {
		case nil, *format.StringType, *format.EnumType:
			return pqString, 0, t.Kind() == parquet.ByteArray
		}
		return pqString, 0, false
	}
	kind := t.Kind()
	switch lt := lv.(type) {
	case nil:
		switch kind {
		case parquet.Double:
			return pqDouble, 0, true
		case parquet.Float:
			return pqFloat, 0, true
		case parquet.Int32:
			return pqInt32, 0, true
		case parquet.Int64:
			return pqInt64, 0, true
		}
	case *format.IntType:
		switch {
		case kind == parquet.Int32 && lt.IsSigned:
			return pqInt32, 0, true
		case kind == parquet.Int32:
			return pqUint32, 0, true
		case kind == parquet.Int64 && lt.IsSigned:
			return pqInt64, 0, true
		case kind == parquet.Int64:
			return pqUint64, 0, true
		}
	case *format.DecimalType:
		switch kind {
		case parquet.Int32:
			return pqDecimal32, lt.Scale, true
		case parquet.Int64:
			return pqDecimal64, lt.Scale, true
		}
	}
	return 0, 0, false
}

// pqWant names what a field's column should be.
func pqWant(shape pqShape, num bool) string {
	s := "a string (BYTE_ARRAY, plain, STRING or ENUM)"
	if num {
		s = "a number (DOUBLE, FLOAT, INT32 or INT64, or a DECIMAL on these)"
	}
	switch shape {
	case pqList:
		return "a LIST of " + s[2:]
	case pqLists:
		return "a LIST of LISTs of " + s[2:]
	}
	return s
}

// pqDescribe names the type of column c as the file declares it:
// `BYTE_ARRAY (STRING)`, `DOUBLE`, `a group (LIST)`.
func pqDescribe(c *parquet.Column) string {
	if !c.Leaf() {
		if pqIsList(c) {
			return "a group (LIST)"
		}
		return "a group (struct)"
	}
	t := c.Type()
	kind, name := t.Kind().String(), t.String()
	if name == kind || name == "" {
		return kind
	}
	return kind + " (" + name + ")"
}
