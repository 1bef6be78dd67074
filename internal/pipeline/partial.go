package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/internal/atomicfile"
	"github.com/piopt/piopt/internal/shard"
)

// MaxShards is the largest N of --shard I/N.
const MaxShards = 1_000_000

// Shard is one shard of a sharded run, --shard I/N: the contexts whose qid
// hashes to I−1 by shard.Of. The zero value is the whole log.
type Shard struct{ I, N int }

// ParseShard reads --shard I/N (I in 1..N, N ≤ MaxShards).
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("--shard %q: want I/N, e.g. 2/8", s)
	}
	if n < 1 || n > MaxShards {
		return Shard{}, fmt.Errorf("--shard %s: N = %d outside 1..%d", s, n, MaxShards)
	}
	if i < 1 || i > n {
		return Shard{}, fmt.Errorf("--shard %s: I = %d outside 1..%d", s, i, n)
	}
	return Shard{I: i, N: n}, nil
}

// On reports whether the run is sharded.
func (s Shard) On() bool { return s.N > 0 }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// apply makes lr read only the shard's records.
func (s Shard) apply(lr *data.LogReader) {
	if s.On() {
		i, n := s.I-1, s.N
		lr.SetFilter(func(qid []byte) bool { return shard.Of(qid, n) == i })
	}
}

// Partial files: what `impute --partial` and `evaluate --partial` write
// and `piopt merge` reads (docs/formats.md):
//
//	# piopt-partial v1 kind=KIND shard=I/N key=value ...
//	body lines
//	# sha256=HEX
//
// HEX is the SHA-256 of every byte before the last line.
const (
	partialMagic  = "piopt-partial"
	trailerPrefix = "# sha256="
	trailerLen    = len(trailerPrefix) + 64 + 1
	targetsMagic  = "piopt-targets"
)

// perShardKeys are the partial header's keys that differ between the
// shards of one run; every other key must agree.
var perShardKeys = []string{"shard", "samples", "logged", "rows"}

// partialWriter writes a partial file atomically, hashing what it writes.
type partialWriter struct {
	f *atomicfile.File
	h hash.Hash
	w io.Writer
}

func createPartial(path string, h data.Header) (*partialWriter, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	pw := &partialWriter{f: f, h: sha256.New()}
	pw.w = io.MultiWriter(f, pw.h)
	if _, err := io.WriteString(pw.w, h.Format(partialMagic)+"\n"); err != nil {
		f.Abort()
		return nil, err
	}
	return pw, nil
}

func (pw *partialWriter) Write(b []byte) (int, error) { return pw.w.Write(b) }

// commit writes the checksum line and puts the file in place.
func (pw *partialWriter) commit() error {
	if _, err := io.WriteString(pw.f, trailerPrefix+hex.EncodeToString(pw.h.Sum(nil))+"\n"); err != nil {
		pw.f.Abort()
		return err
	}
	return pw.f.Commit()
}

// partialFile is a partial file read and checked: its header and body.
type partialFile struct {
	name   string
	header data.Header
	shard  Shard
	body   []byte
}

// parsePartial checks a partial file's checksum and reads its header.
func parsePartial(name string, b []byte) (*partialFile, error) {
	if len(b) < trailerLen || !bytes.HasPrefix(b[len(b)-trailerLen:], []byte(trailerPrefix)) || b[len(b)-1] != '\n' {
		return nil, fmt.Errorf("%s: no `%sHEX` checksum line at the end: not a whole piopt partial file", name, trailerPrefix)
	}
	content := b[:len(b)-trailerLen]
	sum := sha256.Sum256(content)
	if got := string(b[len(b)-trailerLen+len(trailerPrefix) : len(b)-1]); got != hex.EncodeToString(sum[:]) {
		return nil, fmt.Errorf("%s: checksum mismatch: the file was changed after it was written (or is truncated)", name)
	}
	line, body, ok := bytes.Cut(content, []byte{'\n'})
	if !ok {
		return nil, fmt.Errorf("%s: line 1: no header line", name)
	}
	h, err := data.ParseHeader(string(line), partialMagic)
	if err != nil {
		return nil, fmt.Errorf("%s: line 1: %w", name, err)
	}
	if h["kind"] != "impute" && h["kind"] != "evaluate" {
		return nil, fmt.Errorf("%s: line 1: kind=%q, want impute or evaluate", name, h["kind"])
	}
	s, err := ParseShard(h["shard"])
	if err != nil {
		return nil, fmt.Errorf("%s: line 1: header shard=: %w", name, err)
	}
	return &partialFile{name: name, header: h, shard: s, body: body}, nil
}

// checkPartials refuses partials that are not the N shards of one run:
// another kind, N or setting (naming both files and the key), a shard
// given twice or missing.
func checkPartials(parts []*partialFile, kind string) error {
	if len(parts) == 0 {
		return fmt.Errorf("merge: no partial file given")
	}
	first := parts[0]
	if first.header["kind"] != kind {
		return fmt.Errorf("merge: %s is a partial of %s, not of %s", first.name, first.header["kind"], kind)
	}
	byShard := make([]*partialFile, first.shard.N)
	for _, p := range parts {
		if key, ok := differingKey(first.header, p.header, perShardKeys); !ok {
			return fmt.Errorf("merge: %s and %s are not of one run: %s=%q and %s=%q", first.name, p.name, key, first.header[key], key, p.header[key])
		}
		if p.shard.N != first.shard.N {
			return fmt.Errorf("merge: %s is shard %s and %s shard %s: not of one run", first.name, first.shard, p.name, p.shard)
		}
		if q := byShard[p.shard.I-1]; q != nil {
			return fmt.Errorf("merge: shard %s given twice: %s and %s", p.shard, q.name, p.name)
		}
		byShard[p.shard.I-1] = p
	}
	for i, p := range byShard {
		if p == nil {
			return fmt.Errorf("merge: shard %d/%d is missing (%d of %d partials given)", i+1, first.shard.N, len(parts), first.shard.N)
		}
	}
	return nil
}

// differingKey returns the first key (in sorted order) whose value differs
// between a and b, leaving out the keys skip; ok when none differs.
func differingKey(a, b data.Header, skip []string) (string, bool) {
	keys := slices.Sorted(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if slices.Contains(skip, k) {
			continue
		}
		if va, oka := a[k]; !oka || va != b[k] {
			return k, false
		}
		if _, okb := b[k]; !okb {
			return k, false
		}
	}
	return "", true
}
