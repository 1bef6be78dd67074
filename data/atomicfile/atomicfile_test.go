package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.W.WriteString("half")
	f.Abort()
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Fatalf("after Abort the file reads %q, want the old content", b)
	}
	if err := WriteFile(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Fatalf("after Commit the file reads %q", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("temporary files left behind: %v", ents)
	}
}

func TestCreateInMissingFolder(t *testing.T) {
	if _, err := Create(filepath.Join(t.TempDir(), "no", "such", "x")); err == nil {
		t.Fatal("Create in a missing folder succeeded")
	}
}
