package datatest

import (
	"os"
	"path/filepath"
	"testing"
)

// SharedDir either skips or returns a folder that exists beside the module.
func TestSharedDir(t *testing.T) {
	dir := SharedDir(t)
	if !filepath.IsAbs(dir) || filepath.Base(dir) != "data" {
		t.Fatalf("SharedDir = %q, want an absolute path ending in shared/data", dir)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("SharedDir = %q, which is not a folder (%v)", dir, err)
	}
}

// A file that is not there skips rather than fails.
func TestSharedFileMissingSkips(t *testing.T) {
	ok := t.Run("missing", func(t *testing.T) {
		SharedFile(t, "no-such-file.txt")
		t.Error("SharedFile returned for a missing file")
	})
	if !ok {
		t.Fatal("subtest failed instead of skipping")
	}
}
