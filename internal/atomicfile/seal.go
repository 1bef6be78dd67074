package atomicfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
)

// Seals: a file that a later run reads back instead of recomputing it (a
// resume file: an experiment's fold results and targets, an evaluate-grid
// condition) carries the SHA-256 of its own bytes, so that an edited or
// damaged one is recomputed rather than trusted. The seal is the file's
// last part, of fixed length, so that checking it needs no parse:
//
//	JSON (indented, an object):  ..., "sha256": "HEX"\n}\n   (its last field)
//	text (with # comments):      # sha256=HEX\n            (its last line)
//
// HEX is the SHA-256 of the file as it would be without the seal: the JSON
// object without its last field, the text without its last line. Readers
// that do not check seals read sealed files as before (an unknown JSON
// field, a comment line).

// ErrNoSeal: the file ends without a seal (written before seals, or cut).
var ErrNoSeal = errors.New("no sha256 seal")

// ErrBadSeal: the file's seal does not match its bytes (edited or damaged).
var ErrBadSeal = errors.New("its sha256 seal does not match its bytes (edited?)")

const (
	jsonSealHead = ",\n  \"sha256\": \""
	jsonSealTail = "\"\n}\n"
	jsonEnd      = "\n}\n" // how an unsealed indented object ends
	textSealHead = "# sha256="
	hexLen       = 2 * sha256.Size
	jsonSealLen  = len(jsonSealHead) + hexLen + len(jsonSealTail)
	textSealLen  = len(textSealHead) + hexLen + 1
)

// SealJSON returns b, an object as json.MarshalIndent(v, "", "  ") writes
// it followed by a newline, with its seal as its last field. An empty
// object ("{}\n") is returned unsealed.
func SealJSON(b []byte) []byte {
	if !bytes.HasSuffix(b, []byte(jsonEnd)) {
		return b
	}
	sum := sha256.Sum256(b)
	out := append([]byte{}, b[:len(b)-len(jsonEnd)]...)
	out = append(out, jsonSealHead...)
	out = hex.AppendEncode(out, sum[:])
	return append(out, jsonSealTail...)
}

// CheckJSON checks the seal of b, as SealJSON writes it: nil when it
// matches, ErrNoSeal or ErrBadSeal otherwise.
func CheckJSON(b []byte) error {
	n := len(b) - jsonSealLen
	if n < 0 || !bytes.HasPrefix(b[n:], []byte(jsonSealHead)) || !bytes.HasSuffix(b, []byte(jsonSealTail)) {
		return ErrNoSeal
	}
	h := sha256.New()
	h.Write(b[:n])
	h.Write([]byte(jsonEnd))
	return matches(h, b[n+len(jsonSealHead):len(b)-len(jsonSealTail)])
}

// matches compares h's sum with want, hex.
func matches(h hash.Hash, want []byte) error {
	var sum [hexLen]byte
	hex.Encode(sum[:], h.Sum(nil))
	if !bytes.Equal(sum[:], want) {
		return ErrBadSeal
	}
	return nil
}

// Sealer passes what is written through it to W and hashes it; Seal then
// writes the seal line of a text file.
type Sealer struct {
	W io.Writer
	h hash.Hash
}

// NewSealer returns a Sealer writing to w.
func NewSealer(w io.Writer) *Sealer { return &Sealer{W: w, h: sha256.New()} }

// Write implements io.Writer.
func (s *Sealer) Write(p []byte) (int, error) {
	n, err := s.W.Write(p)
	s.h.Write(p[:n])
	return n, err
}

// Seal writes the seal line, "# sha256=HEX\n", of everything written.
// What was written must end with a newline.
func (s *Sealer) Seal() error {
	_, err := fmt.Fprintf(s.W, "%s%x\n", textSealHead, s.h.Sum(nil))
	return err
}

// CheckTextFile checks the seal of the text file at path, as Sealer
// writes it, reading the file once without holding it: nil when it
// matches, ErrNoSeal or ErrBadSeal otherwise, or the error reading it.
func CheckTextFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	return CheckText(io.NewSectionReader(f, 0, st.Size()))
}

// CheckText checks the seal of the text in r, as CheckTextFile does.
func CheckText(r *io.SectionReader) error {
	n := r.Size() - int64(textSealLen)
	if n < 0 {
		return ErrNoSeal
	}
	tail := make([]byte, textSealLen)
	if _, err := r.ReadAt(tail, n); err != nil {
		return err
	}
	if !bytes.HasPrefix(tail, []byte(textSealHead)) || tail[len(tail)-1] != '\n' ||
		(n > 0 && !endsLine(r, n)) {
		return ErrNoSeal
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(r, 0, n)); err != nil {
		return err
	}
	return matches(h, tail[len(textSealHead):len(tail)-1])
}

// endsLine reports whether the byte before offset n of r is a newline: the
// seal is a line of its own.
func endsLine(r io.ReaderAt, n int64) bool {
	var b [1]byte
	_, err := r.ReadAt(b[:], n-1)
	return err == nil && b[0] == '\n'
}
