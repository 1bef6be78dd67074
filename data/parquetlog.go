package data

// The Parquet log reader reads with github.com/parquet-go/parquet-go, the
// maintained successor of segmentio/parquet-go: pure Go (no cgo, so piopt
// builds with CGO_ENABLED=0 as before), it reads nested LIST and struct
// columns as DuckDB, pyarrow and Spark write them, decompresses every
// codec they use (snappy, zstd, gzip, brotli, lz4), and gives access to
// one row group's column chunks page by page, so a log of 10^8 rows is
// streamed with the memory of a page per column. Apache Arrow's Go module
// reads Parquet as well but brings Arrow's whole columnar runtime along.
// The reader uses the library's low level only (schema, pages, values with
// their definition and repetition levels) and assembles LogRow itself:
// that is how a null element is told from a missing list, and how a
// warehouse's extra columns are never decoded.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"github.com/parquet-go/parquet-go"
)

// ErrParquetLog: a Parquet log's schema lacks or mistypes a column, or a
// row holds a null, an empty id, or is inconsistent (a corrupt file).
var ErrParquetLog = errors.New("bad Parquet log")

// ReadParquetLog streams the rows of a Parquet log (path ends in .parquet)
// to fn, row numbered from 1, one row group and one page per column at a
// time. The *LogRow and its slices are reused between calls (copy what you
// keep); its strings are immutable and may be kept.
//
// The columns are context (string), slate (list of strings), reward
// (number), and optionally policy and target, structs of spec (string),
// candidates (list of strings), scores and probs (lists of numbers) and
// slates (list of lists of strings), as docs/formats.md ("Parquet logs")
// gives them; other top-level columns are ignored. A null context, slate,
// reward, spec or list element, a non-finite number, or an id that is
// empty, not UTF-8 or holds control characters, spaces or ',' is an
// error naming file, row and field (`log.parquet: row 17: field
// policy.scores[3]: null`; indices from 0); a null policy or target is a
// nil one, a null candidates, scores, slates or probs a nil slice. A path
// that is not a regular file, and a corrupt or truncated file, are
// errors; an error fn returns stops the read and is returned as it is.
func ReadParquetLog(path string, fn func(row int64, r *LogRow) error) (err error) {
	rd := &pqReader{path: path, fn: fn}
	defer func() {
		if p := recover(); p != nil {
			if rd.inFn {
				panic(p) // fn's own panic is not the file's fault
			}
			err = rd.corrupt(fmt.Errorf("corrupt Parquet file: %v", p))
		}
	}()
	f, err := pqOpen(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	pf, err := pqOpenFile(path, f, st.Size())
	if err != nil {
		return err
	}
	if rd.plan, err = pqBuildPlan(path, pf.Root()); err != nil {
		return err
	}
	rd.init()
	for _, rg := range pf.RowGroups() {
		if err := rd.rowGroup(rg); err != nil {
			return err
		}
	}
	return nil
}

// pqOpen opens path for reading after checking it is a regular file: a
// Parquet file is read from its end (the footer), which a device, FIFO
// or folder does not have.
func pqOpen(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s), refused: a Parquet log is read from its footer at the end", path, pqModeName(st.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// pqModeName names a file's type for errors.
func pqModeName(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&(os.ModeDevice|os.ModeCharDevice) != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}

// pqOpenFile reads the file's footer (its schema and row groups). The
// footer's length is checked against the file's size first: the library
// would allocate whatever length a corrupt footer states.
func pqOpenFile(path string, f *os.File, size int64) (*parquet.File, error) {
	var tail [8]byte
	if size < 12 {
		return nil, pqSchemaError(path, "not a Parquet file: %d bytes, fewer than a Parquet file's 12-byte frame", size)
	}
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if string(tail[4:]) != "PAR1" {
		return nil, pqSchemaError(path, "not a Parquet file (no PAR1 at its end: truncated, or another format)")
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 {
		return nil, pqSchemaError(path, "corrupt Parquet file: a footer of %d bytes in a file of %d", n, size)
	}
	pf, err := parquet.OpenFile(f, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, &ParseError{File: path, Err: pqWrap{err}}
	}
	return pf, nil
}
