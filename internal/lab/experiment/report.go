package experiment

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/piopt/piopt/internal/pipeline"
	"github.com/piopt/piopt/internal/report"
)

// policyTitle is how a policy is written in tables, as in the paper.
var policyTitle = map[string]string{PIOPT: "PI-OPT", SUP: "SUP", pipeline.PolicyRandom: "random", LambdaMART: "LambdaMART", Logger: "logger"}

// cell is a table's entry for metric m and policy p: the mean ± standard
// deviation across folds, or with one fold its value alone (a deviation
// of 0 over one fold would say nothing).
func (s *Summary) cell(m, p string) string {
	if len(s.Folds) == 1 {
		return fmt.Sprintf("%.4f", s.Mean[m][p])
	}
	return fmt.Sprintf("%.4f ± %.4f", s.Mean[m][p], s.Std[m][p])
}

// foldsText says what the table's entries are: "mean ± std over 5 folds",
// or "1 fold".
func (s *Summary) foldsText() string {
	if len(s.Folds) == 1 {
		return "1 fold"
	}
	return fmt.Sprintf("mean ± std over %d folds", len(s.Folds))
}

// WriteTable prints the mean ± standard deviation across folds of every
// metric and policy, one row per metric as in the paper's Table 1 (with
// one fold, its values).
func (s *Summary) WriteTable(w io.Writer) error {
	if len(s.Curve) > 0 {
		return s.writeCurveTable(w)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	fmt.Fprintf(tw, "metric")
	for _, p := range s.Policies {
		fmt.Fprintf(tw, "\t%s", policyTitle[p])
	}
	fmt.Fprintln(tw)
	for _, m := range s.Metrics {
		fmt.Fprintf(tw, "%s", strings.ToUpper(m[:strings.IndexByte(m, '@')])+m[strings.IndexByte(m, '@'):])
		for _, p := range s.Policies {
			fmt.Fprintf(tw, "\t%s", s.cell(m, p))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "(%s; %s)\n", s.foldsText(), s.Conventions.Text); err != nil {
		return err
	}
	if line := s.treesLine(); line != "" {
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	for _, line := range s.gridLines() {
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	if s.Logger != nil {
		for _, line := range s.Logger.lines(s.Metrics) {
			if _, err := fmt.Fprintln(w, line); err != nil {
				return err
			}
		}
	}
	for _, n := range s.Notes {
		if _, err := fmt.Fprintf(w, "note: %s\n", n); err != nil {
			return err
		}
	}
	return nil
}

// treesLine lists, per PI-OPT model selected by value, the trees kept in
// every fold, e.g. "PI-OPT trees selected by pi-ndcg@3: 17 14 31 10 12".
func (s *Summary) treesLine() string {
	var parts []string
	for _, name := range sortedSelections(s.Folds) {
		crit, trees := "", ""
		for _, f := range s.Folds {
			if sel := f.Selection[name]; sel != nil {
				crit, trees = sel.Criterion, trees+fmt.Sprintf(" %d", sel.Trees)
			}
		}
		parts = append(parts, fmt.Sprintf("by %s:%s", crit, trees))
	}
	if len(parts) == 0 {
		return ""
	}
	return "PI-OPT trees selected " + strings.Join(parts, "; ") + " (per fold)"
}

// sortedSelections are the names of the models selected by value in any
// fold, sorted.
func sortedSelections(folds []FoldResult) []string {
	seen := map[string]bool{}
	var names []string
	for _, f := range folds {
		for name := range f.Selection {
			if !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
		}
	}
	sort.Strings(names)
	return names
}

// SeedNote says which results --seed changes when it changes neither SUP
// nor LambdaMART: XGBoost draws random numbers only to subsample rows (piopt
// samples no columns), and the pairs of its rank:ndcg objective come from a
// stream seeded by the round, not by its seed (XGBoost 1.7). So with
// --subsample 1 a run of several seeds varies PI-OPT's simulated logs and
// nothing else (random slates are scored exactly), and repeats SUP and LambdaMART (checked: SUP and
// LambdaMART models trained with seeds 1 and 2 give the same scores).
const SeedNote = "with --subsample 1 SUP and LambdaMART do not depend on --seed; only PI-OPT's simulated logs do"

// notes are the lines printed under the table.
func (r *runner) notes() []string {
	var n []string
	if r.cfg.Params.Subsample >= 1 {
		n = append(n, SeedNote)
	}
	if pp := r.cfg.pioptParams(); pp.LearningRate != r.cfg.Params.LearningRate {
		n = append(n, fmt.Sprintf("PI-OPT learns at rate %g (--pi-learning-rate), SUP and LambdaMART at %g (--learning-rate)",
			pp.LearningRate, r.cfg.Params.LearningRate))
	}
	return n
}

// HTML renders the self-contained report: the table, a bar chart of the
// fold means with ± one standard deviation, and every fold's values.
func (s *Summary) HTML() []byte {
	if len(s.Curve) > 0 {
		return s.curveHTML()
	}
	p := report.NewPage("piopt experiment: PI-OPT vs SUP vs random")
	if len(s.Folds) == 1 {
		p.Paragraph(fmt.Sprintf("Test-fold values of fold %d. Metric conventions: %s.", s.Folds[0].Fold, s.Conventions.Text))
	} else {
		p.Paragraph(fmt.Sprintf("Test-fold means over %d folds (± standard deviation across folds). Metric conventions: %s.",
			len(s.Folds), s.Conventions.Text))
	}
	header := []string{"metric"}
	for _, pol := range s.Policies {
		header = append(header, policyTitle[pol])
	}
	var rows [][]string
	for _, m := range s.Metrics {
		row := []string{m}
		for _, pol := range s.Policies {
			row = append(row, s.cell(m, pol))
		}
		rows = append(rows, row)
	}
	p.Table(header, rows)
	for _, line := range s.gridLines() {
		p.Paragraph(line)
	}
	if s.Logger != nil {
		s.loggerHTML(p)
	}
	series := make([]string, len(s.Policies))
	for i, pol := range s.Policies {
		series[i] = policyTitle[pol]
	}
	vals := make([][]float64, len(s.Metrics))
	errs := make([][]float64, len(s.Metrics))
	for i, m := range s.Metrics {
		for _, pol := range s.Policies {
			vals[i] = append(vals[i], s.Mean[m][pol])
			errs[i] = append(errs[i], s.Std[m][pol])
		}
	}
	s.chart(p, series, vals, errs)
	p.Heading(2, "Per fold")
	p.Table(s.foldTable())
	return s.settingsHTML(p)
}

// foldTable is every fold's test values: one row per metric and policy,
// one column per fold, so that the table stays narrow however many metrics
// and policies there are (at most five folds wide), and reads at any window
// width.
func (s *Summary) foldTable() (header []string, rows [][]string) {
	header = []string{"metric", "policy"}
	for _, f := range s.Folds {
		header = append(header, fmt.Sprintf("fold %d", f.Fold))
	}
	for _, m := range s.Metrics {
		for _, pol := range s.Policies {
			row := []string{m, policyTitle[pol]}
			for _, f := range s.Folds {
				row = append(row, fmt.Sprintf("%.4f", f.Values[m][pol]))
			}
			rows = append(rows, row)
		}
	}
	return header, rows
}

// chart adds the bar chart of the fold means with their standard
// deviations as whiskers, or with one fold of its values alone.
func (s *Summary) chart(p *report.Page, series []string, vals, errs [][]float64) {
	if len(s.Folds) == 1 {
		p.Figure(report.BarChart(s.Metrics, series, vals, nil, report.Title(fmt.Sprintf("Test-fold metric (fold %d)", s.Folds[0].Fold)),
			report.YLabel("metric value")), "Bars: the fold's test value.")
		return
	}
	p.Figure(report.BarChart(s.Metrics, series, vals, errs, report.Title("Test-fold metric (mean ± std over folds)"),
		report.YLabel("metric value")), "Bars: mean over folds; whiskers: ± one standard deviation across folds.")
}

// settingsHTML ends a report's page p with the run's settings and its
// provenance, and returns the page's bytes.
func (s *Summary) settingsHTML(p *report.Page) []byte {
	p.Heading(2, "Settings")
	keys := slices.Sorted(maps.Keys(s.Config))
	settings := make([]string, len(keys))
	for i, k := range keys {
		settings[i] = fmt.Sprint(s.Config[k])
	}
	p.KeyValues(keys, settings)
	s.Provenance.AddTo(p)
	return p.HTML()
}
