package data

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/piopt/piopt/internal/atomicfile"
)

// loadFailingCache reads src as LoadContext does, with the entry's write
// ending in commit rather than a real commit: the seam through which a full
// or read-only disk is simulated without root.
func loadFailingCache(t *testing.T, src string, opt ReadOptions, commit func(*atomicfile.File) error) *Dataset {
	t.Helper()
	opt, err := opt.normalize()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	ce := newCacheEntry(src, st, queryFile{}, opt)
	if ce == nil {
		t.Fatal("no cache entry for a usable folder")
	}
	if ce.load(f) != nil {
		t.Fatal("cache hit where the entry was never written")
	}
	ce.commit = commit
	h := newHashReader(f)
	ds, err := parse(context.Background(), h, src, opt, queryFile{}, false, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	ce.store(ds, h.sum())
	return ds
}

// tempFiles lists the atomic writer's temporary files in dir.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var tmp []string
	for _, e := range ents {
		if strings.Contains(e.Name(), ".piopt-tmp-") {
			tmp = append(tmp, e.Name())
		}
	}
	return tmp
}

// A cache write that fails as a full, read-only or forbidden folder makes
// it fail is said once per folder, for any number of files; the data is as
// read without a cache, the temporary file is gone, no entry is left, and
// a later load with the folder usable again writes the entry.
func TestCacheWriteFails(t *testing.T) {
	for _, c := range []struct {
		errno syscall.Errno
		why   string
	}{
		{syscall.ENOSPC, "no space left on device"},
		{syscall.EROFS, "read-only file system"},
		{syscall.EACCES, "permission denied"},
	} {
		t.Run(c.why, func(t *testing.T) {
			src, dir := cacheSetup(t)
			other := filepath.Join(filepath.Dir(src), "other.txt")
			if err := os.WriteFile(other, []byte("1 qid:7 1:2 2:0.5\n0 qid:7 1:1 2:0.25\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			warns, opt := withCacheWarnings(t)
			commits := 0
			// The bytes reach the temporary file, then the disk refuses, as
			// Commit reports it: "write NAME: write TEMP: ERRNO".
			fail := func(af *atomicfile.File) error {
				commits++
				if err := af.W.Flush(); err != nil {
					t.Fatal(err)
				}
				tmp := tempFiles(t, dir)
				if len(tmp) != 1 {
					t.Fatalf("temporary files at commit: %v, want one", tmp)
				}
				return fmt.Errorf("write cache entry: %w", &fs.PathError{Op: "write", Path: filepath.Join(dir, tmp[0]), Err: c.errno})
			}
			for _, p := range []string{src, other, src} {
				want, err := Load(p, ReadOptions{NoCache: true})
				if err != nil {
					t.Fatal(err)
				}
				if d := sameDataset(loadFailingCache(t, p, opt(dir), fail), want); d != "" {
					t.Fatalf("%s: %s", p, d)
				}
			}
			if commits != 3 {
				t.Fatalf("%d failing commits, want 3", commits)
			}
			wantNotice := "piopt: cache " + dir + " not usable (" + c.why + "): reading without a cache\n"
			if warns.String() != wantNotice {
				t.Errorf("notices\n%q\nwant\n%q", warns, wantNotice)
			}
			if tmp := tempFiles(t, dir); len(tmp) != 0 {
				t.Errorf("temporary files left: %v", tmp)
			}
			if left := cacheFiles(t, dir); len(left) != 0 {
				t.Errorf("cache folder holds %v after failed writes", left)
			}
			mustLoad(t, src, opt(dir))
			if cached(t, src, opt(dir)) == nil {
				t.Error("no entry written once the folder is usable again")
			}
			if warns.String() != wantNotice {
				t.Errorf("notices after the usable load\n%q\nwant\n%q", warns, wantNotice)
			}
		})
	}
}
