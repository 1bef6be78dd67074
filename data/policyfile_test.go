package data

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// policyData is two queries: qid 7 with 5 documents, qid 9 with 3.
func policyData(t *testing.T) *Dataset {
	t.Helper()
	var b strings.Builder
	for i := range 5 {
		b.WriteString("1 qid:7 1:0.5 # d" + string(rune('a'+i)) + "\n")
	}
	for i := range 3 {
		b.WriteString("0 qid:9 1:0.1 # e" + string(rune('a'+i)) + "\n")
	}
	ds, err := Read(strings.NewReader(b.String()), "p.txt", DefaultReadOptions())
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestReadPolicy(t *testing.T) {
	ds := policyData(t)
	in := "# piopt-policy v1 slots=2\n" +
		"7\tuniform\t0,1,2\n" +
		"7@b\tpa:1\t4,3,2,1\n" +
		"# a comment\n\n" +
		"7@c\tpl:0.5\t0:1.5,2:-3,4:1e2\n" +
		"9\teps:0.1,slates\t0 1=0.25,1 2=0.75\n" +
		"9@x@y\teps:0.2,pl:1\t2:0,0:0\n"
	pf, err := ReadPolicy(strings.NewReader(in), "p.policy", ds)
	if err != nil {
		t.Fatal(err)
	}
	want := []PolicyEntry{
		{Context: "7", Query: 0, Spec: "uniform", Docs: []int32{0, 1, 2}, Line: 2},
		{Context: "7@b", Query: 0, Spec: "pa:1", Docs: []int32{4, 3, 2, 1}, Line: 3},
		{Context: "7@c", Query: 0, Spec: "pl:0.5", Docs: []int32{0, 2, 4}, Scores: []float64{1.5, -3, 100}, Line: 6},
		{Context: "9", Query: 1, Spec: "eps:0.1,slates", Docs: []int32{0, 1, 2}, Slates: []int32{0, 1, 1, 2}, Probs: []float64{0.25, 0.75}, Line: 7},
		{Context: "9@x@y", Query: 1, Spec: "eps:0.2,pl:1", Docs: []int32{2, 0}, Scores: []float64{0, 0}, Line: 8},
	}
	if pf.Slots != 2 || !reflect.DeepEqual(pf.Entries, want) {
		t.Fatalf("got slots %d\n%+v\nwant\n%+v", pf.Slots, pf.Entries, want)
	}
	// Written back and read again: the same entries (lines renumbered).
	var buf bytes.Buffer
	if err := WritePolicy(&buf, Header{}, pf.Slots, pf.Entries, ds); err != nil {
		t.Fatal(err)
	}
	back, err := ReadPolicy(&buf, "back", ds)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i].Line = i + 2
	}
	if !reflect.DeepEqual(back.Entries, want) {
		t.Errorf("round trip:\n%+v\nwant\n%+v", back.Entries, want)
	}
}

func TestReadPolicyErrors(t *testing.T) {
	ds := policyData(t)
	const h = "# piopt-policy v1 slots=2\n"
	for _, tc := range []struct {
		name, in, want string
		kind           error
	}{
		{"no header", "7\tuniform\t0,1\n", "p:1: first line is not a `# piopt-policy v1", ErrHeader},
		{"no slots", "# piopt-policy v1\n7\tuniform\t0,1\n", "p:1: header lacks slots=", ErrHeader},
		{"no context", h, "p: no context", ErrPolicy},
		{"unknown qid", h + "8@x\tuniform\t0,1\n", `p:2: field 1 ("8@x"): qid "8" is not in p.txt`, ErrQID},
		{"two fields", h + "7\tuniform\n", "p:2: 2 tab-separated fields, want 3", ErrRow},
		{"bad spec", h + "7\tzipf\t0,1\n", `p:2: field 2 ("zipf"): want uniform, pa:ALPHA, pl:TAU, slates or eps:E,SPEC`, ErrPolicy},
		{"doc out of range", h + "7\tuniform\t0,5\n", `p:2: field 3 ("0,5"): document "5" is not in qid 7`, ErrSlate},
		{"repeated candidate", h + "7\tuniform\t0,1,0\n", `field 3 ("0,1,0"): candidate "0" is repeated (candidate 1)`, ErrSlate},
		{"score missing", h + "7\tpl:1\t0:1,1\n", `candidate "1": want DOC:SCORE`, ErrPolicy},
		{"score NaN", h + "7\tpl:1\t0:1,1:NaN\n", `score "NaN" of candidate "1" is not a finite number`, ErrNumber},
		{"score Inf", h + "7\tpl:1\t0:1,1:-Inf\n", `score "-Inf" of candidate "1" is not a finite number`, ErrNumber},
		{"probabilities", h + "7\tslates\t0 1=0.5,1 2=0.4\n", "slate probabilities sum to 0.9, not 1", ErrPolicy},
		{"zero probability", h + "7\tslates\t0 1=0,1 2=1\n", `slate 1: probability "0" is not in (0, 1]`, ErrNumber},
		{"slate length", h + "7\tslates\t0 1 2=1\n", "slate 1 has 3 documents; with slots=2 and 3 candidates a slate has 2", ErrSlate},
		{"slate repeats", h + "7\tslates\t0 0=1\n", `slate 1 repeats document "0"`, ErrSlate},
		{"context twice", h + "7@a\tuniform\t0,1\n9\tuniform\t0,1\n7@a\tuniform\t1,2\n", `p:4: field 1 ("7@a"): context "7@a" is given again (first on line 2)`, ErrPolicy},
	} {
		_, err := ReadPolicy(strings.NewReader(tc.in), "p", ds)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.kind) {
			t.Errorf("%s: error %v, want %q (%v)", tc.name, err, tc.want, tc.kind)
		}
	}
}
