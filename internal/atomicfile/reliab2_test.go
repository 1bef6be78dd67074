package atomicfile

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Issue 30, class 5: a legal output name of 230 to 255 bytes was refused
// (ENAMETOOLONG), because its temporary file's name is longer. The
// temporary name is shortened, in the same folder; a killed writer's
// temporary file of such a name is still found and removed, and another
// long name sharing its first bytes keeps its own.
func TestLesser_LongNames(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{200, tempBase, tempBase + 1, 230, 240, 254, 255} {
		name := strings.Repeat("a", n-4) + ".out"
		p := filepath.Join(dir, name)
		if err := WriteFile(p, []byte(name)); err != nil {
			t.Fatalf("%d-byte name: %v", n, err)
		}
		if b, err := os.ReadFile(p); err != nil || string(b) != name {
			t.Fatalf("%d-byte name: read back %d bytes, %v", n, len(b), err)
		}
	}
	// A 255-byte name of 2-byte runes: the cut keeps whole runes.
	utf := strings.Repeat("é", 127) + "x"
	if err := WriteFile(filepath.Join(dir, utf), []byte("é")); err != nil {
		t.Fatalf("255-byte UTF-8 name: %v", err)
	}
	if pre := tempPrefix(utf); !strings.HasPrefix(pre, "."+strings.Repeat("é", (tempBase-9)/2)+"~") || len(pre) > tempBase+1+len(tmpInfix) {
		t.Errorf("temporary prefix of the UTF-8 name: %q (%d bytes)", pre, len(pre))
	}

	dir = t.TempDir()
	long := strings.Repeat("b", 250)
	other := long[:249] + "c" // same first 249 bytes
	dead := deadPID(t)
	old := processStart.Add(-time.Hour)
	mk := func(base string) string {
		name := tempPrefix(base) + strconv.Itoa(dead) + "-123"
		q := filepath.Join(dir, name)
		if err := os.WriteFile(q, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(q, old, old); err != nil {
			t.Fatal(err)
		}
		return name
	}
	mk(long)
	keep := mk(other)
	if stale, _ := Temps(filepath.Join(dir, long)); len(stale) != 1 {
		t.Fatalf("stale temporary files of the long name: %v, want 1", stale)
	}
	if err := WriteFile(filepath.Join(dir, long), []byte("new")); err != nil {
		t.Fatal(err)
	}
	assertOnly(t, dir, keep, long)
}
