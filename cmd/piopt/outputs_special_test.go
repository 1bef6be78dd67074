package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// simulateTo runs simulate on the test's data with --out out; what it
// prints to stdout is dropped.
func simulateTo(t *testing.T, common []string, out string) error {
	t.Helper()
	args := append([]string{"simulate", "--slots", "2", "--logging", "uniform", "--samples", "40", "--seed", "5", "--out", out}, common...)
	_, err := runCapture(t, args...)
	return err
}

// noTemps fails when dir holds a temporary file of the atomic writer.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), ".piopt-tmp-") {
			t.Errorf("temporary file %s left in %s", e.Name(), dir)
		}
	}
}

// A command's --out that is a character device, a FIFO or a symbolic link
// is written through, not replaced: the device stays the device, the FIFO's
// reader gets the bytes a regular --out gets, the link stays a link to a
// target holding those bytes, and no temporary file is left.
func TestOutputSpecialFiles(t *testing.T) {
	_, common := letorCommand(t, letorSpec{file: "d.txt", seed: 7, queries: 5, minDocs: 2, maxDocs: 6})
	ref := filepath.Join(t.TempDir(), "ref.log")
	if err := simulateTo(t, common, ref); err != nil {
		t.Fatal(err)
	}
	want := mustRead(t, ref)
	if len(want) == 0 {
		t.Fatal("empty reference log")
	}

	t.Run("device", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("mknod of a character device needs root")
		}
		dir := t.TempDir()
		dev := filepath.Join(dir, "null")
		const rdev = 1<<8 | 3 // major 1, minor 3: what /dev/null is on Linux
		if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, rdev); err != nil {
			t.Skipf("mknod %s c 1 3: %v", dev, err)
		}
		if err := simulateTo(t, common, dev); err != nil {
			t.Fatal(err)
		}
		st, err := os.Lstat(dev)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("%s is now %v, want the character device", dev, st.Mode())
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Rdev != rdev {
			t.Errorf("%s is now device %#x, want %#x", dev, sys.Rdev, rdev)
		}
		noTemps(t, dir)
	})

	t.Run("fifo", func(t *testing.T) {
		dir := t.TempDir()
		fifo := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skipf("mkfifo %s: %v", fifo, err)
		}
		got := make(chan []byte, 1)
		go func() {
			b, err := os.ReadFile(fifo)
			if err != nil {
				t.Errorf("reading the FIFO: %v", err)
			}
			got <- b
		}()
		err := simulateTo(t, common, fifo)
		if err != nil {
			// Release the reader, which would wait for a writer forever.
			if w, werr := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); werr == nil {
				w.Close()
			}
			t.Fatal(err)
		}
		select {
		case b := <-got:
			if !bytes.Equal(b, want) {
				t.Errorf("the FIFO's reader got %d bytes:\n%s\nwant the %d of a regular --out:\n%s", len(b), b, len(want), want)
			}
		case <-time.After(time.Minute):
			t.Fatal("the FIFO's reader got no end of file")
		}
		if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("%s is now %v (%v), want a FIFO", fifo, st.Mode(), err)
		}
		noTemps(t, dir)
	})

	t.Run("symlink", func(t *testing.T) {
		dir := t.TempDir()
		target := writeText(t, dir, "target.log", "an older log\n")
		link := filepath.Join(dir, "out.log")
		if err := os.Symlink("target.log", link); err != nil {
			t.Fatal(err)
		}
		if err := simulateTo(t, common, link); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%s is now %v (%v), want the link", link, st.Mode(), err)
		}
		if to, err := os.Readlink(link); err != nil || to != "target.log" {
			t.Errorf("%s now points to %q (%v), want target.log", link, to, err)
		}
		if st, err := os.Lstat(target); err != nil || !st.Mode().IsRegular() {
			t.Fatalf("target %s is now %v (%v), want a regular file", target, st.Mode(), err)
		}
		if b := mustRead(t, target); !bytes.Equal(b, want) {
			t.Errorf("target holds %d bytes:\n%s\nwant the %d of a regular --out:\n%s", len(b), b, len(want), want)
		}
		noTemps(t, dir)
	})
}
