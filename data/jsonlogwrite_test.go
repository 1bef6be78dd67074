package data

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// JSONLogWriter's rows read back (readJSONLog) to what was written: the
// entry's context, spec, candidates (positions without a dataset), scores,
// slates and probs, the slate and the reward to the bit.
func TestJSONLogWriterRoundTrip(t *testing.T) {
	entries := []PolicyEntry{
		{Context: "q1", Query: 0, Spec: "pl:0.5", Docs: []int32{3, 0, 2, 1}, Scores: []float64{2.5, 1e-7, -0.1, -3}},
		{Context: `q"2\x`, Query: 1, Spec: "slates", Docs: []int32{0, 1, 2}, Slates: []int32{0, 1, 2, 1, 0, 2}, Probs: []float64{0.3, 0.7}},
	}
	var buf bytes.Buffer
	jw := NewJSONLogWriter(&buf, nil, entries)
	writes := []struct {
		i      int
		slate  []int32
		reward float64
	}{{0, []int32{2, 3}, 0.1 + 0.2}, {1, []int32{1, 0, 2}, 1e-300}, {0, []int32{0, 1}, -4}}
	for _, w := range writes {
		if err := jw.Write(w.i, w.slate, w.reward); err != nil {
			t.Fatal(err)
		}
	}
	var rows []LogRow
	err := readJSONLog(bytes.NewReader(buf.Bytes()), "w.jsonl", func(_ int64, r *LogRow) error {
		// The reader reuses its buffers: copy deeply.
		reward := *r.Reward
		p := RowPolicy{Spec: r.Policy.Spec, Candidates: slices.Clone(r.Policy.Candidates), Scores: slices.Clone(r.Policy.Scores),
			Probs: slices.Clone(r.Policy.Probs)}
		for _, sl := range r.Policy.Slates {
			p.Slates = append(p.Slates, slices.Clone(sl))
		}
		rows = append(rows, LogRow{Context: r.Context, Slate: slices.Clone(r.Slate), Reward: &reward, Policy: &p})
		return nil
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if len(rows) != len(writes) {
		t.Fatalf("%d rows, want %d", len(rows), len(writes))
	}
	want := [][]string{{"2", "3"}, {"1", "0", "2"}, {"0", "1"}}
	for k, r := range rows {
		e := entries[writes[k].i]
		if r.Context != e.Context || *r.Reward != writes[k].reward || !slices.Equal(r.Slate, want[k]) || r.Policy.Spec != e.Spec ||
			!slices.Equal(r.Policy.Scores, e.Scores) || !slices.Equal(r.Policy.Probs, e.Probs) {
			t.Errorf("row %d: %+v policy %+v", k, r, r.Policy)
		}
	}
	if got := rows[0].Policy.Candidates; !slices.Equal(got, []string{"3", "0", "2", "1"}) {
		t.Errorf("candidates %q, want the entry's order", got)
	}
	if got := rows[1].Policy.Slates; len(got) != 2 || !slices.Equal(got[1], []string{"1", "0", "2"}) {
		t.Errorf("slates %q", got)
	}
}

// appendJSONString's output is a JSON string encoding/json decodes back.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "d1", `a"b`, `c\d`, "tab\there\x01", "é€😀"} {
		var got string
		b := appendJSONString(nil, s)
		if err := json.Unmarshal(b, &got); err != nil || got != s {
			t.Errorf("%q → %s → %q (%v)", s, b, got, err)
		}
	}
}
