package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// File is an output file under construction. Write through W (buffered);
// Commit makes it visible under its final name, Abort discards it.
type File struct {
	W    *bufio.Writer
	f    *os.File
	path string
	done bool
}

// Create starts writing path. The caller must end with Commit or Abort;
// `defer f.Abort()` right after Create is safe, as Abort after Commit does
// nothing.
func Create(path string) (*File, error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &File{W: bufio.NewWriterSize(f, 1<<20), f: f, path: path}, nil
}

// Write implements io.Writer.
func (a *File) Write(p []byte) (int, error) { return a.W.Write(p) }

// Commit flushes, syncs and renames the file into place.
func (a *File) Commit() error {
	if a.done {
		return errors.New("atomicfile: commit after close")
	}
	a.done = true
	err := a.W.Flush()
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(a.f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(a.f.Name(), a.path)
	}
	if err != nil {
		os.Remove(a.f.Name())
		return fmt.Errorf("write %s: %w", a.path, err)
	}
	return nil
}

// Abort removes the temporary file; the destination is left untouched.
func (a *File) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.f.Close()
	os.Remove(a.f.Name())
}

// WriteFile writes data to path atomically.
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}
