package datatest

import (
	"os"
	"path/filepath"
	"testing"
)

// SharedDir returns the absolute path of ../shared/data beside the
// repository (the folder above the module root), or skips t when it is
// absent: the real data sets are too large to ship with the module, so
// tests that need them must still pass on a bare checkout. The module root
// is found by walking up from the working directory, which go test sets to
// the package's folder, so the answer does not depend on the package's depth.
func SharedDir(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(root)
		if up == root {
			t.Skipf("no go.mod above %s, so no ../shared/data", wd)
		}
		root = up
	}
	dir := filepath.Join(filepath.Dir(root), "shared", "data")
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Skipf("real LETOR data: %s not found", dir)
	}
	return dir
}

// SharedFile returns the path of a file under ../shared/data, joined from
// elem, or skips t when the file (or the folder) is absent.
func SharedFile(t testing.TB, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{SharedDir(t)}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("real LETOR data: %s not found", p)
	}
	return p
}
