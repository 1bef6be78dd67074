package data

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// LogFiles expands a log argument into the files to read, in order: a path
// that exists is itself (a folder: its files, sorted by name, hidden ones
// left out); otherwise a comma-separated list of such paths and of glob
// patterns (each pattern's matches sorted by name). A pattern that matches
// nothing, an empty folder and an empty list item are errors. One path
// that does not exist is returned as it is, for the open to report.
//
// Every reader of slate logs goes through it (OpenLogAssuming,
// ReadLogHeader), so that any log format can be given as many files.
func LogFiles(arg string) ([]string, error) {
	if _, err := os.Stat(arg); err == nil || !strings.ContainsAny(arg, ",*?[") {
		return expandLogPath(arg)
	}
	var out []string
	for _, item := range strings.Split(arg, ",") {
		if item == "" {
			return nil, fmt.Errorf("logs %q: an empty item in the list", arg)
		}
		if _, err := os.Stat(item); err == nil || !strings.ContainsAny(item, "*?[") {
			files, err := expandLogPath(item)
			if err != nil {
				return nil, err
			}
			out = append(out, files...)
			continue
		}
		matches, err := filepath.Glob(item)
		if err != nil {
			return nil, fmt.Errorf("logs %q: %w", item, err)
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("logs %q: no file matches", item)
		}
		sort.Strings(matches)
		out = append(out, matches...)
	}
	return out, nil
}

// expandLogPath is a folder's files sorted by name, or the path itself.
func expandLogPath(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("logs %s: %w", path, err)
	}
	var out []string
	for _, e := range entries { // ReadDir sorts by name
		if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, filepath.Join(path, e.Name()))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("logs %s: a folder without files", path)
	}
	return out, nil
}

// SetFilter makes Next skip, without reading their slates, the records
// whose qid (the first field, up to '@' for contexts) keep refuses: a
// shard of a log reads only its contexts. Skipped records still count as
// impressions for the check that the log is not empty.
func (lr *LogReader) SetFilter(keep func(qid []byte) bool) { lr.keep = keep }

// nextFile moves on to the log's next file: its header must equal the
// first file's (a headerless file is read with the same assumed header).
func (lr *LogReader) nextFile() error {
	if lr.closer != nil {
		lr.closer.Close()
		lr.closer = nil
	}
	path := lr.more[0]
	lr.more = lr.more[1:]
	r, c, err := openSlateFile(path)
	if err != nil {
		return fmt.Errorf("open slate log: %w", err)
	}
	var assumed Header
	if lr.headerless {
		assumed = lr.header
	}
	nr, err := newLogReader(r, path, lr.ds, assumed)
	if err != nil {
		c.Close()
		return err
	}
	if nr.headerless != lr.headerless || !maps.Equal(nr.header, lr.header) {
		c.Close()
		return &ParseError{File: path, Line: 1, Err: errorf(ErrHeader, "%s", headerDiff(lr.first, lr.header, nr.header, lr.headerless, nr.headerless))}
	}
	lr.lineReader, lr.pending, lr.closer = nr.lineReader, nr.pending, c
	return nil
}

// headerDiff says how a log file's header differs from the first file's.
func headerDiff(first string, a, b Header, aNone, bNone bool) string {
	if aNone != bNone {
		return fmt.Sprintf("one of the log's files has a header line and the other not (first file %s): every file of a log needs the same header", first)
	}
	keys := slices.Sorted(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if a[k] != b[k] {
			return fmt.Sprintf("header %s=%q differs from the first file %s's %s=%q: every file of a log needs the same header", k, b[k], first, k, a[k])
		}
	}
	return "header differs from the first file " + first + "'s"
}

// errNextFile is what next returns when a file ended and another follows.
var errNextFile = errors.New("next file")

// advance is next's end of a file: the next file, or io.EOF after the last.
func (lr *LogReader) advance() error {
	if len(lr.more) == 0 {
		return io.EOF
	}
	if err := lr.nextFile(); err != nil {
		return err
	}
	return errNextFile
}
