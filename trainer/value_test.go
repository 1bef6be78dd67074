package trainer

import (
	"math"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/features"
)

// gridTargets are targets with the full (doc, slot) grid of queries of
// sizes m (ℓ_x = min(slots, m)), doc-major as impute writes them, with
// target f(q, a, j).
func gridTargets(m []int, slots int, f func(q, a, j int) float64) *data.Targets {
	t := &data.Targets{Slots: slots, Header: map[string]string{"metric": "ndcg@2"}}
	for q, mx := range m {
		for a := range mx {
			for j := 1; j <= min(slots, mx); j++ {
				t.Query = append(t.Query, int32(q))
				t.Doc = append(t.Doc, int32(a))
				t.Slot = append(t.Slot, uint8(j))
				t.Target = append(t.Target, f(q, a, j))
				t.Weight = append(t.Weight, 1)
			}
		}
	}
	return t
}

// TestSlateValueByHand: two queries, greedy and exact slates worked out by
// hand from the predictions, the value read from the targets.
func TestSlateValueByHand(t *testing.T) {
	// Query 0: 3 docs, 2 slots; query 1: 1 doc, 1 slot. Rows doc-major:
	// (a0,j1) (a0,j2) (a1,j1) (a1,j2) (a2,j1) (a2,j2) | (a0,j1).
	targets := []float64{
		0.1, 0.2, // doc 0
		0.3, 0.4, // doc 1
		0.5, 0.6, // doc 2
		0.7, // query 1
	}
	k := 0
	tg := gridTargets([]int{3, 1}, 2, func(q, a, j int) float64 { k++; return targets[k-1] })
	pred := []float32{
		5, 4.5, // doc 0
		1, 4.8, // doc 1
		0, 0, // doc 2
		9,
	}
	// Greedy: the highest pair is (doc 0, slot 1) = 5, then slot 2 among
	// docs 1, 2: doc 1 (4.8). Value 0.1 + 0.4 = 0.5; query 1: 0.7.
	// Exact: maximise the sum: (0,1)+(1,2) = 9.8 vs (1,1)+(0,2) = 5.5: the
	// same slate here.
	for _, exact := range []bool{false, true} {
		v, err := NewSlateValue(tg, exact)
		if err != nil {
			t.Fatal(err)
		}
		if v.name != "pi-ndcg@2" {
			t.Errorf("name %q", v.name)
		}
		got := v.estimate(pred)
		mean := (0.5 + 0.7) / 2
		sd := math.Sqrt((0.1*0.1 + 0.1*0.1) / 1)
		half := 1.959963984540054 * sd / math.Sqrt(2)
		if got.Queries != 2 || math.Abs(got.Value-mean) > 1e-15 || math.Abs(got.Lo-(mean-half)) > 1e-15 || math.Abs(got.Hi-(mean+half)) > 1e-15 {
			t.Errorf("exact=%v: %+v, want %v ± %v", exact, got, mean, half)
		}
	}
	// Where greedy and exact differ: greedy takes (doc 0, slot 1) = 5, then
	// doc 1 in slot 2 (1); exact prefers doc 1 in slot 1 (4.9) and doc 0
	// in slot 2 (4.95).
	pred2 := []float32{5, 4.95, 4.9, 1, 0, 0, 9}
	for _, c := range []struct {
		exact bool
		want  float64
	}{{false, 0.1 + 0.4}, {true, 0.3 + 0.2}} {
		v, _ := NewSlateValue(tg, c.exact)
		if got := v.estimate(pred2); math.Abs(got.Value-(c.want+0.7)/2) > 1e-15 {
			t.Errorf("exact=%v: value %v, want %v", c.exact, got.Value, (c.want+0.7)/2)
		}
	}
}

func TestNewSlateValueRefusesIncompleteGrid(t *testing.T) {
	tg := gridTargets([]int{3}, 2, func(q, a, j int) float64 { return 0 })
	drop := func(r int) *data.Targets {
		c := *tg
		c.Query = append(append([]int32{}, tg.Query[:r]...), tg.Query[r+1:]...)
		c.Doc = append(append([]int32{}, tg.Doc[:r]...), tg.Doc[r+1:]...)
		c.Slot = append(append([]uint8{}, tg.Slot[:r]...), tg.Slot[r+1:]...)
		c.Target = append(append([]float64{}, tg.Target[:r]...), tg.Target[r+1:]...)
		c.Weight = append(append([]float64{}, tg.Weight[:r]...), tg.Weight[r+1:]...)
		return &c
	}
	for _, r := range []int{1, 3, 5} {
		if _, err := NewSlateValue(drop(r), false); err == nil || !strings.Contains(err.Error(), "every candidate") {
			t.Errorf("row %d dropped: error %v", r, err)
		}
	}
	if _, err := NewSlateValue(&data.Targets{}, false); err == nil {
		t.Error("empty targets accepted")
	}
}

func TestBaseScore(t *testing.T) {
	m := &features.Matrix{Labels: []float32{1, 2, 6}, Weights: []float32{1, 1, 2}}
	for _, c := range []struct {
		in   string
		want float64
		err  bool
	}{{"", 15.0 / 4, false}, {"mean", 15.0 / 4, false}, {"0.5", 0.5, false}, {"0", 0, false}, {"-1.25", -1.25, false},
		{"half", 0, true}, {"NaN", 0, true}, {"inf", 0, true}} {
		p := Defaults()
		p.BaseScore = c.in
		got, err := p.baseScore(m)
		if (err != nil) != c.err || (!c.err && got != c.want) {
			t.Errorf("%q: %v, %v", c.in, got, err)
		}
		if (p.Validate() != nil) != c.err {
			t.Errorf("%q: Validate %v", c.in, p.Validate())
		}
	}
	p := Defaults()
	p.SelectBy = "ndcg"
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "--select-by") {
		t.Errorf("select-by ndcg: %v", err)
	}
	p.SelectBy, p.Objective = SelectValue, ObjectiveRankNDCG
	if err := p.Validate(); err == nil {
		t.Error("select-by value for rank:ndcg accepted")
	}
	if s := Defaults().String(); strings.Contains(s, "select_by") || strings.Contains(s, "base_score") {
		t.Errorf("defaults print %q", s)
	}
}

// small is a quick training for tests.
func small() Params {
	p := Defaults()
	p.Trees, p.Leaves, p.Threads = 100, 16, 1
	return p
}
