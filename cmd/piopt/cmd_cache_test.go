package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCacheDir: cache dir prints --cache-dir, else PIOPT_CACHE, else piopt
// in the user cache folder, and that folder is the one loading writes to.
func TestCacheDir(t *testing.T) {
	env, flag := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // os.UserCacheDir on Linux
	t.Setenv("HOME", t.TempDir())           // and elsewhere
	user, err := os.UserCacheDir()
	if err != nil {
		t.Skip(err)
	}
	f := writeText(t, t.TempDir(), "d.txt", "1 qid:1 1:0.5\n0 qid:1 1:0.25\n")
	for _, tc := range []struct {
		env  string
		args []string
		want string
	}{
		{"", nil, filepath.Join(user, "piopt")},
		{env, nil, env},
		{env, []string{"--cache-dir", flag}, flag},
	} {
		t.Setenv("PIOPT_CACHE", tc.env) // restored after the test
		if tc.env == "" {
			os.Unsetenv("PIOPT_CACHE")
		}
		out, err := runCapture(t, append([]string{"cache", "dir"}, tc.args...)...)
		if err != nil || out != tc.want+"\n" {
			t.Errorf("PIOPT_CACHE=%q cache dir %v: %q, %v; want %s", tc.env, tc.args, out, err, tc.want)
		}
		if _, err := runCapture(t, append([]string{"stats"}, append(tc.args, f)...)...); err != nil {
			t.Fatal(err)
		}
		if m, _ := filepath.Glob(filepath.Join(tc.want, "*.dataset")); len(m) != 1 {
			t.Errorf("PIOPT_CACHE=%q stats %v: cache entries in %s: %v", tc.env, tc.args, tc.want, m)
		}
	}
}

// TestCacheClean: cache clean removes the entries loading wrote and the
// temporary files of writers that are gone, keeps every other file and the
// temporary files that may be in use, and says what it freed.
func TestCacheClean(t *testing.T) {
	dir := t.TempDir()
	f := writeText(t, t.TempDir(), "d.txt", "1 qid:1 1:0.5\n0 qid:1 1:0.25\n")
	if _, err := runCapture(t, "stats", "--cache-dir", dir, f); err != nil {
		t.Fatal(err)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*.dataset"))
	if len(entries) != 1 {
		t.Fatalf("cache entries: %v", entries)
	}
	hash := strings.TrimSuffix(filepath.Base(entries[0]), ".dataset")
	old := time.Now().Add(-time.Hour)
	const gone = 2147483646 // no such process
	put := func(name, content string, mtime time.Time) string {
		p := writeText(t, dir, name, content)
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	removed := []string{entries[0],
		put(fmt.Sprintf(".%s.dataset.piopt-tmp-%d-77", hash, gone), "piopt-ds partial", old),
		put(fmt.Sprintf(".%s.dataset.piopt-tmp-%d-8.x", hash, gone), "piopt-ds", old)} // as a write to the entry would
	kept := []string{
		put("notes.txt", "mine", old),
		put(strings.Repeat("ab", 16)+".dataset", "not a cache entry", old),         // no magic
		put(strings.Repeat("AB", 16)+".dataset", "piopt-ds", old),                  // not piopt's name
		put("."+hash+".dataset", "piopt-ds", old),                                  // a dot but no suffix
		put(fmt.Sprintf(".%s.dataset.piopt-tmp-1-5", hash), "piopt-ds", old),       // PID 1 runs
		put(fmt.Sprintf(".%s.dataset.piopt-tmp-%d-6", hash, gone), "", time.Now()), // just written
		put(fmt.Sprintf("%s.dataset.piopt-tmp-%d-7", hash, gone), "piopt-ds", old), // no leading dot
	}
	var size int64
	for _, p := range removed {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		size += st.Size()
	}
	out, err := runCapture(t, "cache", "clean", "--cache-dir", dir)
	want := fmt.Sprintf("%s: removed 3 cache files, freed %s; kept 2 being written\n", dir, byteSize(size))
	if err != nil || out != want {
		t.Errorf("cache clean: %q, %v; want %q", out, err, want)
	}
	for _, p := range removed {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s not removed: %v", filepath.Base(p), err)
		}
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(p), err)
		}
	}
	out, err = runCapture(t, "cache", "clean", "--cache-dir", dir)
	if want := dir + ": no cache files; kept 2 being written\n"; err != nil || out != want {
		t.Errorf("second cache clean: %q, %v; want %q", out, err, want)
	}
	missing := filepath.Join(dir, "none")
	out, err = runCapture(t, "cache", "clean", "--cache-dir", missing)
	if want := missing + ": no cache files (the folder does not exist)\n"; err != nil || out != want {
		t.Errorf("cache clean of a missing folder: %q, %v; want %q", out, err, want)
	}
}

func TestByteSize(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"}, {999, "999 B"}, {1000, "1.0 kB"}, {999949, "999.9 kB"}, {999950, "1.0 MB"},
		{1_500_000_000, "1.5 GB"}, {2_000_000_000_000_000, "2000.0 TB"},
	} {
		if got := byteSize(tc.n); got != tc.want {
			t.Errorf("byteSize(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
