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
