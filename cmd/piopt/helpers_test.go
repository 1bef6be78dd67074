package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// letorSpec describes a small random LETOR file for the command tests: the
// commands only need its shape (queries, sizes, 4 features, grades 0..2),
// and one writer keeps every test's file in the same format.
type letorSpec struct {
	file             string
	seed             uint64 // the generator is PCG(seed, seed+1)
	queries          int
	minDocs, maxDocs int  // documents per query, inclusive
	qid0             int  // qid of the first query
	intFeatures      bool // features 0..9 rather than three decimals in [0, 1)
}

// writeLETOR writes s's file into dir and returns its path. Each document
// draws its grade, then its 4 features, so a spec always gives the same file.
func writeLETOR(t *testing.T, dir string, s letorSpec) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(s.seed, s.seed+1))
	var b strings.Builder
	for q := range s.queries {
		for range s.minDocs + rng.IntN(s.maxDocs-s.minDocs+1) {
			fmt.Fprintf(&b, "%d qid:%d", rng.IntN(3), s.qid0+q)
			for f := 1; f <= 4; f++ {
				if s.intFeatures {
					fmt.Fprintf(&b, " %d:%d", f, rng.IntN(10))
				} else {
					fmt.Fprintf(&b, " %d:%.3f", f, rng.Float64())
				}
			}
			b.WriteString("\n")
		}
	}
	return writeText(t, dir, s.file, b.String())
}

// writeText writes a test file and returns its path.
func writeText(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// letorCommand writes s's file into a fresh temporary folder and returns
// the folder and the flags every command test passes to read it.
func letorCommand(t *testing.T, s letorSpec) (dir string, common []string) {
	t.Helper()
	dir = t.TempDir()
	return dir, []string{"--data", writeLETOR(t, dir, s), "--no-cache", "--max-label", "2"}
}

// runCapture runs the CLI and returns what it printed.
func runCapture(t *testing.T, args ...string) (string, error) {
	t.Helper()
	app := newApp()
	var out bytes.Buffer
	app.Writer = &out
	err := run(context.Background(), app, append([]string{"piopt"}, args...))
	return out.String(), err
}

// runPiopt runs the CLI for its files and error; what it prints goes to
// the test's stdout.
func runPiopt(t *testing.T, args ...string) error {
	t.Helper()
	return run(context.Background(), newApp(), append([]string{"piopt"}, args...))
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
