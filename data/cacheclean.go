package data

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/piopt/piopt/internal/atomicfile"
)

// cacheName matches a cache entry, HASH.dataset, and the temporary files
// atomicfile writes it through, .HASH.dataset.piopt-tmp-PID-RANDOM; the
// group is the entry's name.
var cacheName = regexp.MustCompile(`^\.?([0-9a-f]{32}\.dataset)(?:\.piopt-tmp-[0-9]+-[0-9]+)?$`)

// IsCacheFile reports whether path names a file that loading writes by
// itself in the cache folder dir (as CacheFolder resolves it): an entry or
// one of its temporary files. Output names given by a user must not be
// one: the next load would overwrite the output, or the output the entry.
func IsCacheFile(path, dir string) bool {
	folder, err := CacheFolder(dir)
	if err != nil || !cacheName.MatchString(filepath.Base(path)) {
		return false
	}
	a, err1 := filepath.Abs(filepath.Dir(path))
	b, err2 := filepath.Abs(folder)
	if err1 != nil || err2 != nil {
		return false
	}
	if ra, err := filepath.EvalSymlinks(a); err == nil {
		a = ra
	}
	if rb, err := filepath.EvalSymlinks(b); err == nil {
		b = rb
	}
	return a == b
}

// CacheCleaned is what CleanCache did.
type CacheCleaned struct {
	Files int   // files removed
	Bytes int64 // their size
	Live  int   // temporary files kept: their writers may still run
	// Missing says dir does not exist.
	Missing bool
}

// CleanCache removes from the cache folder dir every cache entry (a
// regular file named as one that starts as one does) and the temporary
// files of writers that are gone, and nothing else. A missing dir holds
// nothing to remove.
func CleanCache(dir string) (CacheCleaned, error) {
	var done CacheCleaned
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		done.Missing = true
		return done, nil
	}
	if err != nil {
		return done, err
	}
	var names []string
	for _, e := range entries {
		if m := cacheName.FindStringSubmatch(e.Name()); m != nil && !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	remove := func(path string) error {
		st, err := os.Lstat(path)
		if err != nil {
			return nil // removed meanwhile
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		done.Files++
		done.Bytes += st.Size()
		return nil
	}
	for _, name := range names {
		path := filepath.Join(dir, name)
		if isCacheEntry(path) {
			if err := remove(path); err != nil {
				return done, err
			}
		}
		stale, live := atomicfile.Temps(path)
		done.Live += len(live)
		for _, t := range stale {
			if err := remove(t); err != nil {
				return done, err
			}
		}
	}
	return done, nil
}

// isCacheEntry reports whether path is a regular file that starts as a
// cache entry does.
func isCacheEntry(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return false
	}
	var b [len(cacheMagic)]byte
	_, err = io.ReadFull(f, b[:])
	return err == nil && string(b[:]) == cacheMagic
}
