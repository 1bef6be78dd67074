package data

import (
	"errors"
	"fmt"
)

// Kinds of bad input, for errors.Is. The error a reader returns is a
// *ParseError whose Err wraps one of these with the details.
var (
	// ErrLabel: the label is not an integer or lies outside 0..MaxLabel.
	ErrLabel = errors.New("bad label")
	// ErrQID: qid: is missing, empty, or given where a query file groups the lines.
	ErrQID = errors.New("bad qid")
	// ErrQIDReappears: a qid's lines are not contiguous.
	ErrQIDReappears = errors.New("qid reappears")
	// ErrFeature: a feature is not index:value, or its index is not an
	// integer, < 1, not increasing, or above the feature count.
	ErrFeature = errors.New("bad feature")
	// ErrValue: a feature value is not a finite float32 number.
	ErrValue = errors.New("value not a finite number")
	// ErrTruncated: the last line has no newline and is incomplete.
	ErrTruncated = errors.New("truncated last line")
	// ErrGroups: the query file's group sizes do not match the data file.
	ErrGroups = errors.New("query file does not match")
	// ErrEmpty: the file holds no documents.
	ErrEmpty = errors.New("no documents")
	// ErrTooLarge: the dense feature matrix would be unreasonably large.
	ErrTooLarge = errors.New("dense feature matrix too large")
	// ErrDocID (--doc-ids comment): a document line has no id in its
	// comment, an empty one, one with a ',' (a slate log's separator), or
	// the id of another line of its query.
	ErrDocID = errors.New("bad document id")
)

// ParseError reports bad input at a place in a file: the file name as given,
// the 1-based line and the 1-based whitespace-separated field (the label is
// field 1, qid: field 2).
type ParseError struct {
	File  string
	Line  int    // 0 when the error concerns the whole file
	Field int    // 0 when the error concerns the whole line
	Token string // the field's text, shortened when long
	// Name, when not "", names the field instead of Field and Token: a
	// row log's `policy.scores[3]`.
	Name string
	Err  error
	// Unit names what Line counts when it is not a text line: "row" for
	// a Parquet log, whose rows have no line numbers. Empty for lines.
	Unit string
}

// Error renders the error as `train.txt:12: field 3 ("5:abc"): value not a
// finite number`, or with a Unit as `log.parquet: row 17: field
// policy.scores[3]: null` (the field named in Err).
func (e *ParseError) Error() string {
	unit := e.Unit
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	case unit != "" && e.Name != "":
		return fmt.Sprintf("%s: %s %d: field %s: %v", e.File, unit, e.Line, e.Name, e.Err)
	case unit != "":
		return fmt.Sprintf("%s: %s %d: %v", e.File, unit, e.Line, e.Err)
	case e.Name != "":
		return fmt.Sprintf("%s:%d: field %s: %v", e.File, e.Line, e.Name, e.Err)
	case e.Field == 0:
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s:%d: field %d (%q): %v", e.File, e.Line, e.Field, e.Token, e.Err)
}

// Unwrap returns the underlying error, one of the Err* kinds.
func (e *ParseError) Unwrap() error { return e.Err }

// kindError is an error with its own message that still matches its kind
// (one of the Err* values) under errors.Is.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

// Errorf returns an error with the given message that matches kind (one of
// the Err* values) under errors.Is: for callers that check what the readers
// cannot (e.g. a policy file's specs) and report it in a *ParseError.
func Errorf(kind error, format string, args ...any) error { return errorf(kind, format, args...) }

func errorf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// shorten keeps error messages readable when a field is huge (a binary file
// read by mistake has "fields" of megabytes).
func shorten(tok []byte) string {
	const max = 40
	if len(tok) > max {
		return string(tok[:max]) + "…"
	}
	return string(tok)
}
