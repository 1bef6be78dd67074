package atomicfile_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/piopt/piopt/internal/atomicfile"
)

// Write a whole file at once: readers see the old contents or the new
// ones, never a part.
func ExampleWriteFile() {
	dir, err := os.MkdirTemp("", "atomicfile-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "summary.txt")
	if err := atomicfile.WriteFile(path, []byte("NDCG@3 0.51\n")); err != nil {
		log.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(b))
	// Output: NDCG@3 0.51
}

// Stream a file through Create and Commit; Abort (deferred) discards an
// unfinished one and leaves the previous file in place.
func ExampleCreate() {
	dir, err := os.MkdirTemp("", "atomicfile-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "scores.txt")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		log.Fatal(err)
	}

	// An aborted write leaves the old file untouched.
	f, err := atomicfile.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintln(f, "half-written")
	f.Abort()
	b, _ := os.ReadFile(path)
	fmt.Printf("after Abort: %q\n", b)

	// A committed one replaces it.
	f, err = atomicfile.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Abort() // does nothing after Commit
	for i := range 3 {
		fmt.Fprintf(f, "line %d\n", i)
	}
	if err := f.Commit(); err != nil {
		log.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	fmt.Printf("after Commit: %q\n", b)

	// No temporary file is left behind.
	entries, _ := os.ReadDir(dir)
	fmt.Println(len(entries), "file in the folder")
	// Output:
	// after Abort: "old\n"
	// after Commit: "line 0\nline 1\nline 2\n"
	// 1 file in the folder
}
