package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/piopt/piopt/internal/atomicfile"
)

// entryPath is the cache file of src under opt.
func entryPath(t *testing.T, src string, opt ReadOptions) string {
	t.Helper()
	opt, _ = opt.normalize()
	st, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	return newCacheEntry(src, st, queryFile{}, opt).path
}

// Issue 30, class 2: a cache entry that is a symbolic link was written
// through, overwriting the file it names. The link is now replaced by a
// regular entry, the file it named untouched; a FIFO at the entry's name
// neither blocks the load nor is replaced, and the notice says why.
func TestInputsOverwritten_CacheEntryLink(t *testing.T) {
	src, dir := cacheSetup(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var notices []error
	opt := ReadOptions{CacheDir: dir, CacheNotice: func(_ string, err error) { notices = append(notices, err) }}
	entry := entryPath(t, src, opt)
	victim := filepath.Join(t.TempDir(), "precious.txt")
	if err := os.WriteFile(victim, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, entry); err != nil {
		t.Fatal(err)
	}
	want := mustLoad(t, src, ReadOptions{NoCache: true})
	if d := sameDataset(mustLoad(t, src, opt), want); d != "" {
		t.Fatal(d)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me\n" {
		t.Fatalf("the file the entry's link named now holds %q", b)
	}
	if st, err := os.Lstat(entry); err != nil || !st.Mode().IsRegular() {
		t.Fatalf("entry after the load: %v, %v; want a regular file", st.Mode(), err)
	}
	if hit := cached(t, src, opt); hit == nil || sameDataset(hit, want) != "" {
		t.Fatal("the replaced entry is not a cache hit")
	}
	if len(notices) != 0 {
		t.Errorf("notices for a replaced link: %v", notices)
	}

	if err := os.Remove(entry); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(entry, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan *Dataset, 1)
	go func() { ds, _ := Load(src, opt); done <- ds }()
	select {
	case ds := <-done:
		if ds == nil || sameDataset(ds, want) != "" {
			t.Fatal("load with a FIFO as the entry failed")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a FIFO as the cache entry blocked the load")
	}
	if st, err := os.Lstat(entry); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v, %v", st.Mode(), err)
	}
	if len(notices) != 1 || !errors.Is(notices[0], atomicfile.ErrNotOwned) || !strings.HasPrefix(notices[0].Error(), "entry "+filepath.Base(entry)+": ") {
		t.Errorf("notices for a FIFO entry: %v, want one saying it is not a regular file of this user", notices)
	}
}

// Issue 30, class 5: a forged cache entry, NaN among its features and its
// CRC recomputed, was accepted; features no parse can yield (NaN, ±Inf)
// make the entry a miss, and the source is parsed again.
func TestLesser_ForgedCacheEntry(t *testing.T) {
	src, dir := cacheSetup(t)
	opt := ReadOptions{CacheDir: dir}
	want := mustLoad(t, src, opt)
	entry := entryPath(t, src, opt)
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		mustLoad(t, src, opt) // a fresh entry
		b, err := os.ReadFile(entry)
		if err != nil {
			t.Fatal(err)
		}
		// 1:0.25 of the second document: a unique 4-byte pattern.
		var old, neu [4]byte
		binary.LittleEndian.PutUint32(old[:], math.Float32bits(0.25))
		binary.LittleEndian.PutUint32(neu[:], math.Float32bits(bad))
		if bytes.Count(b, old[:]) != 1 {
			t.Fatalf("the feature 0.25 appears %d times in the entry", bytes.Count(b, old[:]))
		}
		b = bytes.Replace(b, old[:], neu[:], 1)
		binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
		if err := os.WriteFile(entry, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if cached(t, src, opt) != nil {
			t.Fatalf("a forged entry with feature %v and a right CRC is a cache hit", bad)
		}
		if d := sameDataset(mustLoad(t, src, opt), want); d != "" {
			t.Fatalf("load past the forged entry (%v): %s", bad, d)
		}
	}
	// The same forgery with a finite value is a hit: the check is the
	// finiteness, not the edit.
	b, _ := os.ReadFile(entry)
	var old, neu [4]byte
	binary.LittleEndian.PutUint32(old[:], math.Float32bits(0.25))
	binary.LittleEndian.PutUint32(neu[:], math.Float32bits(0.75))
	b = bytes.Replace(b, old[:], neu[:], 1)
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
	if err := os.WriteFile(entry, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if hit := cached(t, src, opt); hit == nil || hit.Features[2] != 0.75 {
		t.Fatal("a finite edit with its CRC recomputed is not a hit")
	}
}

// finite finds a NaN or ±Inf at any position and alignment, and passes
// every finite value (the largest, subnormals, -0).
func TestFinite(t *testing.T) {
	ok := []float32{math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, float32(math.Copysign(0, -1)), 1, 0}
	for n := range 20 {
		for off := range 2 {
			base := make([]float32, n+off)
			for i := range base {
				base[i] = ok[i%len(ok)]
			}
			fs := base[off:]
			if !finite(fs) {
				t.Fatalf("n=%d off=%d: finite values refused", n, off)
			}
			for i := range fs {
				for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
					keep := fs[i]
					fs[i] = bad
					if finite(fs) {
						t.Fatalf("n=%d off=%d: %v at %d passed", n, off, bad, i)
					}
					fs[i] = keep
				}
			}
		}
	}
}
