package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/piopt/piopt/internal/atomicfile"
)

// writeJSON writes v as indented JSON and a newline to path, replacing the
// file only once all of it is written: the form of every --json summary.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'))
}

// writeAtomic writes the file at path with write, replacing it only once
// write has succeeded.
func writeAtomic(path string, write func(w io.Writer) error) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := write(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}
