package atomicfile

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// processStart approximates the start of the running process: package
// initialisation runs before any output is created.
var processStart = time.Now()

// tmpInfix marks the temporary files of this package: a temporary file of
// NAME is ".NAME.piopt-tmp-PID-RANDOM", PID being its creator's.
const tmpInfix = ".piopt-tmp-"

// File is an output file under construction. Write through W (buffered);
// Commit makes it visible under its final name, Abort discards it.
type File struct {
	W      *bufio.Writer
	f      *os.File
	path   string // the destination, symbolic links resolved
	name   string // the destination as given, for messages
	direct bool   // writing straight to a special file: no temp, no rename
	done   bool
}

// Create starts writing path. The caller must end with Commit or Abort;
// `defer f.Abort()` right after Create is safe, as Abort after Commit does
// nothing.
//
// A symbolic link is followed: its target is written atomically and the link
// is kept. A special file (device, FIFO, socket) cannot be replaced without
// destroying it, so it is opened and written directly; Abort then cannot undo
// what was written. Create also removes the stale temporary files an
// interrupted writer of the same destination left behind (see removeStale).
func Create(path string) (*File, error) {
	dest, st, err := Resolve(path)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	if st != nil && !st.Mode().IsRegular() {
		f, err := openSpecial(dest, st)
		if err != nil {
			return nil, fmt.Errorf("create %s: %w", path, err)
		}
		return &File{W: bufio.NewWriterSize(f, 1<<20), f: f, path: dest, name: path, direct: true}, nil
	}
	dir, base := filepath.Dir(dest), filepath.Base(dest)
	removeStale(dir, base)
	f, err := os.CreateTemp(dir, tempPrefix(base)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &File{W: bufio.NewWriterSize(f, 1<<20), f: f, path: dest, name: path}, nil
}

// ErrNotOwned: CreateOwned found at its destination something that is not
// a regular file of the running user (a folder, a device, a FIFO, another
// user's file), which it neither writes through nor replaces.
var ErrNotOwned = errors.New("not a regular file of this user")

// CreateOwned starts writing path itself, for files a program names by
// itself in a folder others may write to (a cache): a symbolic link at path
// is replaced by the new file, never followed, so a planted link cannot
// make the write land on another file; anything else at path but a regular
// file the running user owns is refused with ErrNotOwned. Commit and Abort
// work as for Create.
func CreateOwned(path string) (*File, error) {
	if st, err := os.Lstat(path); err == nil && st.Mode()&fs.ModeSymlink == 0 && !Owned(st) {
		return nil, &fs.PathError{Op: "create", Path: path, Err: ErrNotOwned}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	removeStale(dir, base)
	f, err := os.CreateTemp(dir, tempPrefix(base)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	// Rename replaces a link at path itself: it never follows it.
	return &File{W: bufio.NewWriterSize(f, 1<<20), f: f, path: path, name: path}, nil
}

// Owned reports whether st is a regular file that the running user owns
// (where the system tells owners).
func Owned(st fs.FileInfo) bool {
	if !st.Mode().IsRegular() {
		return false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return !ok || int(sys.Uid) == os.Getuid()
}

// FIFOWait is how long Create waits for a FIFO's reader to open it.
const FIFOWait = 2 * time.Second

// ErrNoReader: a FIFO given as output has no process reading it.
var ErrNoReader = errors.New("a FIFO with no reader")

// openSpecial opens a device, FIFO or socket for writing. A FIFO is opened
// without blocking: a blocking open waits for a reader for ever, so one
// that has none after FIFOWait (time for a reader started beside piopt to
// open it) is an error.
func openSpecial(dest string, st fs.FileInfo) (*os.File, error) {
	if st.Mode()&fs.ModeNamedPipe == 0 {
		return os.OpenFile(dest, os.O_WRONLY, 0)
	}
	deadline := time.Now().Add(FIFOWait)
	for {
		f, err := os.OpenFile(dest, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if !errors.Is(err, syscall.ENXIO) {
			return f, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w after %v: start its reader first", ErrNoReader, FIFOWait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// nameMax is the longest file name (in bytes) of Linux's file systems.
const nameMax = 255

// tempBase is how long a destination's name may be in its temporary file's
// name, ".BASE.piopt-tmp-PID-RANDOM", so that the whole stays within
// nameMax: PID up to 7 digits (Linux's 2^22) and RANDOM up to 10
// (os.CreateTemp's uint32).
const tempBase = nameMax - 1 - len(tmpInfix) - 7 - 1 - 10

// tempPrefix is the name of base's temporary files up to the PID:
// ".BASE.piopt-tmp-". A name too long for that (a legal output name of 230
// to 255 bytes) is cut to its first bytes, at a UTF-8 boundary, and a hash
// of the whole name follows them, "~HASH", so that two long names sharing
// their first bytes keep their temporary files apart.
func tempPrefix(base string) string {
	if len(base) <= tempBase {
		return "." + base + tmpInfix
	}
	h := fnv.New32a()
	h.Write([]byte(base))
	sum := fmt.Sprintf("~%08x", h.Sum32())
	cut := tempBase - len(sum)
	for cut > 0 && !utf8.RuneStart(base[cut]) {
		cut--
	}
	return "." + base[:cut] + sum + tmpInfix
}

// Resolve follows the symbolic links of path to the file they name, the file
// Create writes, and returns that file's path and information (nil when it
// does not exist).
func Resolve(path string) (string, fs.FileInfo, error) {
	for range 64 {
		st, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil, nil
		}
		if err != nil {
			return "", nil, err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			return path, st, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", nil, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", nil, errors.New("too many levels of symbolic links")
}

// removeStale removes the temporary files of base in dir whose creator is
// gone: modified before the running process started, and made by a process
// that no longer exists (or by one with our own PID, which before our start
// can only be an earlier process, as in a restarted container). Both tests
// are needed: the time alone would remove the file of a live concurrent
// writer that started earlier, and a dead PID alone can be a concurrent
// writer's in another PID namespace whose files are brand new. A file whose
// PID was reused by an unrelated live process is kept; a later run removes
// it once that process ends. Errors are ignored: this is housekeeping.
func removeStale(dir, base string) {
	stale, _ := Temps(filepath.Join(dir, base))
	for _, m := range stale {
		os.Remove(m)
	}
}

// Temps returns the temporary files that writes to path have left beside
// it: stale, those of killed writers that a write to path would remove
// (see removeStale), and live, those that may still be in use.
func Temps(path string) (stale, live []string) {
	dir, base := filepath.Split(path)
	prefix := tempPrefix(base)
	matches, err := filepath.Glob(filepath.Join(dir, escapeGlob(prefix)+"*"))
	if err != nil {
		return nil, nil
	}
	for _, m := range matches {
		rest := strings.TrimPrefix(filepath.Base(m), prefix)
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 {
			continue
		}
		st, err := os.Lstat(m)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		if st.ModTime().Before(processStart) && (pid == os.Getpid() || !alive(pid)) {
			stale = append(stale, m)
		} else {
			live = append(live, m)
		}
	}
	return stale, live
}

// alive reports whether a process with this PID exists (EPERM: it exists
// but belongs to another user).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// escapeGlob quotes the pattern characters of a file name.
func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Write implements io.Writer.
func (a *File) Write(p []byte) (int, error) { return a.W.Write(p) }

// Commit flushes, syncs and renames the file into place (a special file is
// only flushed and closed).
func (a *File) Commit() error {
	if a.done {
		return errors.New("atomicfile: commit after close")
	}
	a.done = true
	err := a.W.Flush()
	if a.direct {
		if cerr := a.f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", a.name, err)
		}
		return nil
	}
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
		return fmt.Errorf("write %s: %w", a.name, err)
	}
	return nil
}

// Abort removes the temporary file; the destination is left untouched
// (a special file keeps what was already written to it).
func (a *File) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.f.Close()
	if !a.direct {
		os.Remove(a.f.Name())
	}
}

// WriteFile writes data to path atomically.
func WriteFile(path string, data []byte) error {
	return WriteWith(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteWith writes the file at path with write, replacing it only once
// write has succeeded.
func WriteWith(path string, write func(w io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := write(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// WriteJSON writes v as indented JSON and a newline to path atomically:
// the form of every --json summary.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFile(path, append(b, '\n'))
}
