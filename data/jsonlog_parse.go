package data

import (
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonParser decodes one line of a JSON-lines log into a LogRow without
// reflection: the schema is fixed, so a hand-written decoder can refuse
// what encoding/json accepts silently (duplicate keys, unknown keys
// inside a policy) and name the field of every error, reusing the row's
// slices from line to line.
type jsonParser struct {
	b    []byte
	i    int
	key  []byte // the current key, unescaped
	sbuf []byte // an escaped string's bytes
	// reward, pol and tgt back the row's pointers, reused line to line.
	reward   float64
	slate    []string
	pol, tgt RowPolicy
	unknown  []string // top-level keys the schema does not name, for duplicates
}

// jsonErr is a decoding error at a field (a path such as policy.scores[3];
// "" for the row itself).
type jsonErr struct {
	field string
	kind  error
	msg   string
}

func (e *jsonErr) Error() string { return e.msg }

func (p *jsonParser) fail(field string, kind error, msg string) error {
	return &jsonErr{field: field, kind: kind, msg: msg}
}

// maxJSONDepth bounds the nesting of the values a row carries beside the
// schema's (skipped), so that a hostile line cannot exhaust the stack.
const maxJSONDepth = 512

// errSyntax is the kind of a line that is not JSON.
var errSyntax = errors.New("bad JSON")

func (p *jsonParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, 0 at the end of the line.
func (p *jsonParser) peek() byte {
	p.ws()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *jsonParser) expect(field string, c byte) error {
	if p.peek() != c {
		return p.syntax(field, "want '"+string(c)+"'")
	}
	p.i++
	return nil
}

// syntax is a JSON syntax error at the current byte.
func (p *jsonParser) syntax(field, want string) error {
	at := "end of line"
	if p.i < len(p.b) {
		at = strconv.Quote(shorten(p.b[p.i:min(p.i+1, len(p.b))]))
	}
	return p.fail(field, errSyntax, "not JSON at byte "+strconv.Itoa(p.i+1)+" ("+at+"): "+want)
}

// row decodes the line b into r.
func (p *jsonParser) row(b []byte, r *LogRow) error {
	p.b, p.i = b, 0
	r.Context, r.Slate, r.Reward, r.Policy, r.Target = "", nil, nil, nil, nil
	p.unknown = p.unknown[:0]
	var seen [5]bool
	names := [5]string{"context", "slate", "reward", "policy", "target"}
	err := p.object("", func() error {
		k := -1
		for i, n := range names {
			if string(p.key) == n {
				k = i
			}
		}
		if k < 0 {
			return p.unknownKey()
		}
		if seen[k] {
			return p.fail(names[k], ErrRow, "key "+names[k]+" given twice")
		}
		seen[k] = true
		return p.field(k, r)
	})
	if err != nil {
		return err
	}
	if p.peek() != 0 {
		return p.syntax("", "want the end of the line after the row's object")
	}
	return nil
}

// unknownKey skips the value of a top-level key the schema does not name
// (a warehouse export carries its own columns), refusing it twice.
func (p *jsonParser) unknownKey() error {
	k := string(p.key)
	for _, u := range p.unknown {
		if u == k {
			return p.fail(k, ErrRow, "key "+strconv.Quote(k)+" given twice")
		}
	}
	p.unknown = append(p.unknown, k)
	return p.skip(k, 0)
}

// field decodes the value of the row's k-th key.
func (p *jsonParser) field(k int, r *LogRow) error {
	var err error
	switch k {
	case 0:
		if p.peek() == 'n' {
			return p.null("context")
		}
		r.Context, err = p.str("context")
	case 1:
		if p.peek() == 'n' {
			return p.null("slate")
		}
		if p.slate == nil {
			p.slate = make([]string, 0, 8) // present, if empty
		}
		p.slate, err = p.strList("slate", p.slate[:0])
		r.Slate = p.slate
	case 2:
		if p.peek() == 'n' {
			return p.null("reward")
		}
		if p.reward, err = p.num("reward"); err == nil {
			r.Reward = &p.reward
		}
	case 3:
		r.Policy, err = p.policy("policy", &p.pol)
	case 4:
		r.Target, err = p.policy("target", &p.tgt)
	}
	return err
}

// null reads a null where the field is required: it is then missing,
// which the row's check reports.
func (p *jsonParser) null(field string) error { return p.literal(field, "null") }

// policy decodes a policy object into pol (nil for null).
func (p *jsonParser) policy(name string, pol *RowPolicy) (*RowPolicy, error) {
	if p.peek() == 'n' {
		return nil, p.literal(name, "null")
	}
	pol.Spec, pol.Candidates, pol.Scores, pol.Probs = "", pol.Candidates[:0], nil, nil
	pol.Slates = pol.Slates[:0]
	scores, probs, slates := pol.Scores[:0], pol.Probs[:0], false
	var seen [5]bool
	keys := [5]string{"spec", "candidates", "scores", "slates", "probs"}
	err := p.object(name, func() error {
		k := -1
		for i, n := range keys {
			if string(p.key) == n {
				k = i
			}
		}
		f := name + "." + string(p.key)
		if k < 0 {
			return p.fail(f, ErrRow, "unknown key "+strconv.Quote(shorten(p.key))+" (a policy has spec, candidates, scores, slates and probs)")
		}
		if seen[k] {
			return p.fail(f, ErrRow, "key "+keys[k]+" given twice")
		}
		seen[k] = true
		isNull := p.peek() == 'n'
		if isNull {
			return p.literal(f, "null")
		}
		var err error
		switch k {
		case 0:
			pol.Spec, err = p.str(f)
		case 1:
			pol.Candidates, err = p.strList(f, pol.Candidates)
		case 2:
			scores, err = p.numList(f, scores)
			pol.Scores = scores
		case 3:
			slates = true
			err = p.slates(f, pol)
		case 4:
			probs, err = p.numList(f, probs)
			pol.Probs = probs
		}
		return err
	})
	if !slates {
		pol.Slates = nil
	}
	return pol, err
}

// slates decodes a list of lists of ids into pol.Slates, reusing its
// inner slices.
func (p *jsonParser) slates(f string, pol *RowPolicy) error {
	full := pol.Slates[:cap(pol.Slates)]
	n := 0
	err := p.array(f, func(i int) error {
		var inner []string
		if n < len(full) {
			inner = full[n][:0]
		}
		s, err := p.strList(f+"["+strconv.Itoa(i)+"]", inner)
		if n < len(full) {
			full[n] = s
		} else {
			full = append(full, s)
		}
		n++
		return err
	})
	pol.Slates = full[:n]
	return err
}

// object reads {"key": value, ...}, calling each with p.key set and the
// value next.
func (p *jsonParser) object(field string, each func() error) error {
	if err := p.expect(field, '{'); err != nil {
		return err
	}
	if p.peek() == '}' {
		p.i++
		return nil
	}
	for {
		if p.peek() != '"' {
			return p.syntax(field, "want a key")
		}
		k, err := p.raw(field, p.key[:0])
		if err != nil {
			return err
		}
		p.key = k
		if err := p.expect(field, ':'); err != nil {
			return err
		}
		if err := each(); err != nil {
			return err
		}
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			return nil
		default:
			return p.syntax(field, "want ',' or '}'")
		}
	}
}

// array reads [v, ...], calling each with the element's index.
func (p *jsonParser) array(field string, each func(i int) error) error {
	if err := p.expect(field, '['); err != nil {
		return err
	}
	if p.peek() == ']' {
		p.i++
		return nil
	}
	for i := 0; ; i++ {
		if err := each(i); err != nil {
			return err
		}
		switch p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			return nil
		default:
			return p.syntax(field, "want ',' or ']'")
		}
	}
}

func (p *jsonParser) strList(field string, dst []string) ([]string, error) {
	err := p.array(field, func(i int) error {
		s, err := p.str(field)
		dst = append(dst, s)
		return atElem(err, i)
	})
	return dst, err
}

func (p *jsonParser) numList(field string, dst []float64) ([]float64, error) {
	err := p.array(field, func(i int) error {
		x, err := p.num(field)
		dst = append(dst, x)
		return atElem(err, i)
	})
	return dst, err
}

// atElem names element i of the list in a decoding error at the list's
// field (the name is built only on error: a row's lists have hundreds of
// elements).
func atElem(err error, i int) error {
	if e, ok := err.(*jsonErr); ok {
		e.field = elem(e.field, i)
	}
	return err
}

// str reads a JSON string.
func (p *jsonParser) str(field string) (string, error) {
	if p.peek() != '"' {
		return "", p.fail(field, ErrRow, "not a string")
	}
	start := p.i + 1
	for j := start; j < len(p.b); j++ {
		c := p.b[j]
		if c == '"' {
			p.i = j + 1
			return string(p.b[start:j]), nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	b, err := p.raw(field, p.sbuf[:0])
	p.sbuf = b
	return string(b), err
}

// raw reads a JSON string at p.i, unescaped, appended to dst.
func (p *jsonParser) raw(field string, dst []byte) ([]byte, error) {
	p.i++ // the opening quote
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return dst, nil
		case c < 0x20:
			return dst, p.fail(field, errSyntax, "a control character inside a string (JSON escapes it)")
		case c != '\\':
			dst = append(dst, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.b) {
			break
		}
		e := p.b[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, err := p.unicode(field)
			if err != nil {
				return dst, err
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return dst, p.fail(field, errSyntax, "bad escape \\"+string(e)+" in a string")
		}
	}
	return dst, p.fail(field, errSyntax, "unterminated string")
}

// unicode reads the 4 hex digits after \u (and a low surrogate's \uXXXX
// after a high one).
func (p *jsonParser) unicode(field string) (rune, error) {
	hex4 := func() (rune, bool) {
		if p.i+4 > len(p.b) {
			return 0, false
		}
		v, err := strconv.ParseUint(string(p.b[p.i:p.i+4]), 16, 16)
		if err != nil {
			return 0, false
		}
		p.i += 4
		return rune(v), true
	}
	r, ok := hex4()
	if !ok {
		return 0, p.fail(field, errSyntax, "bad \\u escape in a string")
	}
	if utf16.IsSurrogate(r) {
		if p.i+2 <= len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
			p.i += 2
			r2, ok := hex4()
			if ok {
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					return d, nil
				}
			}
		}
		return 0, p.fail(field, errSyntax, "a \\u escape of a lone UTF-16 surrogate")
	}
	return r, nil
}

// num reads a JSON number, refusing one that overflows float64 (1e400):
// JSON has no NaN or infinity, and neither does a reward or score.
func (p *jsonParser) num(field string) (float64, error) { return p.number(field, false) }

// number reads a JSON number; with skip, only its syntax is checked (a
// column of the export's own may hold any number).
func (p *jsonParser) number(field string, skip bool) (float64, error) {
	p.ws()
	start, b := p.i, p.b
	j := start
	digits := func() int {
		k := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		return j - k
	}
	if j < len(b) && b[j] == '-' {
		j++
	}
	n := digits()
	ok := n > 0 && !(n > 1 && b[j-n] == '0')
	if ok && j < len(b) && b[j] == '.' {
		j++
		ok = digits() > 0
	}
	if ok && j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		ok = digits() > 0
	}
	if !ok {
		return 0, p.fail(field, ErrNumber, "not a JSON number")
	}
	p.i = j
	if skip {
		return 0, nil
	}
	x, err := strconv.ParseFloat(string(b[start:j]), 64)
	if err != nil {
		return 0, p.fail(field, ErrNumber, strconv.Quote(shorten(b[start:j]))+" is not a finite float64")
	}
	return x, nil
}

// literal reads the word w (true, false, null).
func (p *jsonParser) literal(field, w string) error {
	p.ws()
	if len(p.b)-p.i < len(w) || string(p.b[p.i:p.i+len(w)]) != w {
		return p.syntax(field, "want a value")
	}
	p.i += len(w)
	return nil
}

// skip reads any JSON value, checking its syntax.
func (p *jsonParser) skip(field string, depth int) error {
	if depth > maxJSONDepth {
		return p.fail(field, errSyntax, "values nested deeper than "+strconv.Itoa(maxJSONDepth))
	}
	switch p.peek() {
	case '{':
		return p.object(field, func() error { return p.skip(field, depth+1) })
	case '[':
		return p.array(field, func(int) error { return p.skip(field, depth+1) })
	case '"':
		_, err := p.raw(field, p.sbuf[:0])
		return err
	case 't':
		return p.literal(field, "true")
	case 'f':
		return p.literal(field, "false")
	case 'n':
		return p.literal(field, "null")
	}
	_, err := p.number(field, true)
	return err
}
