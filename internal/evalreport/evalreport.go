// Package evalreport writes the result of an evaluation from a log, as
// piopt evaluate and piopt select print it: the table of estimates with
// their intervals and diagnostics, and the JSON object per estimator.
package evalreport

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/ranker"
)

// EvaluateSetup describes an evaluation from a log, in its table and as
// the "setup" of its JSON output.
type EvaluateSetup struct {
	Data          string `json:"data"`
	Logs          string `json:"logs"`
	Samples       int64  `json:"samples"`
	LoggedQueries int    `json:"logged_queries"`
	Queries       int    `json:"queries"`
	Slots         int    `json:"slots"`
	Logging       string `json:"logging"`
	// Policy is the policy file of a log whose contexts each have their
	// own logging policy (Queries and LoggedQueries then count contexts).
	Policy      string                  `json:"policy,omitempty"`
	RankBy      string                  `json:"rank_by,omitempty"`
	Candidates  int                     `json:"candidates"`
	Target      string                  `json:"target"`
	Metric      string                  `json:"metric,omitempty"`
	Conventions *ranker.ConventionsJSON `json:"conventions,omitempty"`
	Delta       float64                 `json:"delta"`
	Bootstrap   int                     `json:"bootstrap"`
	Seed        uint64                  `json:"seed"`
	RewardRange [2]float64              `json:"reward_range"`
	// TrueValue is V(π) with contexts uniform over the dataset's queries
	// (semi-synthetic; null without a metric).
	TrueValue ope.Float `json:"true_value"`
	Command   string    `json:"command"`
}

// EstimatesJSON is the value of the JSON output of an evaluation. Every
// top-level key is an estimator, so a reader can take them all; the setup
// rides along in each, and Γ's conditioning in the estimators that use Γ.
func EstimatesJSON(s *EvaluateSetup, res *ope.Result) any {
	type estimateJSON struct {
		*ope.Estimate
		Gamma []ope.GammaInfo `json:"gamma,omitempty"`
		Setup *EvaluateSetup  `json:"setup"`
	}
	out := make(map[string]estimateJSON, len(res.Names))
	for _, name := range res.Names {
		e := estimateJSON{Estimate: res.Estimates[name], Setup: s}
		if name == ope.PI || name == ope.WPI {
			e.Gamma = res.Gamma
		}
		out[name] = e
	}
	return out
}

// FormatInterval prints an interval in tables, "-" when not computed.
func FormatInterval(iv *ope.Interval) string {
	if iv == nil {
		return "-"
	}
	return fmt.Sprintf("[%.4f, %.4f]", iv.Lo, iv.Hi)
}

// WriteTable prints the setup, every estimate with its intervals and
// weight diagnostics, σ² and ρ of PI and IPS, the worst-conditioned Γ and
// the estimators' warnings.
func (s *EvaluateSetup) WriteTable(w io.Writer, res *ope.Result) {
	if s.Policy != "" {
		fmt.Fprintf(w, "%s: %d impressions over %d of %d contexts; %d slots, logging policy file %s", s.Logs, s.Samples, s.LoggedQueries, s.Queries, s.Slots, s.Policy)
	} else {
		fmt.Fprintf(w, "%s: %d impressions over %d of %d queries; %d slots, logging %s", s.Logs, s.Samples, s.LoggedQueries, s.Queries, s.Slots, s.Logging)
	}
	if s.RankBy != "" {
		fmt.Fprintf(w, " by %s", s.RankBy)
	}
	if s.Candidates > 0 {
		fmt.Fprintf(w, ", top %d candidates", s.Candidates)
	}
	fmt.Fprintf(w, "\ntarget %s", s.Target)
	if s.Metric != "" {
		over := "queries"
		if s.Policy != "" {
			over = "contexts"
		}
		fmt.Fprintf(w, "; reward %s (%s); true value over all %s %.4f", s.Metric, s.Conventions.Text, over, float64(s.TrueValue))
	}
	conf := fmt.Sprintf("%g%%", 100*(1-s.Delta))
	fmt.Fprintf(w, "\n%-15s %9s  %-20s %-20s %-20s %10s %8s %10s\n", "estimator", "value",
		"bernstein "+conf, "emp-bernstein "+conf, "bootstrap "+conf, "ess", "neg.w", "max|w|")
	var warnings, covered []string
	cw := ""
	if res.Coverage.Short() {
		cw = res.Coverage.Warning()
	}
	for _, name := range res.Names {
		e := res.Estimates[name]
		value := FormatNum(float64(e.Value))
		if e.OutsideRange(s.RewardRange[0], s.RewardRange[1]) {
			value += "!" // its warning says why
		}
		fmt.Fprintf(w, "%-15s %9s  %-20s %-20s %-20s", name, value, FormatInterval(e.Bernstein), FormatInterval(e.EmpiricalBernstein), FormatInterval(e.Bootstrap))
		if e.Weights != nil {
			fmt.Fprintf(w, " %10.4g %7.1f%% %10.4g", float64(e.Weights.ESS), 100*float64(e.Weights.NegativeShare), float64(e.Weights.MaxAbs))
		}
		fmt.Fprintln(w)
		for _, m := range e.Warnings {
			if m == cw { // printed once below, for every estimator it concerns
				covered = append(covered, name)
				continue
			}
			warnings = append(warnings, name+": "+m)
		}
	}
	writeDiagnostics(w, res)
	if len(covered) > 0 {
		fmt.Fprintf(w, "warning: %s: %s\n", strings.Join(covered, ", "), cw)
	}
	for _, m := range warnings {
		fmt.Fprintln(w, "warning:", m)
	}
}

// writeDiagnostics prints the weights' σ² and ρ of PI and IPS and the
// worst-conditioned Γ.
func writeDiagnostics(w io.Writer, res *ope.Result) {
	for _, name := range res.Names {
		if e := res.Estimates[name]; e.Weights != nil && (name == ope.PI || name == ope.IPS) {
			fmt.Fprintf(w, "%s weights: σ² %.4g (uniform contexts %.4g), ρ %.4g, range [%.4g, %.4g], mean %.4f\n", strings.ToUpper(name),
				float64(e.Weights.Sigma2), float64(e.Weights.Sigma2Uniform), float64(e.Weights.Rho), float64(e.Weights.RangeLo), float64(e.Weights.RangeHi), float64(e.Weights.Mean))
		}
	}
	writeBaseline(w, res)
	if len(res.Gamma) > 0 {
		worst := res.Gamma[0]
		for _, g := range res.Gamma {
			if g.Condition > worst.Condition {
				worst = g
			}
		}
		what := "query shapes"
		if res.PerContext {
			what = "distinct context policies"
		}
		fmt.Fprintf(w, "Γ: %d %s; worst conditioned m=%d ℓ=%d: rank %d, kept eigenvalues %.3g..%.3g\n",
			max(res.GammaCount, len(res.Gamma)), what, worst.M, worst.Slots, worst.Rank, worst.MinKeptEigenvalue, worst.MaxEigenvalue)
		if ap := res.Approximation; ap.N > 0 {
			fmt.Fprintf(w, "warning: %d Γ not exact (%s)", ap.N, ap.Methods)
			if ap.Bound > 0 {
				fmt.Fprintf(w, ", max |error| of an entry ≤ %.2g", ap.Bound)
			}
			if ap.StdErr > 0 {
				fmt.Fprintf(w, ", Monte Carlo standard error %.2g", ap.StdErr)
			}
			fmt.Fprintln(w)
		}
	}
}

// writeBaseline says which reward model dr and wdr used.
func writeBaseline(w io.Writer, res *ope.Result) {
	var b *ope.BaselineInfo
	for _, name := range []string{ope.DR, ope.WDR} {
		if e := res.Estimates[name]; e != nil && e.Baseline != nil {
			b = e.Baseline
		}
	}
	if b == nil {
		return
	}
	what := b.Kind
	if b.Folds > 0 {
		what = fmt.Sprintf("PI-OPT regression cross-fitted over %d folds", b.Folds)
		if len(b.FoldTrees) > 0 {
			what += fmt.Sprintf(" (%d..%d trees)", slices.Min(b.FoldTrees), slices.Max(b.FoldTrees))
		}
	}
	fmt.Fprintf(w, "dr baseline φ̄: %s; slate values in [%.4g, %.4g]\n", what, float64(b.ModelLo), float64(b.ModelHi))
}

// FormatNum prints an estimate or error in tables: 4 significant digits,
// "-" for NaN (not available).
func FormatNum(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.4g", x)
}
