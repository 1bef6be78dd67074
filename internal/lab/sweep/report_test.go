package sweep

import (
	"bytes"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/piopt/piopt/ope"
)

// tinySweep is a 2-run sweep of one estimator at n = 10 and 100 with
// V(π) = 0.5: run 1 estimates 0.6 and 0.55, run 2 0.3 and 0.5.
func tinySweep() *Report {
	return &Report{
		Data: "d.txt", Queries: 2, Metric: "ndcg@3", Slots: 3, Candidates: 4, Logging: "uniform", Target: "feature:1",
		Samples: 100, Runs: 2, Seeds: []uint64{1, 2}, TrueValue: 0.5, Grid: []int64{10, 100}, Estimators: []string{"pi"},
		RMSE:   map[string][]ope.Float{"pi": {ope.Float(math.Sqrt(0.025)), ope.Float(math.Sqrt(0.00125))}},
		Bias:   map[string][]ope.Float{"pi": {-0.05, 0.025}},
		Values: map[string][][]ope.Float{"pi": {{0.6, 0.55}, {0.3, 0.5}}},
	}
}

// With two runs the band √(MSE ± SE) spans the runs' |errors|: SE of the
// mean of two squares is |e1² − e2²|/2, so MSE ± SE = the larger and the
// smaller square. At n = 10 the errors are 0.1 and −0.2 (band 0.1..0.2),
// at n = 100 0.05 and 0 (band 0..0.05). With three runs, errors 0.1, −0.2,
// 0.2: e² = 0.01, 0.04, 0.04, MSE 0.03, sd 0.0173, SE 0.01, band
// √0.02..√0.04.
func TestRMSEBand(t *testing.T) {
	for _, c := range []struct {
		values [][]ope.Float
		g      int
		lo, hi float64
	}{
		{tinySweep().Values["pi"], 0, 0.1, 0.2},
		{tinySweep().Values["pi"], 1, 0, 0.05},
		{[][]ope.Float{{0.6}, {0.3}, {0.7}}, 0, math.Sqrt(0.02), 0.2},
		{[][]ope.Float{{0.6}, {ope.Float(math.NaN())}, {0.7}}, 0, 0.1, 0.2}, // a NaN run is left out
		{[][]ope.Float{{0.6}, {ope.Float(math.NaN())}}, 0, math.NaN(), math.NaN()},
	} {
		lo, hi := rmseBand(c.values, 0.5, c.g)
		near := func(a, b float64) bool { return math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-9 }
		if !near(lo, c.lo) || !near(hi, c.hi) {
			t.Errorf("rmseBand(%v, %d) = %v, %v, want %v, %v", c.values, c.g, lo, hi, c.lo, c.hi)
		}
	}
}

// The chart's band for tinySweep: the frame is x ∈ [70, 652] (720 − legend
// 44 + 7·2 − margin 10), y ∈ [36, 390]; x spans 10..100 and y the decades
// 0.01..1 (RMSE 0.158 and 0.035, band up to 0.2), so a value v sits at
// 390 − 177·(log10 v + 2): 0.2 → 159.7, 0.05 → 266.3, 0.1 → 213.0, and the
// lower edge 0 at n = 100 on the bottom, 390.0.
func TestSweepHTMLBand(t *testing.T) {
	h := string(tinySweep().HTML())
	want := `<path d="M70.0 159.7 L652.0 266.3 L652.0 390.0 L70.0 213.0 Z" fill="#0072B2" fill-opacity="0.15" stroke="none"/>`
	if !strings.Contains(h, want) {
		t.Errorf("band missing: want %s in\n%s", want, h)
	}
	if !strings.Contains(h, "Shaded: the RMSE ± one standard error across the 2 runs") {
		t.Error("caption does not say what the band is")
	}
	if !bytes.Equal(tinySweep().HTML(), []byte(h)) {
		t.Error("the same sweep gives different bytes")
	}
	one := tinySweep()
	one.Runs, one.Values["pi"] = 1, one.Values["pi"][:1]
	if h := string(one.HTML()); strings.Contains(h, "fill-opacity") || strings.Contains(h, "Shaded") {
		t.Error("a band over one run")
	}
}

// Every cell of the RMSE and bias tables is in one format: n in the
// charts' notation (Number), every estimate with the table's common
// decimals, here 5 (the smallest magnitude, 0.00077 and −0.00038, to two
// significant digits), "-" when not available.
func TestSweepTablesFormat(t *testing.T) {
	s := tinySweep()
	s.Grid = []int64{100, 1778, 31623, 1000000}
	s.Estimators = []string{"pi", "dm"}
	s.RMSE = map[string][]ope.Float{"pi": {0.21174, 0.0007697, 0.1, 2}, "dm": {ope.Float(math.NaN()), 0.09, 0.01, 0.001}}
	s.Bias = map[string][]ope.Float{"pi": {-0.0744, -0.0003808, 0.003, 0.1}, "dm": {ope.Float(math.NaN()), 0.01, -0.1, 0}}
	s.Runs, s.Values = 1, nil
	h := string(s.HTML())
	rowRe := regexp.MustCompile(`<tr><td class="num">([^<]*)</td><td class="num">([^<]*)</td><td class="num">([^<]*)</td></tr>`)
	rows := rowRe.FindAllStringSubmatch(h, -1)
	if len(rows) != 8 {
		t.Fatalf("%d table rows, want 8 (4 RMSE + 4 bias)", len(rows))
	}
	nRe, vRe := regexp.MustCompile(`^[0-9]+(\.[0-9]+)?[kMG]?$`), regexp.MustCompile(`^(-?[0-9]+\.[0-9]{5}|-)$`)
	var ns []string
	for _, r := range rows {
		if !nRe.MatchString(r[1]) {
			t.Errorf("n cell %q", r[1])
		}
		ns = append(ns, r[1])
		for _, v := range r[2:] {
			if !vRe.MatchString(v) {
				t.Errorf("value cell %q", v)
			}
		}
	}
	if got := strings.Join(ns[:4], " "); got != "100 1.778k 31.62k 1M" {
		t.Errorf("n column %q", got)
	}
	for _, want := range []string{">0.00077<", ">-0.00038<", ">2.00000<", ">-0.07440<", ">0.00000<"} {
		if !strings.Contains(h, want) {
			t.Errorf("tables lack %s", want)
		}
	}
}
