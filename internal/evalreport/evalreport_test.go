package evalreport

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/piopt/piopt/ope"
)

// TestTableMarksOutsideRange: an estimate outside the reward range, whose
// intervals are clipped to it, is printed with a "!" and its warning; one
// inside is printed as it always was.
func TestTableMarksOutsideRange(t *testing.T) {
	const warn = "the estimate 2.25 is outside the reward range [0, 1]: its intervals are clipped to the range, the estimate is not"
	in, out := &ope.Interval{Lo: 0.25, Hi: 0.75}, &ope.Interval{Lo: 0.5, Hi: 1}
	res := &ope.Result{Names: []string{ope.PI, ope.WIPS}, Estimates: map[string]*ope.Estimate{
		ope.PI:   {Value: 2.25, Bernstein: out, Warnings: []string{warn}},
		ope.WIPS: {Value: 0.5, Bernstein: in},
	}}
	s := &EvaluateSetup{Logs: "l", Slots: 2, Logging: "uniform", Target: "feature:2", Delta: 0.05, RewardRange: [2]float64{0, 1}}
	var b bytes.Buffer
	s.WriteTable(&b, res)
	table := b.String()
	for _, row := range []string{
		fmt.Sprintf("%-15s %9s  %-20s %-20s %-20s", ope.PI, "2.25!", FormatInterval(out), "-", "-"),
		fmt.Sprintf("%-15s %9s  %-20s %-20s %-20s", ope.WIPS, FormatNum(0.5), FormatInterval(in), "-", "-"),
		"warning: pi: " + warn + "\n",
	} {
		if !strings.Contains(table, row) {
			t.Errorf("no %q in\n%s", row, table)
		}
	}
	if strings.Count(table, "!") != 1 {
		t.Errorf("one mark expected:\n%s", table)
	}
}

// TestTableCoverageWarningOnce: the coverage warning every PI-family
// estimate carries is printed once, naming the estimators it concerns,
// with the cause and the worst context; other warnings stay per estimator.
func TestTableCoverageWarningOnce(t *testing.T) {
	cov := &ope.Coverage{Contexts: 4, ContextsShort: 1, ContextsOutsideRange: 1, ImpressionsShortShare: 0.25, RangeShareMax: 0.5,
		MaxBiasBound: 0.2, WorstContexts: []ope.ContextShortfall{{Context: "q7", RangeShare: 0.5, BiasBound: 0.8}}}
	w := cov.Warning()
	res := &ope.Result{Names: []string{ope.PI, ope.WPI, ope.IPS}, Coverage: cov, Estimates: map[string]*ope.Estimate{
		ope.PI:  {Value: 0.5, Coverage: cov, Warnings: []string{w}},
		ope.WPI: {Value: 0.5, Coverage: cov, Warnings: []string{"other", w}},
		ope.IPS: {Value: 0.5},
	}}
	s := &EvaluateSetup{Logs: "l", Slots: 2, Logging: "slates", Target: "feature:2", Delta: 0.05, RewardRange: [2]float64{0, 1}}
	var b bytes.Buffer
	s.WriteTable(&b, res)
	table := b.String()
	if strings.Count(table, "coverage short") != 1 || !strings.Contains(table, "warning: pi, wpi: "+w+"\n") ||
		!strings.Contains(table, "warning: wpi: other\n") || !strings.Contains(w, "q7 (bound 0.8)") || !strings.Contains(w, "outside the range of Γ") {
		t.Errorf("table:\n%s", table)
	}
}
