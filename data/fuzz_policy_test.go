package data

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
)

// idDataset is a dataset whose documents are named by ids that hold the
// characters policy files give a meaning (':' and '='): query q1 with ids
// a:1, b=2, c, and q2 with x:y=z.
func idDataset(t testing.TB) *Dataset {
	t.Helper()
	text := "0 qid:q1 1:1 # a:1\n1 qid:q1 1:1 # b=2\n2 qid:q1 1:1 # c\n1 qid:q2 1:1 # x:y=z\n"
	ds, err := Read(strings.NewReader(text), "ids.txt", commentOpts())
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// FuzzReadPolicy reads arbitrary policy files against a dataset named by
// positions and one named by ids holding ':' and '=': no panic; every
// error names the file and a line (or the whole file); what is accepted is
// in range, its numbers finite and its slate probabilities a distribution;
// and writing it back reads back to the same entries.
func FuzzReadPolicy(f *testing.F) {
	head := "# piopt-policy v1 slots=2\n"
	for _, s := range []string{"", head, head + "q1\tuniform\t0,1,2\nq1@t\tpa:1\t3,2\n# c\n\nq2\tpl:0.5\t0:1.5,1:-2\n",
		head + "q1\teps:0.1,slates\t0 1=0.25,1 2=0.75\n", head + "q1\tpl:1\ta:1:2,b=2:0x1p-2\n", head + "q1\tslates\tb=2 c=1\n",
		head + "q1\tpl:1\t0:1\n" + head, "# piopt-policy v1 slots=2000000000\nq1\tuniform\t0\n", head + "q1\tuniform\t0,0\n",
		head + "q2\tpl:1\tx:y=z:3\n", head + "q1\tslates\ta:1 b=2=0.5,c a:1=0.5\n"} {
		f.Add([]byte(s))
	}
	sets := []*Dataset{smallDataset(), idDataset(f)}
	f.Fuzz(func(t *testing.T, text []byte) {
		for _, ds := range sets {
			pf, err := ReadPolicy(bytes.NewReader(text), "f.policy", ds)
			if err != nil {
				checkFileError(t, err, "f.policy", ErrPolicy, ErrHeader)
				continue
			}
			checkPolicy(t, pf, ds)
			var b bytes.Buffer
			if err := WritePolicy(&b, Header{}, pf.Slots, pf.Entries, ds); err != nil {
				t.Fatal(err)
			}
			back, err := ReadPolicy(bytes.NewReader(b.Bytes()), "back.policy", ds)
			if err != nil {
				t.Fatalf("written back:\n%s\nnot read: %v", b.String(), err)
			}
			for i := range back.Entries {
				back.Entries[i].Line = pf.Entries[i].Line
			}
			if !reflect.DeepEqual(back.Entries, pf.Entries) {
				t.Fatalf("round trip:\n%s\ngot  %+v\nwant %+v", b.String(), back.Entries, pf.Entries)
			}
		}
	})
}

// checkPolicy checks what ReadPolicy accepted.
func checkPolicy(t *testing.T, pf *PolicyFile, ds *Dataset) {
	t.Helper()
	if pf.Slots < 1 || pf.Slots > MaxSlots || len(pf.Entries) == 0 || len(pf.Hash) != 16 {
		t.Fatalf("accepted slots=%d, %d entries, hash %q", pf.Slots, len(pf.Entries), pf.Hash)
	}
	for _, e := range pf.Entries {
		seen := map[int32]bool{}
		for _, d := range e.Docs {
			if d < 0 || int(d) >= ds.QuerySize(e.Query) || seen[d] {
				t.Fatalf("line %d: accepted docs %v", e.Line, e.Docs)
			}
			seen[d] = true
		}
		for _, s := range e.Scores {
			if math.IsNaN(s) || math.IsInf(s, 0) {
				t.Fatalf("line %d: accepted score %v", e.Line, s)
			}
		}
		if e.Scores != nil && len(e.Scores) != len(e.Docs) {
			t.Fatalf("line %d: %d scores for %d docs", e.Line, len(e.Scores), len(e.Docs))
		}
		if e.Probs == nil {
			continue
		}
		sum := 0.0
		for _, p := range e.Probs {
			if !(p > 0 && p <= 1) {
				t.Fatalf("line %d: accepted probability %v", e.Line, p)
			}
			sum += p
		}
		l := min(pf.Slots, len(e.Docs))
		if math.Abs(sum-1) > 1e-9 || len(e.Slates) != l*len(e.Probs) {
			t.Fatalf("line %d: probabilities %v, %d slate docs", e.Line, e.Probs, len(e.Slates))
		}
		for _, a := range e.Slates {
			if a < 0 || int(a) >= len(e.Docs) {
				t.Fatalf("line %d: slate index %d of %d docs", e.Line, a, len(e.Docs))
			}
		}
	}
}
