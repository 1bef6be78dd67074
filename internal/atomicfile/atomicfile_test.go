package atomicfile

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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

// A device node is written to, not replaced by a regular file.
func TestDeviceWrittenDirectly(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mknod needs root")
	}
	p := filepath.Join(t.TempDir(), "null")
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3); err != nil { // 1,3: like /dev/null
		t.Skipf("mknod: %v", err)
	}
	if err := WriteFile(p, []byte("discarded\n")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("after WriteFile %s has mode %v, want the character device", p, st.Mode())
	}
	assertOnly(t, filepath.Dir(p), "null")
}

// A FIFO is written to: its reader gets the data, and it stays a FIFO.
func TestFIFOWrittenDirectly(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan []byte, 1)
	go func() {
		b, _ := os.ReadFile(p)
		got <- b
	}()
	if err := WriteFile(p, []byte("through the pipe\n")); err != nil {
		t.Fatal(err)
	}
	if b := <-got; string(b) != "through the pipe\n" {
		t.Fatalf("the FIFO's reader got %q", b)
	}
	if st, err := os.Lstat(p); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("after WriteFile %s is %v (%v), want a FIFO", p, st.Mode(), err)
	}
	assertOnly(t, filepath.Dir(p), "fifo")
}

// A symbolic link is kept and its target written, also when the target does
// not exist yet or is reached through a chain of links.
func TestSymlinkFollowed(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "real")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(sub, "target.txt")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.txt")
	link2 := filepath.Join(dir, "link2.txt")
	if err := os.Symlink("real/target.txt", link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("link.txt", link2); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, link2} {
		if err := WriteFile(p, []byte("new via "+filepath.Base(p))); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(target); string(b) != "new via "+filepath.Base(p) {
			t.Fatalf("target reads %q after writing %s", b, p)
		}
	}
	for _, l := range []string{link, link2} {
		if st, err := os.Lstat(l); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a symbolic link (%v, %v)", l, st.Mode(), err)
		}
	}
	assertOnly(t, sub, "target.txt")
	// A dangling link: the target is created.
	os.Remove(target)
	if err := WriteFile(link2, []byte("created")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "created" {
		t.Fatalf("dangling link: target reads %q", b)
	}
}

// A folder as the destination fails at Create, naming the path.
func TestCreateOverFolder(t *testing.T) {
	dir := t.TempDir()
	_, err := Create(dir)
	if err == nil || !strings.Contains(err.Error(), "create "+dir+": ") {
		t.Fatalf("Create(folder) = %v, want an error naming it", err)
	}
}

// Temporary files carry the PID; stale ones of the same destination (older
// than the process, creator gone) are removed by the next write; a live
// writer's, a fresh one's and another file's are kept.
func TestStaleTempRemoved(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	want := "." + "out.txt" + ".piopt-tmp-" + strconv.Itoa(os.Getpid()) + "-"
	if name := filepath.Base(f.f.Name()); !strings.HasPrefix(name, want) {
		t.Fatalf("temporary file %q, want the prefix %q", name, want)
	}
	f.Abort()

	dead := deadPID(t)
	old := processStart.Add(-time.Hour)
	mk := func(name string, mtime time.Time) {
		q := filepath.Join(dir, name)
		if err := os.WriteFile(q, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(q, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	mk(".out.txt.piopt-tmp-"+strconv.Itoa(dead)+"-123", old)                       // stale: removed
	mk(".out.txt.piopt-tmp-"+strconv.Itoa(os.Getpid())+"-456", old)                // our PID before our start: removed
	mk(".out.txt.piopt-tmp-1-789", old)                                            // PID 1 is alive: kept
	mk(".out.txt.piopt-tmp-"+strconv.Itoa(dead)+"-999", time.Now().Add(time.Hour)) // newer than us: kept
	mk(".other.txt.piopt-tmp-"+strconv.Itoa(dead)+"-123", old)                     // another output: kept
	if err := WriteFile(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	assertOnly(t, dir, ".other.txt.piopt-tmp-"+strconv.Itoa(dead)+"-123",
		".out.txt.piopt-tmp-"+strconv.Itoa(dead)+"-999", ".out.txt.piopt-tmp-1-789", "out.txt")
}

// deadPID returns the PID of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if alive(pid) {
		t.Skipf("PID %d was reused already", pid)
	}
	return pid
}

// assertOnly fails unless dir holds exactly the named entries.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	slices.Sort(names)
	if !slices.Equal(got, names) {
		t.Fatalf("%s holds %q, want %q", dir, got, names)
	}
}
