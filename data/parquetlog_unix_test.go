//go:build unix

package data

import (
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadParquetLogFIFO refuses a FIFO before opening it (opening would
// wait for a writer).
func TestReadParquetLogFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.parquet")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	want := path + ": not a regular file (a FIFO), refused: a Parquet log is read from its footer at the end"
	if _, err := readAllParquet(path); err == nil || err.Error() != want {
		t.Fatalf("error %v\nwant %s", err, want)
	}
}
