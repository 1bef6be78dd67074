package data

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// mountTmpfs mounts a tmpfs with flags and options on a new folder and
// unmounts it when the test ends; it skips the test, saying why, when it
// cannot (not root, or no mount permission in this container).
func mountTmpfs(t *testing.T, flags uintptr, opts string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", flags, opts); err != nil {
		t.Skipf("mount -t tmpfs -o %s %s: %v", opts, dir, err)
	}
	// Registered after TempDir's removal, so it runs before it.
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("umount %s: %v", dir, err)
		}
	})
	return dir
}

// writeBigLETOR writes a LETOR file whose cache entry (docs × 20 features ×
// 4 bytes, about 16 KiB) cannot fit in an 8 KiB tmpfs.
func writeBigLETOR(t *testing.T, dir, name string, qid0 int) string {
	t.Helper()
	var b strings.Builder
	for d := range 200 {
		fmt.Fprintf(&b, "%d qid:%d", d%3, qid0+d/10)
		for f := 1; f <= 20; f++ {
			fmt.Fprintf(&b, " %d:%d.%d", f, (d*f)%17, (d+f)%10)
		}
		b.WriteString("\n")
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A real full or read-only cache folder (a tmpfs, as root): each of two
// files loaded twice reads as without a cache, the folder is reported once
// with the system's reason, and the folder is left empty.
func TestCacheRealMounts(t *testing.T) {
	for _, c := range []struct {
		name  string
		flags uintptr
		opts  string
		why   string
	}{
		{"full", 0, "size=8k", "no space left on device"},
		{"read-only", syscall.MS_RDONLY, "size=1m", "read-only file system"},
	} {
		t.Run(c.name, func(t *testing.T) {
			mnt := mountTmpfs(t, c.flags, c.opts)
			srcDir := t.TempDir()
			a := writeBigLETOR(t, srcDir, "a.txt", 1)
			b := writeBigLETOR(t, srcDir, "b.txt", 100)
			warns, opt := withCacheWarnings(t)
			for _, p := range []string{a, b, a, b} {
				want, err := Load(p, ReadOptions{NoCache: true})
				if err != nil {
					t.Fatal(err)
				}
				if d := sameDataset(mustLoad(t, p, opt(mnt)), want); d != "" {
					t.Fatalf("%s: %s", p, d)
				}
			}
			wantNotice := "piopt: cache " + mnt + " not usable (" + c.why + "): reading without a cache\n"
			if warns.String() != wantNotice {
				t.Errorf("notices\n%q\nwant\n%q", warns, wantNotice)
			}
			ents, err := os.ReadDir(mnt)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ents {
				t.Errorf("%s left in the cache folder", e.Name())
			}
		})
	}
}
