package main

import (
	"strings"
	"testing"
)

// TestStatsGrades: stats lists the grades up to the file's highest (2 here,
// under --max-label 4), and with --all-grades every grade up to
// --max-label, in the text and in the JSON alike.
func TestStatsGrades(t *testing.T) {
	// Grades 0, 0, 1, 2 and 0 over three queries; q2 has no relevant doc.
	f := writeText(t, t.TempDir(), "g.txt",
		"0 qid:1 1:0.5 2:1\n1 qid:1 1:0.1 2:0\n0 qid:2 1:0 2:0\n0 qid:2 1:1 2:1\n2 qid:3 1:0.3 2:0.2\n")
	for _, tc := range []struct {
		args      []string
		text      string // the grades line, after its label
		labels    string // the JSON's labels object
		fractions string // the JSON's label_fractions array
	}{
		{nil, " 0: 3 (60.0%) 1: 1 (20.0%) 2: 1 (20.0%)",
			`"labels":{"0":3,"1":1,"2":1}`, `"label_fractions":[0.6,0.2,0.2]`},
		{[]string{"--all-grades"}, " 0: 3 (60.0%) 1: 1 (20.0%) 2: 1 (20.0%) 3: 0 (0.0%) 4: 0 (0.0%)",
			`"labels":{"0":3,"1":1,"2":1,"3":0,"4":0}`, `"label_fractions":[0.6,0.2,0.2,0,0]`},
		{[]string{"--all-grades", "--max-label", "2"}, " 0: 3 (60.0%) 1: 1 (20.0%) 2: 1 (20.0%)",
			`"labels":{"0":3,"1":1,"2":1}`, `"label_fractions":[0.6,0.2,0.2]`},
	} {
		args := append(append([]string{"stats", "--no-cache"}, tc.args...), f)
		out, err := runCapture(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		want := f + "\n" +
			"  queries                   3\n" +
			"  documents                 5\n" +
			"  features                  2\n" +
			"  documents per query       min 1, mean 1.7, max 2\n" +
			"  grades                   " + tc.text + "\n" +
			"  queries without relevant  1 (33.3%)\n"
		if out != want {
			t.Errorf("%v:\n%s\nwant\n%s", tc.args, out, want)
		}
		out, err = runCapture(t, append([]string{"stats", "--json"}, args[1:]...)...)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, tc.labels) || !strings.Contains(out, tc.fractions) || strings.Count(out, "\n") != 1 {
			t.Errorf("%v --json: %s\nwant %s and %s", tc.args, out, tc.labels, tc.fractions)
		}
	}
}
