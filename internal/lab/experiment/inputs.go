package experiment

import (
	"fmt"
	"path/filepath"

	"github.com/piopt/piopt/internal/provenance"
)

// inputIDs identifies input files by their content for the keys of
// reused stages (fold results, targets, models, assembled training files,
// max-label caches). Size and modification time are not enough: a file
// edited in place with both kept would have its old results reused, and
// summary.json would list its old SHA-256. Each path is hashed once per
// run (SHA-256 streams at about 1.5 GB/s with the CPU's SHA extensions, 2
// s for an MSLR-WEB10K fold, which a run parses anyway).
type inputIDs map[string]provenance.Input

// input returns the SHA-256 and size of the file at path, hashing it the
// first time.
func (ids inputIDs) input(path string) (provenance.Input, error) {
	if in, ok := ids[path]; ok {
		return in, nil
	}
	in, err := provenance.HashFile(path)
	if err != nil {
		return in, err
	}
	ids[path] = in
	return in, nil
}

// id is the cache-key part of the input file at path: its absolute path,
// the SHA-256 of its bytes, and that of the FILE.query grouping its lines
// when there is one (data.Load reads it with the file). A file that cannot
// be read is its path alone: loading it fails anyway.
func (ids inputIDs) id(path string) string {
	abs, _ := filepath.Abs(path)
	in, err := ids.input(path)
	if err != nil {
		return abs
	}
	id := fmt.Sprintf("%s:sha256=%s", abs, in.SHA256)
	if q := queryFileOf(path); q != "" {
		if qin, err := ids.input(q); err == nil {
			id += ":query-sha256=" + qin.SHA256
		}
	}
	return id
}
