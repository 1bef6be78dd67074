package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/piopt/piopt/internal/atomicfile"
	"github.com/urfave/cli/v2"
)

// inputFlags and outputFlags name the flags of every command that read and
// write files (or, for --folds and experiment's --out, folders).
var (
	inputFlags = []string{"data", "logs", "model", "sup-model", "targets", "valid-data",
		"valid-targets", "query-file", "policy-data", "policy", "folds", "target", "rank-by",
		"candidates-by", "models", "baseline", "target-policy", "target-scores"}
	outputFlags = []string{"out", "json", "html", "per-query", "policy-out", "partial"}
)

// checkOutputs refuses, before any work, a command line whose output flag
// names the same file as an input flag (writing it would destroy the input)
// or as another output flag (one would silently overwrite the other), and
// likewise for the files a command reads or writes by itself, which no flag
// names (checkImplied). Files
// are compared by identity: the same device and inode when both exist, else
// the same cleaned absolute path, symbolic links followed either way. An
// output that is an existing special file (/dev/null, a FIFO) is written to,
// not replaced, so it may be given more than once.
func checkOutputs(c *cli.Context) error {
	var ins, outs []named
	for _, f := range c.Command.Flags {
		sf, ok := f.(*cli.StringFlag)
		if !ok || !c.IsSet(sf.Name) {
			continue
		}
		if c.String(sf.Name) == "" {
			if slices.Contains(outputFlags, sf.Name) {
				return fmt.Errorf("--%s: empty file name", sf.Name)
			}
			continue
		}
		v := c.String(sf.Name)
		switch {
		case sf.Name == "target" || sf.Name == "rank-by" || sf.Name == "candidates-by" || sf.Name == "baseline":
			if p, ok := strings.CutPrefix(v, "model:"); ok {
				ins = append(ins, named{flag: sf.Name, path: p})
			} else if p, ok := strings.CutPrefix(v, "run:"); ok && sf.Name == "target" {
				ins = append(ins, named{flag: sf.Name, path: p})
			}
		case sf.Name == "models":
			for _, p := range modelPaths(v) {
				ins = append(ins, named{flag: sf.Name, path: p})
			}
		case slices.Contains(inputFlags, sf.Name):
			ins = append(ins, named{flag: sf.Name, path: v})
		case slices.Contains(outputFlags, sf.Name):
			if st, err := os.Stat(v); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
				continue
			}
			outs = append(outs, named{flag: sf.Name, path: v})
		}
	}
	for i, o := range outs {
		for _, other := range append(ins, outs[i+1:]...) {
			if sameFile(o.path, other.path) {
				return fmt.Errorf("%s and %s name the same file (%s)", o, other, o.path)
			}
		}
	}
	return checkImplied(c, ins, outs)
}

// named is a file a command reads or writes: the flag that gives it, and,
// for a file the command finds or names by itself, how it comes from that
// flag (what, e.g. "the policy file its log's header names").
type named struct{ flag, path, what string }

// String names the file in messages: "--out", or "--logs's policy file".
func (n named) String() string {
	if n.what != "" {
		return "--" + n.flag + "'s " + n.what
	}
	return "--" + n.flag
}

// sameFile reports whether a and b name the same file.
func sameFile(a, b string) bool {
	ra, sa := identity(a)
	rb, sb := identity(b)
	if sa != nil || sb != nil {
		return sa != nil && sb != nil && os.SameFile(sa, sb)
	}
	return ra != "" && ra == rb
}

// identity returns the absolute path that p names once its symbolic links
// are followed (also a dangling one, and links in its folders), and the
// file's information when it exists.
func identity(p string) (string, fs.FileInfo) {
	p, err := filepath.Abs(p)
	if err != nil {
		return "", nil
	}
	// The file atomicfile would write: symbolic links followed.
	r, st, err := atomicfile.Resolve(p)
	if err != nil {
		return p, nil
	}
	if st != nil {
		return r, st
	}
	// Missing: its folder may still be reached through a link.
	if dir, err := filepath.EvalSymlinks(filepath.Dir(r)); err == nil {
		return filepath.Join(dir, filepath.Base(r)), nil
	}
	return r, nil
}

// modelPaths returns the files a --models list of select reads: each
// entry, NAME=SPEC or SPEC, is a model file (PATH or model:PATH) unless it
// is another rank source (feature:, tree:, lasso:); offpolicy's
// ParseSelectModels reads the list alike, loading the files.
func modelPaths(list string) []string {
	var paths []string
	for _, e := range strings.Split(list, ",") {
		e = strings.TrimSpace(e)
		if _, spec, ok := strings.Cut(e, "="); ok {
			if _, err := os.Stat(e); err != nil { // a file named a=b is a file
				e = spec
			}
		}
		if p, ok := strings.CutPrefix(e, "model:"); ok {
			paths = append(paths, p)
		} else if e != "" && !strings.HasPrefix(e, "feature:") && !strings.HasPrefix(e, "tree:") && !strings.HasPrefix(e, "lasso:") {
			paths = append(paths, e)
		}
	}
	return paths
}
