package data

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cacheSetup writes a small LETOR file and returns its path and a cache dir.
func cacheSetup(t *testing.T) (src, dir string) {
	t.Helper()
	tmp := t.TempDir()
	src = filepath.Join(tmp, "train.txt")
	text := "2 qid:1 1:0.5 2:3\n0 qid:1 1:0.25 2:1\n1 qid:2 1:1 2:7\n"
	if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(src, old, old); err != nil {
		t.Fatal(err)
	}
	return src, filepath.Join(tmp, "cache")
}

// cached returns what the cache holds for src under opt, or nil.
func cached(t *testing.T, src string, opt ReadOptions) *Dataset {
	t.Helper()
	opt, _ = opt.normalize()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	return newCacheEntry(src, st, queryFile{}, opt).load(f)
}

func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustLoad(t *testing.T, src string, opt ReadOptions) *Dataset {
	t.Helper()
	ds, err := Load(src, opt)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestCacheHit(t *testing.T) {
	src, dir := cacheSetup(t)
	opt := ReadOptions{CacheDir: dir}
	if cached(t, src, opt) != nil {
		t.Fatal("cache hit before the first load")
	}
	first := mustLoad(t, src, opt)
	files := cacheFiles(t, dir)
	if len(files) != 1 || !strings.HasSuffix(files[0], ".dataset") {
		t.Fatalf("cache holds %v", files)
	}
	st1, _ := os.Stat(files[0])
	hit := cached(t, src, opt)
	if hit == nil {
		t.Fatal("no cache hit after the first load")
	}
	if d := sameDataset(hit, first); d != "" {
		t.Fatal(d)
	}
	second := mustLoad(t, src, opt)
	if d := sameDataset(second, first); d != "" || second.Source != src {
		t.Fatalf("%s; Source %q", d, second.Source)
	}
	if st2, _ := os.Stat(files[0]); !st2.ModTime().Equal(st1.ModTime()) {
		t.Error("a cache hit rewrote the entry")
	}
	// Options are part of the key: another max label is another entry.
	mustLoad(t, src, ReadOptions{CacheDir: dir, MaxLabel: 3})
	if n := len(cacheFiles(t, dir)); n != 2 {
		t.Errorf("%d cache entries for two option sets", n)
	}
	// NoCache neither reads nor writes.
	os.RemoveAll(dir)
	mustLoad(t, src, ReadOptions{CacheDir: dir, NoCache: true})
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Error("NoCache wrote the cache")
	}
}

func TestCacheStale(t *testing.T) {
	src, dir := cacheSetup(t)
	opt := ReadOptions{CacheDir: dir}
	mustLoad(t, src, opt)
	st, _ := os.Stat(src)

	// Same size, same mtime, other content: only the content hash sees it.
	b, _ := os.ReadFile(src)
	b = bytes.Replace(b, []byte("1:0.5"), []byte("1:0.7"), 1)
	if err := os.WriteFile(src, b, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(src, st.ModTime(), st.ModTime())
	if cached(t, src, opt) != nil {
		t.Fatal("cache trusted after the content changed")
	}
	if ds := mustLoad(t, src, opt); ds.Features[0] != 0.7 {
		t.Fatalf("stale value %v", ds.Features[0])
	}
	if hit := cached(t, src, opt); hit == nil || hit.Features[0] != 0.7 {
		t.Fatal("cache not rewritten after a stale hit")
	}

	// Touched: the mtime differs, the entry is not used and is rewritten.
	now := time.Now()
	os.Chtimes(src, now, now)
	if cached(t, src, opt) != nil {
		t.Fatal("cache trusted after touch")
	}
	mustLoad(t, src, opt)
	if cached(t, src, opt) == nil {
		t.Fatal("cache not rewritten after touch")
	}
	if n := len(cacheFiles(t, dir)); n != 1 {
		t.Errorf("%d cache entries; stale ones must be overwritten", n)
	}
}

func TestCacheCorrupt(t *testing.T) {
	src, dir := cacheSetup(t)
	opt := ReadOptions{CacheDir: dir}
	want := mustLoad(t, src, opt)
	entry := cacheFiles(t, dir)[0]
	good, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) []byte {
		b := bytes.Clone(good)
		b[i] ^= 0x10
		return b
	}
	for name, b := range map[string][]byte{
		"empty":          nil,
		"garbage":        bytes.Repeat([]byte("piopt-ds"), 100),
		"truncated":      good[:len(good)-5],
		"extended":       append(bytes.Clone(good), 0),
		"flipped key":    flip(20),
		"flipped label":  flip(len(good) - 4*6 - 8*4 - 3 - 4),
		"flipped value":  flip(len(good) - 6),
		"flipped crc":    flip(len(good) - 1),
		"flipped counts": flip(bytes.Index(good, []byte("mtime=")) + 40),
	} {
		if err := os.WriteFile(entry, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if cached(t, src, opt) != nil {
			t.Errorf("%s cache entry trusted", name)
		}
		ds := mustLoad(t, src, opt)
		if d := sameDataset(ds, want); d != "" {
			t.Errorf("%s cache entry: %s", name, d)
		}
		if hit := cached(t, src, opt); hit == nil {
			t.Errorf("%s cache entry not rewritten", name)
		}
	}
}

func TestCacheUnwritable(t *testing.T) {
	src, dir := cacheSetup(t)
	// The cache folder is a file: loading still works, without a cache.
	if err := os.WriteFile(dir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ds := mustLoad(t, src, ReadOptions{CacheDir: dir}); ds.NumDocs() != 3 {
		t.Errorf("%d docs", ds.NumDocs())
	}
}

// withCacheWarnings collects the cache notices of the test through
// CacheNotices; load with opt(dir) to have them.
func withCacheWarnings(t *testing.T) (*bytes.Buffer, func(dir string) ReadOptions) {
	t.Helper()
	var buf bytes.Buffer
	notice := CacheNotices(&buf)
	return &buf, func(dir string) ReadOptions { return ReadOptions{CacheDir: dir, CacheNotice: notice} }
}

// A cache "folder" that is a file, or lies under a file, is reported once
// and the data read without it; the file is left alone.
func TestCacheNotAFolder(t *testing.T) {
	src, dir := cacheSetup(t)
	if err := os.WriteFile(dir, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	under := filepath.Join(dir, "sub")
	for _, c := range []struct{ dir, want string }{
		{dir, "piopt: cache " + dir + " not usable (not a folder): reading without a cache\n"},
		{under, "piopt: cache " + under + " not usable (stat " + under + ": not a directory): reading without a cache\n"},
	} {
		warns, opt := withCacheWarnings(t)
		for range 2 {
			if ds := mustLoad(t, src, opt(c.dir)); ds.NumDocs() != 3 {
				t.Fatalf("read %d documents", ds.NumDocs())
			}
		}
		if warns.String() != c.want {
			t.Errorf("cache %s: notices\n%q\nwant\n%q", c.dir, warns, c.want)
		}
	}
	if b, _ := os.ReadFile(dir); string(b) != "mine" {
		t.Fatalf("the file in place of the cache folder now reads %q", b)
	}
}

// A read-only cache folder is reported once (root ignores the permission,
// so the test needs another user).
func TestCacheReadOnly(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only folders")
	}
	src, dir := cacheSetup(t)
	if err := os.Mkdir(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	warns, opt := withCacheWarnings(t)
	mustLoad(t, src, opt(dir))
	mustLoad(t, src, opt(dir))
	want := "piopt: cache " + dir + " not usable (permission denied): reading without a cache\n"
	if warns.String() != want {
		t.Errorf("notices\n%q\nwant\n%q", warns, want)
	}
}

// A usable cache folder, new or existing, gives no notice.
func TestCacheNoNotice(t *testing.T) {
	src, dir := cacheSetup(t)
	warns, opt := withCacheWarnings(t)
	mustLoad(t, src, opt(dir))
	mustLoad(t, src, opt(dir))
	if warns.Len() != 0 {
		t.Errorf("notices for a usable cache: %q", warns)
	}
}
