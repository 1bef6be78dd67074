package data

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ReadJSONLog streams a JSON-lines log (.jsonl, or gzip-compressed
// .jsonl.gz: the compression is detected by its magic bytes, as for every
// log), one impression a line (LogRow's shape), calling fn with each row
// and its 1-based line number. Blank lines are skipped; a line may be up
// to 64 MiB long, as in every reader. The row and its slices are reused:
// fn must copy what it keeps. Every row is checked (CheckLogRow); an error
// names the file, the line and the field, e.g. `log.jsonl:12: field
// policy.scores[3]: ...`. A file without a row is an error.
func ReadJSONLog(path string, fn func(line int64, r *LogRow) error) error {
	r, c, err := openSlateFile(path)
	if err != nil {
		return fmt.Errorf("open JSON-lines log: %w", err)
	}
	defer c.Close()
	return readJSONLog(r, path, fn)
}

func readJSONLog(r io.Reader, name string, fn func(line int64, r *LogRow) error) error {
	lr := newLineReader(r, name)
	var (
		p   jsonParser
		row LogRow
		n   int64
	)
	for {
		line, err := lr.readLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if isBlank(line) {
			continue
		}
		if err := p.row(line, &row); err != nil {
			return rowParseError(name, int64(lr.line), err)
		}
		if err := CheckLogRow(name, int64(lr.line), &row); err != nil {
			return err
		}
		n++
		if err := fn(int64(lr.line), &row); err != nil {
			return err
		}
	}
	if n == 0 {
		return lr.fileErr(ErrNoImpressions, "no impression (one JSON object a line): nothing to estimate from")
	}
	return nil
}

func isBlank(line []byte) bool {
	for _, c := range line {
		if !isSpace(c) && c != '\r' {
			return false
		}
	}
	return true
}

// rowParseError turns a decoding or check error into a *ParseError naming
// file, line and field.
func rowParseError(file string, line int64, err error) error {
	var je *jsonErr
	if !errors.As(err, &je) {
		return err
	}
	pe := &ParseError{File: file, Line: int(line), Name: je.field, Err: errorf(je.kind, "%s", je.msg)}
	return pe
}

// EachLogRow streams a log with a policy in every row, chosen by its
// files' extension: .jsonl and .jsonl.gz (ReadJSONLog), .parquet
// (ReadParquetLog). The log may be many files (LogFiles: a list, a glob, a
// folder of Parquet parts), read in order, every one a row log. n is the
// row's line (JSON lines) or 1-based row (Parquet) in its file, as its
// errors name it; an error fn returns naming the log as a whole names the
// file instead.
func EachLogRow(path string, fn func(n int64, r *LogRow) error) error {
	files, err := LogFiles(path)
	if err != nil {
		return err
	}
	for _, file := range files {
		err := eachFileRow(file, func(n int64, r *LogRow) error {
			err := fn(n, r)
			if pe, ok := err.(*ParseError); ok && pe.File == path && file != path {
				pe.File = file
			}
			return err
		})
		if err != nil {
			return inUnits(err)
		}
	}
	return nil
}

// inUnits marks err, when it is a row log's error about one row, with
// what its Line counts (rowUnit): the row checks both formats share
// (CheckLogRow, the row log's passes) number a Parquet log's rows as lines.
func inUnits(err error) error {
	var pe *ParseError
	if errors.As(err, &pe) && pe.Unit == "" && pe.Line > 0 {
		pe.Unit = rowUnit(pe.File)
	}
	return err
}

// rowUnit is what a row log's Line counts: "row" in a Parquet log, whose
// rows have no lines, "" (lines) in JSON lines. path may name many files
// (LogFiles), all of one format.
func rowUnit(path string) string {
	if strings.HasSuffix(firstLogFile(path), ".parquet") {
		return "row"
	}
	return ""
}

// firstLogFile is the first file of a log of many files (LogFiles), which
// decides its format; path itself when it does not expand.
func firstLogFile(path string) string {
	if files, err := LogFiles(path); err == nil && len(files) > 0 {
		return files[0]
	}
	return path
}

// eachFileRow is EachLogRow on one file.
func eachFileRow(path string, fn func(n int64, r *LogRow) error) error {
	switch {
	case strings.HasSuffix(path, ".parquet"):
		return ReadParquetLog(path, func(n int64, r *LogRow) error {
			if err := CheckLogRow(path, n, r); err != nil {
				return err
			}
			return fn(n, r)
		})
	case strings.HasSuffix(path, ".jsonl"), strings.HasSuffix(path, ".jsonl.gz"):
		return ReadJSONLog(path, fn)
	}
	return fmt.Errorf("%s: not a log with a policy per row (.jsonl, .jsonl.gz or .parquet): a log of many files is of one format", path)
}

// IsRowLog reports whether path names a log with a policy in every row by
// its extension (.jsonl, .jsonl.gz, .parquet), rather than a slate log; a
// log of many files (LogFiles) by its first file's.
func IsRowLog(path string) bool {
	path = firstLogFile(path)
	for _, ext := range []string{".jsonl", ".jsonl.gz", ".parquet"} {
		if strings.HasSuffix(path, ext) {
			return true
		}
	}
	return false
}

// CheckLogRow checks what a row says on its own, the same rules for every
// format (JSON lines, Parquet): context, slate and reward are present; ids
// are non-empty UTF-8 without control characters (badDocID; a context may
// hold spaces and commas but no control character); a slate does not
// repeat a document; numbers are finite; a policy's spec is one of policy
// files' (a target's may be rank), its candidates distinct, scores given
// for pl only (one per candidate), slates and probs for slates only (as
// many probabilities, each in (0, 1], summing to 1 within 1e-9, each
// slate's documents distinct candidates). n is the line or row, as errors
// name it. What needs the log's slots or a dataset (slate lengths,
// documents of the data) is checked where those are known.
func CheckLogRow(file string, n int64, r *LogRow) error {
	fail := func(field string, kind error, format string, args ...any) error {
		return &ParseError{File: file, Line: int(n), Name: field, Err: errorf(kind, format, args...)}
	}
	switch {
	case r.Context == "":
		return fail("context", ErrRow, "missing or empty: every row needs context, slate and reward")
	case r.Slate == nil:
		return fail("slate", ErrRow, "missing: every row needs context, slate and reward")
	case r.Reward == nil:
		return fail("reward", ErrRow, "missing: every row needs context, slate and reward")
	case len(r.Slate) == 0:
		return fail("slate", ErrSlate, "empty: a slate shows at least one document")
	case math.IsInf(*r.Reward, 0) || math.IsNaN(*r.Reward):
		return fail("reward", ErrNumber, "not a finite number")
	}
	if why := badContext(r.Context); why != "" {
		return fail("context", ErrQID, "%s", why)
	}
	if f, why := badIDList("slate", r.Slate); why != "" {
		return fail(f, ErrSlate, "%s", why)
	}
	for _, x := range []struct {
		name string
		p    *RowPolicy
	}{{"policy", r.Policy}, {"target", r.Target}} {
		if x.p == nil {
			continue
		}
		if d := x.p.check(x.name, x.name == "target"); d != nil {
			return fail(d.field, d.kind, "%s", d.why)
		}
	}
	return nil
}

// badContext says what makes a row's context unusable, or "".
func badContext(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return fmt.Sprintf("contains the control character %#02x", c)
		}
	}
	if !utf8.ValidString(s) {
		return "not valid UTF-8"
	}
	return ""
}

// badIDList checks a list of document ids (badDocID, no repeats); it
// returns the offending element's field and why, or "" when fine.
func badIDList(field string, ids []string) (string, string) {
	for i, id := range ids {
		if why := badDocID([]byte(id)); why != "" {
			return elem(field, i), why
		}
		for j := range i {
			if ids[j] == id {
				return elem(field, i), fmt.Sprintf("document %q repeats %s", shortenString(id), elem(field, j))
			}
		}
	}
	return "", ""
}

func elem(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }

// SpecBase returns a policy spec's base: SPEC of eps:E,SPEC, else spec.
func SpecBase(spec string) string {
	if rest, ok := strings.CutPrefix(spec, "eps:"); ok {
		if _, b, ok := strings.Cut(rest, ","); ok {
			return b
		}
	}
	return spec
}

// check validates a row's policy (name: policy or target), returning the
// field, kind and why of its first defect ("" when fine).
func (p *RowPolicy) check(name string, target bool) *rowDefect {
	base := SpecBase(p.Spec)
	pl, slates := strings.HasPrefix(base, "pl:"), base == "slates"
	switch {
	case p.Spec == "":
		return &rowDefect{name + ".spec", ErrPolicy, "missing or empty"}
	case base == "rank" && target && base == p.Spec:
	case base == "rank" && target:
		return &rowDefect{name + ".spec", ErrPolicy, "rank is deterministic: it has no eps: mixture"}
	case !pl && !slates && base != "uniform" && !strings.HasPrefix(base, "pa:"):
		kinds := "uniform, pa:ALPHA, pl:TAU, slates or eps:E,SPEC"
		if target {
			kinds = "uniform, pa:ALPHA, pl:TAU, slates, rank or eps:E,SPEC"
		}
		return &rowDefect{name + ".spec", ErrPolicy, fmt.Sprintf("%q: want %s", shortenString(p.Spec), kinds)}
	case len(p.Candidates) == 0:
		return &rowDefect{name + ".candidates", ErrPolicy, "missing or empty"}
	}
	if f, why := badIDList(name+".candidates", p.Candidates); why != "" {
		return &rowDefect{f, ErrSlate, why}
	}
	switch {
	case pl && p.Scores == nil:
		return &rowDefect{name + ".scores", ErrPolicy, fmt.Sprintf("missing: spec %s needs one score per candidate", p.Spec)}
	case pl && len(p.Scores) != len(p.Candidates):
		return &rowDefect{name + ".scores", ErrPolicy, fmt.Sprintf("%d scores for %d candidates", len(p.Scores), len(p.Candidates))}
	case !pl && p.Scores != nil:
		return &rowDefect{name + ".scores", ErrPolicy, fmt.Sprintf("given with spec %s: scores are for pl only", p.Spec)}
	case !slates && (p.Slates != nil || p.Probs != nil):
		return &rowDefect{name + ".slates", ErrPolicy, fmt.Sprintf("slates or probs given with spec %s: they are for slates only", p.Spec)}
	case slates:
		return p.checkSlates(name)
	}
	return nil
}

// checkSlates checks a slates policy's slates and probs.
func (p *RowPolicy) checkSlates(name string) *rowDefect {
	switch {
	case len(p.Slates) == 0:
		return &rowDefect{name + ".slates", ErrPolicy, "missing or empty: spec slates lists its slates"}
	case len(p.Probs) != len(p.Slates):
		return &rowDefect{name + ".probs", ErrPolicy, fmt.Sprintf("%d probabilities for %d slates", len(p.Probs), len(p.Slates))}
	}
	total := 0.0
	for k, s := range p.Slates {
		f := elem(name+".slates", k)
		if len(s) == 0 {
			return &rowDefect{f, ErrSlate, "an empty slate"}
		}
		for i, d := range s {
			if !containsString(p.Candidates, d) {
				return &rowDefect{elem(f, i), ErrSlate, fmt.Sprintf("document %q is not one of the candidates", shortenString(d))}
			}
			for j := range i {
				if s[j] == d {
					return &rowDefect{elem(f, i), ErrSlate, fmt.Sprintf("document %q repeats %s", shortenString(d), elem(f, j))}
				}
			}
		}
		if x := p.Probs[k]; !(x > 0 && x <= 1) {
			return &rowDefect{elem(name+".probs", k), ErrNumber, fmt.Sprintf("probability %v is not in (0, 1]", x)}
		}
		total += p.Probs[k]
	}
	if math.Abs(total-1) > 1e-9 {
		return &rowDefect{name + ".probs", ErrPolicy, fmt.Sprintf("slate probabilities sum to %.12g, not 1 (within 1e-9)", total)}
	}
	return nil
}

// rowDefect is what is wrong with a row's policy: the field, the kind
// (one of the Err* values) and why.
type rowDefect struct {
	field string
	kind  error
	why   string
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
