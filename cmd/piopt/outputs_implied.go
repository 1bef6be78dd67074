package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/internal/lab/evalgrid"
	"github.com/piopt/piopt/internal/lab/experiment"
	"github.com/piopt/piopt/internal/provenance"
	"github.com/urfave/cli/v2"
)

// checkImplied extends checkOutputs to the files no flag names: those a
// command reads by itself (the policy file a log's header names, a data
// file's FILE.query), those it writes by itself beside or under an output
// flag's (a run record NAME.run.json, OUT/grid.json, experiment's stages),
// and the binary cache's entries, which loading writes. ins and outs are
// the flags' files.
func checkImplied(c *cli.Context, ins, outs []named) error {
	implIns := impliedInputs(c, ins)
	implOuts, folders := impliedOutputs(c, outs)
	for _, o := range outs {
		for _, in := range implIns {
			if sameFile(o.path, in.path) {
				return fmt.Errorf("%s and %s name the same file (%s)", o, in, o.path)
			}
		}
	}
	allIns := slices.Concat(ins, implIns)
	for _, o := range implOuts {
		for _, other := range slices.Concat(allIns, outs) {
			if sameFile(o.path, other.path) {
				return fmt.Errorf("%s and %s name the same file (%s)", o, other, o.path)
			}
		}
	}
	for _, f := range folders {
		for _, in := range allIns {
			if name := f.holds(in.path); name != "" {
				return fmt.Errorf("%s is %s, a file --%s writes (%s)", in, name, f.flag, in.path)
			}
		}
	}
	if c.Bool("no-cache") || !slices.ContainsFunc(c.Command.Flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), "cache-dir") }) {
		return nil
	}
	for _, o := range slices.Concat(outs, implOuts) {
		if data.IsCacheFile(o.path, c.String("cache-dir")) {
			return fmt.Errorf("%s names an entry of piopt's binary cache (%s), which loading data writes by itself", o, o.path)
		}
	}
	return nil
}

// impliedInputs returns the files a command reads without a flag naming
// them: for every slate log (--logs, a regular file: a pipe must not be
// read twice), the policy file its header's policy= names; for every data
// file without --query-file, the FILE.query read with it.
func impliedInputs(c *cli.Context, ins []named) []named {
	var out []named
	for _, in := range ins {
		switch in.flag {
		case "logs":
			if st, err := os.Stat(in.path); err != nil || !st.Mode().IsRegular() {
				continue
			}
			if h, err := data.ReadLogHeader(in.path); err == nil && h != nil {
				if p := data.PolicyPath(in.path, h); p != "" {
					out = append(out, named{in.flag, p, "policy file (its header's policy=)"})
				}
			}
		case "data", "valid-data", "policy-data":
			if c.String("query-file") != "" {
				continue
			}
			if q := data.QueryFileOf(in.path); q != "" {
				out = append(out, named{in.flag, q, "query file"})
			}
		}
	}
	return out
}

// writtenFolder is an output folder and the names a command writes in it
// by itself (filepath.Match patterns, relative to the folder).
type writtenFolder struct {
	flag, dir string
	names     []string
}

// holds returns the pattern that path matches inside the folder ("" when
// none does), symbolic links followed on both sides.
func (f writtenFolder) holds(path string) string {
	dir, _ := identity(f.dir)
	p, _ := identity(path)
	rel, err := filepath.Rel(dir, p)
	if dir == "" || p == "" || err != nil {
		return ""
	}
	for _, pat := range f.names {
		if ok, _ := filepath.Match(pat, rel); ok {
			return filepath.Join(filepath.Base(f.dir), pat)
		}
	}
	return ""
}

// impliedOutputs returns the files a command writes beside its output
// flags' files (named), and the output folders it writes files of its own
// naming into (folders).
func impliedOutputs(c *cli.Context, outs []named) (named []named, folders []writtenFolder) {
	byFlag := map[string]string{}
	for _, o := range outs {
		byFlag[o.flag] = o.path
	}
	switch c.Command.Name {
	case "evaluate-sweep":
		// The run record goes beside the first of --json, --html.
		for _, f := range []string{"json", "html"} {
			if p := byFlag[f]; p != "" {
				named = append(named, runRecord(f, p))
				break
			}
		}
	case "evaluate-grid":
		if p := byFlag["out"]; p != "" {
			folders = append(folders, writtenFolder{"out", p, evalgrid.WrittenNames})
		}
	case "experiment":
		if p := byFlag["out"]; p != "" {
			folders = append(folders, writtenFolder{"out", p, experiment.WrittenNames})
		}
	}
	return named, folders
}

// runRecord is the run record written beside flag's file p.
func runRecord(flag, p string) named {
	return named{flag, provenance.RunPath(p), "run record"}
}
