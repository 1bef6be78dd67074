package data

import (
	"bytes"
	"testing"
)

// FuzzTargetFiles reads arbitrary target scores files, TREC runs and
// target policy files against smallDataset: no panic; every error is a
// *ParseError naming the file and a line (or the whole file); every
// document kept is a document of its query or a name of its own.
func FuzzTargetFiles(f *testing.F) {
	for _, s := range []string{"", "q1\t0\t1\nq1\t1\t0.5\nq2\tx\t3\n", "q1\t0\tNaN\n", "q1\t0\n", "q9\t0\t1\n",
		"q1 Q0 0 1 2.5 t\nq1 Q0 z 1 3 t\n", "q1 Q0 0 x 1 t\n", "q1 Q0 0 1 1\n",
		"# piopt-policy v1 slots=2\nq1\trank\t0,z,1\nq1@a\tpl:1\t0:1,y:2\n", "# piopt-policy v1 slots=2\nq1\tslates\t0 z=0.5,z 1=0.5\n",
		"# piopt-policy v1 slots=2\nq1\teps:0.1,rank\t0,1\n"} {
		f.Add([]byte(s))
	}
	ds := smallDataset()
	check := func(t *testing.T, td *TargetData, err error, name string) {
		if err != nil {
			checkFileError(t, err, name, ErrRow)
			return
		}
		for _, l := range td.Contexts {
			for i, d := range l.Docs {
				if d >= int32(ds.QuerySize(l.Query)) || (d < 0 && int(-d) > len(l.Names)) {
					t.Fatalf("%s: context %q document %d out of range", name, l.Context, d)
				}
				_ = l.DocName(ds, i)
			}
		}
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		td, err := readTargetScores(bytes.NewReader(text), "s.tsv", ds)
		check(t, td, err, "s.tsv")
		td, err = readRun(bytes.NewReader(text), "r.run", ds)
		check(t, td, err, "r.run")
		pf, err := readPolicy(bytes.NewReader(text), "p.policy", ds, true)
		if err != nil {
			checkFileError(t, err, "p.policy", ErrHeader, ErrPolicy)
			return
		}
		for _, e := range pf.Entries {
			for i := range e.Docs {
				_ = e.DocName(ds, i)
			}
		}
	})
}
