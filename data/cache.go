package data

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"unsafe"

	"github.com/piopt/piopt/internal/atomicfile"
)

// The binary cache keeps a parsed file in one file per (absolute path,
// query file, options), so a second load costs about one read of the source
// (to hash it) and one read of the cache. It is never trusted: an entry is
// used only if its key — source size, mtime and content hash (CRC-32C and
// CRC-32 over every byte), the query file's too, and the read options —
// matches, and its own checksum is right. Anything else is re-parsed and
// rewritten atomically. Stale entries are overwritten, never evicted.
//
// Layout (little-endian):
//
//	"piopt-ds" version:u32 keyLen:u32 key sourceHash:u64
//	queries:u64 docs:u64 features:u64 qidBytes:u64
//	labels [docs]u8  offsets [queries+1]u64  qidLen [queries]u32  qids
//	features [docs×features]f32  crc32c:u32 (of all bytes before it)
//
// With --doc-ids comment the key says so (and the entry has a file of its
// own), and the document ids come between the features and the CRC:
//
//	idBytes:u64  idEnd [docs]u64  order [docs]u32  ids
//
// idEnd is the end of each document's id in ids, order each query's
// positions sorted by id (Dataset.findDoc's index). Entries read by position
// are as they were before document ids existed.
const (
	cacheMagic   = "piopt-ds"
	cacheVersion = 2 // 2: lone CR ends a line; hex and underscore values refused
)

// CacheNotices returns a ReadOptions.CacheNotice that writes the one-line
// notice that a cache folder is not usable to w, once per folder however
// many files are read with it. The caller owns the returned function (one per
// program run), so the library holds no state of its own.
func CacheNotices(w io.Writer) func(dir string, err error) {
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(dir string, err error) {
		mu.Lock()
		defer mu.Unlock()
		if seen[dir] {
			return
		}
		seen[dir] = true
		fmt.Fprintf(w, "piopt: cache %s not usable (%v): reading without a cache\n", dir, err)
	}
}

// warnCache tells opt's CacheNotice, if any, that the cache folder dir
// cannot be used.
func (o ReadOptions) warnCache(dir string, err error) {
	if o.CacheNotice != nil {
		o.CacheNotice(dir, err)
	}
}

type cacheEntry struct {
	path   string // the cache file
	dir    string // the cache folder, for messages
	notice func(dir string, err error)
	key    string // everything the entry depends on except the source hash
	src    string // source path, for hashing
	stamp  [2]int64
	ids    bool // the entry holds document ids (DocComment)
	// commit ends a write of the entry; nil means (*atomicfile.File).Commit.
	// Tests set it to fail as a full or read-only disk does, which they
	// cannot arrange for real without root.
	commit func(*atomicfile.File) error
}

// warn tells the entry's CacheNotice, if any, that its folder cannot be
// used because of err, a failure on a file in it.
func (ce *cacheEntry) warn(err error) {
	if ce.notice != nil {
		ce.notice(ce.dir, unwrapPath(err))
	}
}

// CacheFolder returns the folder of the binary cache: dir (ReadOptions.
// CacheDir) when set, else piopt in the user cache folder. It is the one
// place that decides it, so that `piopt cache` finds the files loading
// writes.
func CacheFolder(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "piopt"), nil
}

// newCacheEntry names the cache file of (path, qf, opt). It returns nil when
// there is no usable cache folder.
func newCacheEntry(path string, st os.FileInfo, qf queryFile, opt ReadOptions) *cacheEntry {
	dir, err := CacheFolder(opt.CacheDir)
	if err != nil {
		opt.warnCache("folder", err)
		return nil
	}
	// A missing folder is made by store; anything else but a folder is not
	// usable.
	if dst, err := os.Stat(dir); err == nil && !dst.IsDir() {
		opt.warnCache(dir, errors.New("not a folder"))
		return nil
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		opt.warnCache(dir, err)
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	ident := fmt.Sprintf("source=%s\nfeatures=%d\nmax-label=%d\n", abs, opt.Features, opt.MaxLabel)
	if opt.DocIDs != DocPosition {
		ident += "doc-ids=" + opt.DocIDs.String() + "\n"
	}
	key := fmt.Sprintf("piopt-ds v%d\n%ssize=%d\nmtime=%d\n", cacheVersion, ident, st.Size(), st.ModTime().UnixNano())
	if qf.path != "" {
		qabs, err := filepath.Abs(qf.path)
		if err != nil || qf.err != nil {
			return nil
		}
		ident += "query-file=" + qabs + "\n"
		key += fmt.Sprintf("query-file=%s\nquery-file-size=%d\nquery-file-crc=%08x\n", qabs, len(qf.data), crc32.Checksum(qf.data, castagnoli))
	}
	sum := sha256.Sum256([]byte(ident))
	return &cacheEntry{
		path:   filepath.Join(dir, hex.EncodeToString(sum[:16])+".dataset"),
		dir:    dir,
		notice: opt.CacheNotice,
		key:    key,
		src:    path,
		stamp:  [2]int64{st.Size(), st.ModTime().UnixNano()},
		ids:    opt.DocIDs == DocComment,
	}
}

// load returns the cached dataset, or nil when the entry is missing, stale
// or corrupt. src is the open source file, hashed concurrently with reading
// the entry.
func (ce *cacheEntry) load(src *os.File) *Dataset {
	if ce == nil {
		return nil
	}
	// Only a regular file of the user's is an entry: a symbolic link (not
	// followed: ELOOP) or anything else is a miss, which store then
	// replaces or refuses (atomicfile.CreateOwned). O_NONBLOCK: a FIFO
	// planted as an entry does not block the open.
	f, err := os.OpenFile(ce.path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ELOOP) {
			ce.warn(err)
		}
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !atomicfile.Owned(st) {
		return nil
	}
	// The CRC covers the bytes read, not those the buffer reads ahead.
	crc := crc32.New(castagnoli)
	r := io.TeeReader(bufio.NewReaderSize(f, 1<<20), crc)
	var head [16]byte
	if _, err := io.ReadFull(r, head[:]); err != nil || string(head[:8]) != cacheMagic ||
		binary.LittleEndian.Uint32(head[8:]) != cacheVersion {
		return nil
	}
	keyLen := int64(binary.LittleEndian.Uint32(head[12:]))
	if keyLen != int64(len(ce.key)) {
		return nil
	}
	key := make([]byte, keyLen)
	if _, err := io.ReadFull(r, key); err != nil || string(key) != ce.key {
		return nil
	}

	// The key matches: hash the source while the entry is read.
	hashc := make(chan uint64, 1)
	go func() {
		h := newHashReader(io.NewSectionReader(src, 0, ce.stamp[0]))
		if _, err := io.CopyBuffer(io.Discard, h, make([]byte, 1<<20)); err != nil {
			hashc <- 0
			return
		}
		hashc <- h.sum()
	}()
	ds, want := readCachePayload(r, crc, st.Size()-16-keyLen, ce.ids)
	if got := <-hashc; ds == nil || got != want || got == 0 {
		return nil
	}
	ds.Source = ce.src
	return ds
}

// readCachePayload reads what follows the key through r, which feeds crc;
// size is the number of bytes left in the file; ids tells whether document
// ids follow the features. It returns nil on any inconsistency.
func readCachePayload(r io.Reader, crc hash.Hash32, size int64, ids bool) (*Dataset, uint64) {
	var head [40]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, 0
	}
	srcHash := binary.LittleEndian.Uint64(head[0:])
	nq := binary.LittleEndian.Uint64(head[8:])
	nd := binary.LittleEndian.Uint64(head[16:])
	nf := binary.LittleEndian.Uint64(head[24:])
	nqid := binary.LittleEndian.Uint64(head[32:])
	// Check the counts against the file size before allocating anything.
	if nq > uint64(size) || nd > uint64(size) || nqid > uint64(size) || nf > maxFeatureIndex {
		return nil, 0
	}
	featBytes := nd * nf * 4
	if nf > 0 && featBytes/nf/4 != nd {
		return nil, 0
	}
	base := 40 + nd + 8*(nq+1) + 4*nq + nqid + featBytes + 4
	if !ids && base != uint64(size) || ids && base+8+12*nd > uint64(size) {
		return nil, 0
	}
	ds := &Dataset{
		Labels:       make([]uint8, nd),
		QueryOffsets: make([]int, nq+1),
		QIDs:         make([]string, nq),
		Features:     make([]float32, nd*nf),
		NumFeatures:  int(nf),
	}
	if _, err := io.ReadFull(r, ds.Labels); err != nil {
		return nil, 0
	}
	buf := make([]byte, 1<<20)
	if err := readUints(r, buf, 8, func(i int, v uint64) { ds.QueryOffsets[i] = int(v) }, len(ds.QueryOffsets)); err != nil {
		return nil, 0
	}
	lens := make([]int, nq)
	if err := readUints(r, buf, 4, func(i int, v uint64) { lens[i] = int(v) }, len(lens)); err != nil {
		return nil, 0
	}
	qidData := make([]byte, nqid)
	if _, err := io.ReadFull(r, qidData); err != nil {
		return nil, 0
	}
	all, at := string(qidData), 0
	for i, n := range lens {
		if n > len(all)-at {
			return nil, 0
		}
		ds.QIDs[i] = all[at : at+n]
		at += n
	}
	if !readCacheFeatures(r, buf, ds.Features) {
		return nil, 0
	}
	if ids {
		if ds.ids = readCacheIDs(r, buf, int(nd), uint64(size)-base-8-12*nd); ds.ids == nil {
			return nil, 0
		}
	}
	sum := crc.Sum32()
	var tail [4]byte
	if _, err := io.ReadFull(r, tail[:]); err != nil || binary.LittleEndian.Uint32(tail[:]) != sum {
		return nil, 0
	}
	if ds.QueryOffsets[0] != 0 || ds.Validate() != nil || ids && !ds.ids.check(ds) {
		return nil, 0
	}
	return ds, srcHash
}

// readCacheFeatures fills fs from r through buf. It fails on a short read
// and on NaN or ±Inf, which no parse yields: such an entry is forged. On a
// little-endian machine, the entry's byte order, the bytes are read
// straight into fs and checked while still in the CPU's cache; that copy
// saved pays for the check.
func readCacheFeatures(r io.Reader, buf []byte, fs []float32) bool {
	for len(fs) > 0 {
		n := min(len(fs), len(buf)/4)
		if littleEndian {
			b := unsafe.Slice((*byte)(unsafe.Pointer(&fs[0])), 4*n)
			if _, err := io.ReadFull(r, b); err != nil {
				return false
			}
		} else {
			if _, err := io.ReadFull(r, buf[:4*n]); err != nil {
				return false
			}
			for i := range fs[:n] {
				fs[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
			}
		}
		if !finite(fs[:n]) {
			return false
		}
		fs = fs[n:]
	}
	return true
}

// littleEndian: this machine stores numbers as the cache entries do.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// finite reports whether every value of fs is finite, without a branch per
// value: the exponent plus one in its lowest bit carries into bit 31 only
// when the exponent is all ones (NaN, ±Inf). Two values are checked per
// 64-bit word (the low one's carry stops at bit 31), four words a round.
func finite(fs []float32) bool {
	const exp2, one2, top2 = f32ExpMask<<32 | f32ExpMask, 1<<55 | 1<<23, 1<<63 | 1<<31
	var c0, c1, c2, c3 uint64
	if len(fs) > 0 && uintptr(unsafe.Pointer(&fs[0]))%8 != 0 { // align the words
		c0 = uint64(math.Float32bits(fs[0])&f32ExpMask + 1<<23)
		fs = fs[1:]
	}
	if len(fs) >= 2 {
		w := unsafe.Slice((*uint64)(unsafe.Pointer(&fs[0])), len(fs)/2)
		for len(w) >= 4 {
			c0 |= w[0]&exp2 + one2
			c1 |= w[1]&exp2 + one2
			c2 |= w[2]&exp2 + one2
			c3 |= w[3]&exp2 + one2
			w = w[4:]
		}
		for _, x := range w {
			c0 |= x&exp2 + one2
		}
	}
	if len(fs)%2 == 1 {
		c0 |= uint64(math.Float32bits(fs[len(fs)-1])&f32ExpMask + 1<<23)
	}
	return (c0|c1|c2|c3)&top2 == 0
}

// f32ExpMask is a float32's exponent bits, all set in NaN and ±Inf only.
const f32ExpMask = 0x7f800000

// readCacheIDs reads the document ids of nd documents, whose bytes must be
// exactly blob, through buf.
func readCacheIDs(r io.Reader, buf []byte, nd int, blob uint64) *docIDs {
	var head [8]byte
	if _, err := io.ReadFull(r, head[:]); err != nil || binary.LittleEndian.Uint64(head[:]) != blob {
		return nil
	}
	x := &docIDs{blob: make([]byte, blob), end: make([]int, nd), order: make([]int32, nd)}
	if err := readUints(r, buf, 8, func(i int, v uint64) { x.end[i] = int(min(v, blob+1)) }, nd); err != nil {
		return nil
	}
	if err := readUints(r, buf, 4, func(i int, v uint64) { x.order[i] = int32(v) }, nd); err != nil {
		return nil
	}
	if _, err := io.ReadFull(r, x.blob); err != nil {
		return nil
	}
	return x
}

// readUints reads count little-endian unsigned integers of size bytes (4 or
// 8) through buf, a block at a time, and hands each to set.
func readUints(r io.Reader, buf []byte, size int, set func(i int, v uint64), count int) error {
	for i := 0; i < count; {
		n := min(count-i, len(buf)/size)
		b := buf[:n*size]
		if _, err := io.ReadFull(r, b); err != nil {
			return err
		}
		for k := range n {
			if size == 8 {
				set(i+k, binary.LittleEndian.Uint64(b[8*k:]))
			} else {
				set(i+k, uint64(binary.LittleEndian.Uint32(b[4*k:])))
			}
		}
		i += n
	}
	return nil
}

// store writes ds under the entry, atomically; srcHash is the content hash
// of the bytes that were parsed. Failures go to the CacheNotice and are
// otherwise ignored: the cache is an optimisation. The entry is not written
// when the source changed while it was read.
func (ce *cacheEntry) store(ds *Dataset, srcHash uint64) {
	if ce == nil {
		return
	}
	if st, err := os.Stat(ce.src); err != nil || st.Size() != ce.stamp[0] || st.ModTime().UnixNano() != ce.stamp[1] {
		return
	}
	if err := os.MkdirAll(filepath.Dir(ce.path), 0o755); err != nil {
		ce.warn(err)
		return
	}
	if err := ce.write(ds, srcHash); errors.Is(err, atomicfile.ErrNotOwned) {
		ce.warn(fmt.Errorf("entry %s: %w", filepath.Base(ce.path), atomicfile.ErrNotOwned))
	} else if err != nil {
		ce.warn(err)
	}
}

// unwrapPath drops the operation and path of an error about a file in the
// cache folder, which the notice names already: "read-only file system"
// rather than "open /c/.1f3….dataset.piopt-tmp-…: read-only file system".
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// writeCache writes ds as the entry of key at path, for tests that build
// entries without a source file.
func writeCache(path, key string, ds *Dataset, srcHash uint64) error {
	return (&cacheEntry{path: path, key: key}).write(ds, srcHash)
}

// write writes ds as the entry, atomically.
func (ce *cacheEntry) write(ds *Dataset, srcHash uint64) error {
	key := ce.key
	// The entry's name is piopt's, not the user's: a link there is
	// replaced, never written through (CreateOwned).
	af, err := atomicfile.CreateOwned(ce.path)
	if err != nil {
		return err
	}
	defer af.Abort()
	// af.W keeps its first error, and Commit returns it.
	crc := crc32.New(castagnoli)
	cw := io.MultiWriter(af.W, crc)
	le := binary.LittleEndian
	buf := make([]byte, 0, 1<<20)
	// put writes buf out once it is nearly full (or always, when all).
	put := func(all bool) {
		if all || len(buf) > cap(buf)-64 {
			cw.Write(buf)
			buf = buf[:0]
		}
	}
	buf = append(buf, cacheMagic...)
	buf = le.AppendUint32(buf, cacheVersion)
	buf = le.AppendUint32(buf, uint32(len(key)))
	buf = append(buf, key...)
	nqid := 0
	for _, q := range ds.QIDs {
		nqid += len(q)
	}
	for _, v := range []uint64{srcHash, uint64(ds.NumQueries()), uint64(ds.NumDocs()), uint64(ds.NumFeatures), uint64(nqid)} {
		buf = le.AppendUint64(buf, v)
	}
	put(true)
	cw.Write(ds.Labels)
	for _, o := range ds.QueryOffsets {
		buf = le.AppendUint64(buf, uint64(o))
		put(false)
	}
	for _, q := range ds.QIDs {
		buf = le.AppendUint32(buf, uint32(len(q)))
		put(false)
	}
	put(true)
	for _, q := range ds.QIDs {
		cw.Write([]byte(q))
	}
	put(true)
	for fs := ds.Features; len(fs) > 0; {
		n := min(len(fs), cap(buf)/4)
		b := buf[:4*n]
		for i, v := range fs[:n] {
			le.PutUint32(b[4*i:], math.Float32bits(v))
		}
		cw.Write(b)
		fs = fs[n:]
	}
	if x := ds.ids; x != nil {
		buf = le.AppendUint64(buf[:0], uint64(len(x.blob)))
		for _, e := range x.end {
			buf = le.AppendUint64(buf, uint64(e))
			put(false)
		}
		for _, p := range x.order {
			buf = le.AppendUint32(buf, uint32(p))
			put(false)
		}
		put(true)
		cw.Write(x.blob)
	}
	buf = le.AppendUint32(buf[:0], crc.Sum32())
	cw.Write(buf)
	if ce.commit != nil {
		return ce.commit(af)
	}
	return af.Commit()
}
