package evalgrid

import (
	"math"
	"slices"
	"testing"
)

// TestDefaultConditions: the paper's grid is exactly 40 conditions, 10 per
// metric and space (2 uniform, 8 pa), with α ∈ {1, 2} for (10, 5) and
// {0.5, 1} for (100, 10), and distinct file names.
func TestDefaultConditions(t *testing.T) {
	d := Default()
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	cs := d.Conditions()
	if len(cs) != 40 {
		t.Fatalf("%d conditions, want 40", len(cs))
	}
	want := map[string][]string{"10x5": {"pa:1", "pa:2", "uniform"}, "100x10": {"pa:0.5", "pa:1", "uniform"}}
	type key struct{ metric, space string }
	combos := map[key]int{}
	logging := map[string]map[string]bool{}
	perCombo := map[string]int{} // RankBy → Target over all conditions
	for _, c := range cs {
		combos[key{c.Metric, c.Space.String()}]++
		if logging[c.Space.String()] == nil {
			logging[c.Space.String()] = map[string]bool{}
		}
		logging[c.Space.String()][c.Logging] = true
		if (c.Logging == "uniform") != (c.RankBy == "") {
			t.Errorf("%s: logging %s with rank-by %q", c.Name(), c.Logging, c.RankBy)
		}
		perCombo[c.RankBy+" "+c.Target]++
	}
	for _, m := range []string{"ndcg", "err"} {
		for _, sp := range []string{"10x5", "100x10"} {
			if combos[key{m, sp}] != 10 {
				t.Errorf("%s %s: %d combinations, want 10", m, sp, combos[key{m, sp}])
			}
		}
	}
	for sp, w := range want {
		var got []string
		for lg := range logging[sp] {
			got = append(got, lg)
		}
		slices.Sort(got)
		if !slices.Equal(got, w) {
			t.Errorf("space %s logs with %v, want %v", sp, got, w)
		}
	}
	// Each (logging model, target) pair: 2 metrics × 2 spaces × 2 α; each
	// uniform → target: 2 × 2.
	for pair, n := range perCombo {
		if w := map[bool]int{true: 4, false: 8}[pair[0] == ' ']; n != w {
			t.Errorf("%q: %d conditions, want %d", pair, n, w)
		}
	}
	if got := cs[1].Name(); got != "ndcg_10x5_pa-1_lasso-url-side_tree-body-side" {
		t.Errorf("name %q", got)
	}
	if got := cs[1].Combo(); got != "pa:1 lasso:url-side → tree:body-side" {
		t.Errorf("combo %q", got)
	}
}

func TestParseLists(t *testing.T) {
	sp, err := ParseSpaces("100x10")
	if err != nil || len(sp) != 1 || sp[0].M != 100 || sp[0].L != 10 || !slices.Equal(sp[0].Alphas, []float64{0.5, 1}) {
		t.Errorf("ParseSpaces(100x10) = %v, %v", sp, err)
	}
	if _, err := ParseSpaces("10x4"); err == nil {
		t.Error("ParseSpaces(10x4): no error")
	}
	if m, err := ParseMetrics("ERR"); err != nil || !slices.Equal(m, []string{"err"}) {
		t.Errorf("ParseMetrics(ERR) = %v, %v", m, err)
	}
	if _, err := ParseMetrics("dcg"); err == nil {
		t.Error("ParseMetrics(dcg): no error")
	}
	d := Default()
	d.Metrics = []string{"ndcg", "ndcg"}
	if err := d.Check(); err == nil {
		t.Error("a metric twice: no error")
	}
}

// TestNormalize: hand-computed shifts and rescales.
func TestNormalize(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		in, want []float64
	}{
		// best 2, worst 10: 0.001 + 0.999·(4−2)/8 = 0.25075.
		{[]float64{2, 4, 10, nan}, []float64{0.001, 0.25075, 1, nan}},
		{[]float64{3, 3}, []float64{0.001, 0.001}},
		{[]float64{0.5}, []float64{0.001}},
		// 0.001 + 0.999·(0.3−0.1)/(0.5−0.1) = 0.5005.
		{[]float64{0.5, 0.1, 0.3}, []float64{1, 0.001, 0.5005}},
	} {
		got := Normalize(c.in)
		for i := range got {
			if math.IsNaN(c.want[i]) != math.IsNaN(got[i]) || math.Abs(got[i]-c.want[i]) > 1e-12 {
				t.Errorf("Normalize(%v) = %v, want %v", c.in, got, c.want)
				break
			}
		}
	}
}

// TestCDF: distinct values with the fraction at or below each, NaN in
// the denominator only.
func TestCDF(t *testing.T) {
	x, f := CDF([]float64{0.5, 0.001, 0.5, math.NaN()})
	if !slices.Equal(x, []float64{0.001, 0.5}) || !slices.Equal(f, []float64{0.25, 0.75}) {
		t.Errorf("CDF = %v, %v; want [0.001 0.5], [0.25 0.75]", x, f)
	}
	x, f = CDF([]float64{1, 0.01, 0.001})
	if !slices.Equal(x, []float64{0.001, 0.01, 1}) || f[2] != 1 || math.Abs(f[0]-1.0/3) > 1e-15 {
		t.Errorf("CDF = %v, %v", x, f)
	}
}
