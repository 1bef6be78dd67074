package experiment

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/piopt/piopt/internal/report"
)

// curveJSON writes summary.json of a sample-efficiency curve:
// {"conventions": {...}, "config": {...}, "curve": [{"samples": N,
// "targets_kind": "pi", "folds": [...], "mean": {...}, "std": {...}}, ...],
// "provenance": {...}}, one point per (samples, targets_kind), ascending.
func (s *Summary) curveJSON() ([]byte, error) {
	return json.Marshal(map[string]any{
		"conventions": s.Conventions,
		"config":      s.Config,
		"curve":       s.Curve,
		"provenance":  s.Provenance,
	})
}

// curvePolicies are the policies the curve's table and chart show: PI-OPT,
// SUP's level (it does not depend on the log) and the logger when there is
// one.
func (s *Summary) curvePolicies() []string {
	p := []string{PIOPT, SUP}
	if slices.Contains(s.Policies, Logger) {
		p = append(p, Logger)
	}
	return p
}

// metricTitle writes "ndcg@3" as "NDCG@3".
func metricTitle(m string) string {
	at := strings.IndexByte(m, '@')
	if at < 0 {
		return strings.ToUpper(m)
	}
	return strings.ToUpper(m[:at]) + m[at:]
}

// curveCell is a point's entry for metric m and policy p, as cell writes
// the table of one size.
func (s *Summary) curveCell(pt *CurvePoint, m, p string) string {
	if len(pt.Folds) == 1 {
		return fmt.Sprintf("%.4f", pt.Mean[m][p])
	}
	return fmt.Sprintf("%.4f ± %.4f", pt.Mean[m][p], pt.Std[m][p])
}

// curveRows are the curve's table: one row per point (impressions, targets)
// with every metric's policies.
func (s *Summary) curveRows() (header []string, rows [][]string) {
	header = []string{"impressions", "targets"}
	for _, m := range s.Metrics {
		for _, p := range s.curvePolicies() {
			header = append(header, metricTitle(m)+" "+policyTitle[p])
		}
	}
	for _, pt := range s.Curve {
		row := []string{strconv.FormatInt(pt.Samples, 10), pt.TargetsKind}
		for _, m := range s.Metrics {
			for _, p := range s.curvePolicies() {
				row = append(row, s.curveCell(pt, m, p))
			}
		}
		rows = append(rows, row)
	}
	return header, rows
}

// writeCurveTable prints the sample-efficiency curve: one row per log size
// with PI-OPT beside SUP (and the logger), then the logger's gains per size
// and the notes.
func (s *Summary) writeCurveTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	header, rows := s.curveRows()
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	lines := []string{fmt.Sprintf("(%s; impressions per fold and metric; %s)", s.foldsText(), s.Conventions.Text)}
	for _, pt := range s.Curve {
		if pt.Logger != nil {
			for _, l := range pt.Logger.lines(s.Metrics) {
				lines = append(lines, fmt.Sprintf("%d impressions, %s targets: %s", pt.Samples, pt.TargetsKind, l))
			}
		}
	}
	for _, n := range s.Notes {
		lines = append(lines, "note: "+n)
	}
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}

// curveSeries are the chart's lines: per metric PI-OPT with ± one standard
// deviation across folds as error bars, SUP as its level with the same
// spread as a band, and the logger's level when there is one.
func (s *Summary) curveSeries() []report.Series {
	var series []report.Series
	kinds := s.curveKinds()
	for _, m := range s.Metrics {
		for _, p := range s.curvePolicies() {
			for _, k := range kinds {
				if p != PIOPT && k != kinds[0] {
					continue // SUP and the logger do not depend on the targets
				}
				series = append(series, s.curveLine(m, p, k, len(kinds) > 1))
			}
		}
	}
	return series
}

// curveKinds are the kinds of targets of the curve's points, in order.
func (s *Summary) curveKinds() []string {
	var kinds []string
	for _, pt := range s.Curve {
		if !slices.Contains(kinds, pt.TargetsKind) {
			kinds = append(kinds, pt.TargetsKind)
		}
	}
	return kinds
}

// curveLine is the chart's line of metric m and policy p over the points of
// targets kind k (named with the kind when the curve has several).
func (s *Summary) curveLine(m, p, k string, named bool) report.Series {
	sr := report.Series{Name: policyTitle[p] + " " + metricTitle(m)}
	if named && p == PIOPT {
		sr.Name = policyTitle[p] + " (" + k + " targets) " + metricTitle(m)
	}
	var pts []*CurvePoint
	for _, pt := range s.Curve {
		if pt.TargetsKind == k {
			pts = append(pts, pt)
		}
	}
	for _, pt := range pts {
		mean, std := pt.Mean[m][p], pt.Std[m][p]
		sr.X = append(sr.X, float64(pt.Samples))
		sr.Y = append(sr.Y, mean)
		sr.Lo, sr.Hi = append(sr.Lo, mean-std), append(sr.Hi, mean+std)
	}
	if p != PIOPT || len(s.Folds) < 2 {
		// A level needs no bar at every point; one fold has no spread.
		sr.Lo, sr.Hi = nil, nil
	}
	if p != PIOPT && len(s.Folds) > 1 {
		for i := range sr.Y {
			d := pts[i].Std[m][p]
			sr.BandLo, sr.BandHi = append(sr.BandLo, sr.Y[i]-d), append(sr.BandHi, sr.Y[i]+d)
		}
	}
	return sr
}

// curveHTML renders the curve's report: its table, the chart of every
// metric against the log size (log x axis), the logger's gains, every
// fold's values per size, the settings and the provenance.
func (s *Summary) curveHTML() []byte {
	p := report.NewPage("piopt experiment: sample-efficiency curve")
	p.Paragraph(fmt.Sprintf("PI-OPT learned from logs of each size (impressions per fold and metric) beside SUP, which needs no log; %s. Metric conventions: %s.",
		s.foldsText(), s.Conventions.Text))
	p.Table(s.curveRows())
	caption := "Lines: mean over folds; bars: ± one standard deviation across folds of PI-OPT; bands: that of SUP (and the logger), which do not depend on the log."
	if len(s.Folds) < 2 {
		caption = "Lines: the fold's test values; SUP (and the logger) do not depend on the log."
	}
	p.Figure(report.LogXChart(s.curveSeries(), report.Title("Test-fold metric against logged impressions"),
		report.XLabel("logged impressions (log scale)"), report.YLabel("metric value")), caption)
	for _, pt := range s.Curve {
		if pt.Logger != nil {
			p.Heading(2, fmt.Sprintf("PI-OPT against its logger, %d impressions", pt.Samples))
			loggerTable(p, pt.Logger, s.Metrics, pt.Folds)
		}
	}
	p.Heading(2, "Per fold")
	header := []string{"impressions", "metric", "policy"}
	for _, f := range s.Folds {
		header = append(header, fmt.Sprintf("fold %d", f.Fold))
	}
	var rows [][]string
	for _, pt := range s.Curve {
		for _, m := range s.Metrics {
			for _, pol := range s.curvePolicies() {
				row := []string{strconv.FormatInt(pt.Samples, 10), m, policyTitle[pol]}
				for _, f := range pt.Folds {
					row = append(row, fmt.Sprintf("%.4f", f.Values[m][pol]))
				}
				rows = append(rows, row)
			}
		}
	}
	p.Table(header, rows)
	return s.settingsHTML(p)
}

// loggerHTML adds the logger's gains to the report of one size.
func (s *Summary) loggerHTML(p *report.Page) {
	p.Heading(2, "PI-OPT against its logger")
	loggerTable(p, s.Logger, s.Metrics, s.Folds)
}

// loggerTable adds the per-fold differences PI-OPT − logger, by the test
// labels and by the PI estimates from a fresh log, with their mean ± SE.
func loggerTable(p *report.Page, g *LoggerGain, metrics []string, folds []FoldResult) {
	p.Paragraph(fmt.Sprintf("The logger ranks by %s and logs slates drawn around that ranking; PI-OPT learns from its log. "+
		"Differences PI-OPT − logger's deterministic ranking on the test fold: by the test labels, and label-free by PI estimates from a fresh log of the logger.", g.Logger))
	header := []string{"metric", "measured by"}
	for _, f := range folds {
		header = append(header, fmt.Sprintf("fold %d", f.Fold))
	}
	header = append(header, "mean ± SE", "z")
	var rows [][]string
	for _, m := range metrics {
		x := g.Metrics[m]
		if x == nil {
			continue
		}
		for _, d := range []struct {
			what string
			d    Diff
		}{{"test labels", x.Test}, {"PI estimate, fresh log", x.Estimate}} {
			row := []string{m, d.what}
			for _, v := range d.d.Folds {
				row = append(row, fmt.Sprintf("%+.4f", v))
			}
			cell, z := fmt.Sprintf("%+.4f", d.d.Mean), "–"
			if !math.IsNaN(float64(d.d.Z)) {
				cell += fmt.Sprintf(" ± %.4f", float64(d.d.SE))
				z = fmt.Sprintf("%.1f", float64(d.d.Z))
			}
			rows = append(rows, append(row, cell, z))
		}
	}
	p.Table(header, rows)
}
