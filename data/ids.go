package data

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// The rules every reader of piopt's text files shares (slate logs, policy
// files, targets): what a document id may hold, how a number is spelled,
// how long a line may be and how a policy file's content is named.

// MaxSlots is the largest slate length a file's header may state: targets
// store slots in a byte. A header's slots= is checked against it before
// anything is allocated by it.
const MaxSlots = 255

// maxTextLine is the longest line piopt's text readers accept and its
// writers write: the LETOR reader's limit and a little more, so that every
// targets row fits (a qid and a document id come from one LETOR line; the
// row adds a slot and two numbers). Slate logs and policy files, whose
// lines name many documents, are refused at write time when a line would
// be longer.
const maxTextLine = maxLineBytes + 1<<10

// badDocID says what makes id unusable as a document's name, or "". An id
// is any UTF-8 text without control characters (C0, which holds tab, line
// ends, NUL and ESC, and DEL), spaces or ',' (which separates a slate's
// documents): a ':' or '=' in an id is read back by the last-separator
// rules of policy files (see splitLast).
func badDocID(id []byte) string {
	switch {
	case len(id) == 0:
		return "empty document id"
	case bytes.IndexByte(id, ',') >= 0:
		return "document id contains ',', which separates the documents of a slate log's slate"
	}
	for _, c := range id {
		switch {
		case isSpace(c) || c == '\n':
			return "document id contains a space, tab or line end"
		case c < 0x20 || c == 0x7f:
			return fmt.Sprintf("document id contains the control character %#02x", c)
		}
	}
	if !utf8.Valid(id) {
		return "document id is not valid UTF-8"
	}
	return ""
}

// splitLast cuts tok at the last sep: a policy file's `DOC:SCORE` and
// `DOC DOC ...=PROBABILITY` put the number after the last separator, since
// a number never holds ':' or '=', so an id may hold either.
func splitLast(tok []byte, sep byte) (before, after []byte, ok bool) {
	i := bytes.LastIndexByte(tok, sep)
	if i < 0 {
		return tok, nil, false
	}
	return tok[:i], tok[i+1:], true
}

// decimalSyntax reports whether s is spelled as every reader of piopt
// accepts a number: not with the Go-only spellings strconv would also
// take, hexadecimal ("0x1p-2") and digit-separating underscores. It is the
// one number syntax of the LETOR reader, slate logs, policy files and
// targets.
func decimalSyntax(s []byte) bool { return len(s) > 0 && !bytes.ContainsAny(s, "xX_") }

// parseFinite reads a finite decimal number (decimalSyntax), as rewards,
// scores, probabilities, targets and weights are written (strconv's
// shortest round-trip form).
func parseFinite(s []byte) (float64, bool) {
	if !decimalSyntax(s) {
		return 0, false
	}
	// ParseFloat copies s into its error, so the string may alias s.
	f, err := strconv.ParseFloat(unsafe.String(&s[0], len(s)), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// checkLineLength refuses to write a line (with its '\n') longer than
// the readers accept.
func checkLineLength(what string, line []byte) error {
	if len(line) > maxTextLine {
		return fmt.Errorf("%s: a line of %d bytes is longer than the %d bytes piopt's readers accept", what, len(line), maxTextLine)
	}
	return nil
}

// PolicyHashKey is the header key of a slate log that names the content of
// its policy file: the first 16 hex digits of the SHA-256 of the policy
// file's (uncompressed) bytes. simulate --policy-out writes it; a log and a
// policy file whose hash differs are refused. Logs from other programs may
// leave it out.
const PolicyHashKey = "policy-sha256"

// ContentHash is the hash PolicyHashKey records, of what was written to
// it: wrap a writer in io.MultiWriter(w, h) and call Sum when done.
type ContentHash struct{ h hash.Hash }

// NewContentHash starts a content hash.
func NewContentHash() *ContentHash { return &ContentHash{sha256.New()} }

// Write adds p to the hash.
func (c *ContentHash) Write(p []byte) (int, error) { return c.h.Write(p) }

// Sum returns the first 16 hex digits of the SHA-256 of the bytes written.
func (c *ContentHash) Sum() string { return hex.EncodeToString(c.h.Sum(nil))[:16] }

var _ io.Writer = (*ContentHash)(nil)
