package experiment

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/ranker"
)

func TestParseSamples(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int64
		err  string
	}{
		{in: "10000000", want: []int64{10_000_000}},
		{in: "10_000_000", want: []int64{10_000_000}},
		{in: "0x10", want: []int64{16}},
		{in: "1e6", want: []int64{1_000_000}},
		{in: "2.5e3", want: []int64{2500}},
		{in: "1E2", want: []int64{100}},
		{in: "1e4,1e5,1e6,1e7", want: []int64{10_000, 100_000, 1_000_000, 10_000_000}},
		{in: "1e7, 1e4 ,3000", want: []int64{3000, 10_000, 10_000_000}},
		{in: "9.2e18", want: []int64{9_200_000_000_000_000_000}},
		{in: "0", err: "--samples 0: must be ≥ 1"},
		{in: "-5", err: "--samples -5: must be ≥ 1"},
		{in: "1e4,0", err: "--samples 0: must be ≥ 1"},
		{in: "1e4,10000", err: `--samples "1e4,10000": 10000 impressions given twice`},
		{in: "1.5", err: `--samples "1.5": "1.5" is not a whole number`},
		{in: "2.5e0", err: `"2.5e0" is not a whole number`},
		{in: "1e19", err: `"1e19" is not a whole number`},
		{in: "inf", err: `"inf" is not a whole number`},
		{in: "NaN", err: `"NaN" is not a whole number`},
		{in: "0x1p4", err: `"0x1p4" is not a whole number`},
		{in: "abc", err: `--samples "abc": "abc" is not a whole number of impressions (like 1000000 or 1e6)`},
		{in: "1e4,", err: `"" is not a whole number`},
		{in: "", err: `"" is not a whole number`},
	} {
		got, err := ParseSamples(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseSamples(%q) = %v, %v; want error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseSamples(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestCheckCurve(t *testing.T) {
	for _, tc := range []struct {
		sizes []int64
		ok    bool
	}{
		{[]int64{1, 2}, true},
		{[]int64{10, 100, 1000}, true},
		{[]int64{100, 10}, false},
		{[]int64{10, 10}, false},
		{[]int64{0, 10}, false},
	} {
		if err := checkCurve(tc.sizes); (err == nil) != tc.ok {
			t.Errorf("checkCurve(%v) = %v", tc.sizes, err)
		}
	}
}

// curveSummary is a hand-made two-size, two-fold curve.
func curveSummary() *Summary {
	fold := func(n int, pi, sup float64) FoldResult {
		return FoldResult{Fold: n, Values: map[string]map[string]float64{
			"ndcg@3": {PIOPT: pi, SUP: sup, "random": 0.1},
			"err@3":  {PIOPT: pi / 2, SUP: sup / 2, "random": 0.05},
		}}
	}
	s := &Summary{
		Config:      map[string]any{"samples": []int64{1000, 100000}},
		Conventions: ranker.NewConventionsJSON(eval.Conventions{MaxRel: 4}),
		Metrics:     []string{"ndcg@3", "err@3"},
		Policies:    []string{PIOPT, SUP, "random"},
	}
	for _, pt := range []struct {
		n     int64
		a, b  float64
		folds []FoldResult
	}{{n: 1000, a: 0.30, b: 0.34}, {n: 100000, a: 0.50, b: 0.54}} {
		ps := &Summary{Metrics: s.Metrics, Policies: s.Policies, Folds: []FoldResult{fold(1, pt.a, 0.5), fold(2, pt.b, 0.6)}}
		ps.summarize()
		s.Curve = append(s.Curve, &CurvePoint{Samples: pt.n, TargetsKind: TargetsKindPI, Folds: ps.Folds, Mean: ps.Mean, Std: ps.Std})
	}
	last := s.Curve[1]
	s.Folds, s.Mean, s.Std = last.Folds, last.Mean, last.Std
	return s
}

// A curve's summary.json has one point per (samples, targets_kind), each
// with the folds, mean and std a run of that size alone writes, and no
// top-level folds, mean or std; the table has one row per size and the
// report one log-x chart.
func TestCurveReport(t *testing.T) {
	s := curveSummary()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Folds  any `json:"folds"`
		Mean   any `json:"mean"`
		Config struct {
			Samples []int64 `json:"samples"`
		} `json:"config"`
		Curve []struct {
			Samples     int64                         `json:"samples"`
			TargetsKind string                        `json:"targets_kind"`
			Folds       []map[string]any              `json:"folds"`
			Mean        map[string]map[string]float64 `json:"mean"`
			Std         map[string]map[string]float64 `json:"std"`
		} `json:"curve"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Folds != nil || got.Mean != nil || len(got.Config.Samples) != 2 || len(got.Curve) != 2 {
		t.Fatalf("summary.json %s", b)
	}
	for i, want := range []struct {
		n        int64
		mean, sd float64
	}{{1000, 0.32, 0.028284271247461905}, {100000, 0.52, 0.028284271247461905}} {
		p := got.Curve[i]
		if p.Samples != want.n || p.TargetsKind != "pi" || len(p.Folds) != 2 {
			t.Errorf("point %d: %+v", i, p)
		}
		if m := p.Mean["ndcg@3"][PIOPT]; m < want.mean-1e-12 || m > want.mean+1e-12 {
			t.Errorf("point %d: mean %v, want %v", i, m, want.mean)
		}
		if sd := p.Std["ndcg@3"][PIOPT]; sd < want.sd-1e-12 || sd > want.sd+1e-12 {
			t.Errorf("point %d: std %v, want %v", i, sd, want.sd)
		}
		if p.Mean["ndcg@3"][SUP] != 0.55 || p.Mean["err@3"][SUP] != 0.275 {
			t.Errorf("point %d: SUP %v", i, p.Mean)
		}
	}
	var tab bytes.Buffer
	if err := s.WriteTable(&tab); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(tab.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("table:\n%s", tab.String())
	}
	for i, want := range [][]string{
		{"impressions", "targets", "NDCG@3", "PI-OPT", "SUP", "ERR@3"},
		{"1000", "pi", "0.3200 ± 0.0283", "0.5500 ± 0.0707", "0.1600 ± 0.0141", "0.2750 ± 0.0354"},
		{"100000", "pi", "0.5200 ± 0.0283", "0.5500 ± 0.0707", "0.2600 ± 0.0141"},
		{"mean ± std over 2 folds; impressions per fold and metric"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("table line %d %q lacks %q", i, lines[i], w)
			}
		}
	}
	html := string(s.HTML())
	for _, w := range []string{"sample-efficiency curve", "<svg", "PI-OPT NDCG@3", "SUP ERR@3", "logged impressions (log scale)", `<td class="num">100000</td>`} {
		if !strings.Contains(html, w) {
			t.Errorf("report lacks %q", w)
		}
	}
	if strings.Contains(html, "<script") {
		t.Error("report has a script")
	}
}
