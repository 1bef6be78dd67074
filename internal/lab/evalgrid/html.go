package evalgrid

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/piopt/piopt/internal/report"
	"github.com/piopt/piopt/ope"
)

// Panel sizes of the tiled figures, in the charts' pixels.
const (
	panelW, panelH = 480, 300
	panelCols      = 2
)

// HTML is grid.html: the setup, the aggregate CDF charts at every
// aggregate size with their tables, every condition's RMSE chart (small
// multiples, one figure per metric and slate space), and the provenance.
// It is self-contained and needs no script.
func (r *Report) HTML() []byte {
	p := report.NewPage(fmt.Sprintf("Off-policy evaluation grid: %d conditions", len(r.Conditions)))
	p.KeyValues([]string{"data", "candidates", "logs", "estimators", "reward conventions"}, []string{
		fmt.Sprintf("%s (%d queries)", r.Data, r.Queries),
		fmt.Sprintf("each query's top m by %s", r.CandidatesBy),
		fmt.Sprintf("%d runs per condition of up to %s samples, seeds %d..%d", r.Runs, report.Number(float64(r.Samples)), r.Seed, r.Seed+uint64(r.Runs)-1),
		strings.Join(r.Estimators, ", "),
		r.Conventions.Text,
	})
	for _, l := range r.SkippedLines() {
		p.Paragraph(l + ".")
	}
	p.Heading(2, "Aggregate: CDF of the normalised RMSE")
	p.Paragraph("Per metric and slate space, every estimator's RMSE in each logging/target combination, shifted and rescaled " +
		"so that the combination's best estimator (onpolicy left out) is at 0.001 and its worst at 1 (the paper's Fig. 2, middle and bottom rows). " +
		"A curve is the fraction of the combinations in which the estimator's normalised RMSE is at most x: closer to the top left is better.")
	for _, n := range r.AggregateAt {
		p.Heading(3, "n = "+report.Number(float64(n)))
		p.Figure(string(r.AggregateSVG(n)), fmt.Sprintf("CDF over the logging/target combinations of the normalised RMSE at n = %s logged samples; log x axis.", report.Number(float64(n))))
		for _, a := range r.Aggregates {
			if a.Samples == n {
				p.Heading(4, fmt.Sprintf("%s, (m, ℓ) = %s, n = %s: normalised RMSE", a.Metric, a.Space, report.Number(float64(n))))
				p.Table(append([]string{"logging → target"}, a.Estimators...), r.aggregateRows(a))
			}
		}
	}
	r.conditionFigures(p)
	r.Provenance.AddTo(p)
	return p.HTML()
}

// AggregateSVG is the aggregate chart at log size n, one CDF panel per
// metric and slate space, as a standalone SVG image (grid.html's figure,
// and OUT/aggregate-N.svg).
func (r *Report) AggregateSVG(n int64) []byte {
	var panels []string
	for _, a := range r.Aggregates {
		if a.Samples == n {
			panels = append(panels, cdfChart(a))
		}
	}
	return []byte(tile(panels))
}

// aggregateRows is one row per condition: its logging/target combination
// and normalised RMSEs.
func (r *Report) aggregateRows(a Aggregate) [][]string {
	rows := make([][]string, len(a.Conditions))
	for i, name := range a.Conditions {
		rows[i] = []string{r.combo(name)}
		for _, e := range a.Estimators {
			rows[i] = append(rows[i], report.Fixed(float64(a.Normalized[e][i]), 3))
		}
	}
	return rows
}

// conditionFigures adds every condition's log-log RMSE chart, tiled per
// metric and slate space.
func (r *Report) conditionFigures(p *report.Page) {
	p.Heading(2, "RMSE of every estimator, per condition")
	var panels []string
	for i, c := range r.Conditions {
		xs := make([]float64, len(r.Grid))
		for g, n := range r.Grid {
			xs[g] = float64(n)
		}
		var series []report.Series
		for _, name := range r.Estimators {
			// Only the sizes with a value: dr is computed at a few of
			// them, and its line joins those.
			s := report.Series{Name: name}
			for g, x := range xs {
				if g < len(c.RMSE[name]) && !math.IsNaN(float64(c.RMSE[name][g])) {
					s.X, s.Y = append(s.X, x), append(s.Y, float64(c.RMSE[name][g]))
				}
			}
			series = append(series, s)
		}
		panels = append(panels, report.LogLogChart(series, report.Title(r.combo(c.Name)), report.XLabel("logged samples n"),
			report.YLabel("RMSE"), report.Size(panelW, panelH)))
		if last := i+1 == len(r.Conditions); last || r.Conditions[i+1].Metric != c.Metric || r.Conditions[i+1].Space != c.Space {
			p.Heading(3, fmt.Sprintf("%s, (m, ℓ) = %s", c.Metric, c.Space))
			p.Figure(tile(panels), fmt.Sprintf("RMSE against V(π) over %d runs of each logging policy → target; conditions/NAME.json holds every run's estimates.", r.Runs))
			panels = nil
		}
	}
}

// combo is the logging/target combination of the named condition (its
// name when unknown).
func (r *Report) combo(name string) string {
	for _, c := range r.Conditions {
		if c.Name == name && c.combo != "" {
			return c.combo
		}
	}
	return name
}

// tile lays SVG charts out in a grid of panelCols columns, each panel
// panelW × panelH, as one SVG that scales to the page like a single chart.
// Each chart's own <svg> element is replaced by a translated group.
func tile(svgs []string) string {
	rows := (len(svgs) + panelCols - 1) / panelCols
	w, h := panelCols*panelW, rows*panelH
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" style="width:100%%;max-width:%dpx;height:auto" font-family="sans-serif" font-size="12">`+"\n", w, h, w)
	for i, s := range svgs {
		open, end := strings.Index(s, ">"), strings.LastIndex(s, "</svg>")
		if open < 0 || end < open {
			continue
		}
		fmt.Fprintf(&b, `<g transform="translate(%d %d)">`, (i%panelCols)*panelW, (i/panelCols)*panelH)
		b.WriteString(s[open+1 : end])
		b.WriteString("</g>\n")
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// palette and dashes follow package report's series styles, so that an
// estimator keeps its colour from the RMSE charts to the CDF charts
// (onpolicy, the last series there, has no CDF).
var (
	palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442", "#8c564b", "#7f7f7f"}
	dashes  = []string{"", "6 3", "2 2", "8 3 2 3"}
)

// cdfChart draws one aggregate's CDFs: a step line per estimator, log x
// from Floor to 1, linear y from 0 to 1.
func cdfChart(a Aggregate) string {
	var b strings.Builder
	legend := 0
	for _, e := range a.Estimators {
		legend = max(legend, len([]rune(e)))
	}
	left, top, right, bottom := 60.0, 34.0, float64(panelW)-float64(44+7*legend)-10, float64(panelH)-46
	px := func(x float64) float64 {
		return left + (math.Log10(x)-math.Log10(Floor))/(-math.Log10(Floor))*(right-left)
	}
	py := func(y float64) float64 { return bottom - y*(bottom-top) }
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d">`+"\n", panelW, panelH)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", panelW, panelH)
	text := func(x, y float64, anchor, s string, extra string) {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="%s"%s>%s</text>`+"\n", x, y, anchor, extra, escape(s))
	}
	text(float64(panelW)/2, 20, "middle", fmt.Sprintf("%s, (m, ℓ) = %s, n = %s", a.Metric, a.Space, report.Number(float64(a.Samples))), ` font-size="14" font-weight="bold"`)
	grid := `stroke="#e5e5e5" stroke-width="1"`
	for _, x := range []float64{0.001, 0.01, 0.1, 1} {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" %s/>`+"\n", px(x), top, px(x), bottom, grid)
		text(px(x), bottom+16, "middle", report.Number(x), "")
	}
	for _, y := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" %s/>`+"\n", left, py(y), right, py(y), grid)
		text(left-6, py(y)+4, "end", report.Number(y), "")
	}
	text((left+right)/2, bottom+36, "middle", "normalised RMSE", "")
	cy := (top + bottom) / 2
	text(16, cy, "middle", "fraction of conditions", fmt.Sprintf(` transform="rotate(-90 16 %.1f)"`, cy))
	for i, e := range a.Estimators {
		c, dash := palette[i%len(palette)], dashes[(i/len(palette)+i)%len(dashes)]
		if dash != "" {
			dash = fmt.Sprintf(` stroke-dasharray="%s"`, dash)
		}
		xs, fs := CDF(floats(a.Normalized[e]))
		path := fmt.Sprintf("M%.1f %.1f", left, bottom)
		for k, x := range xs {
			path += fmt.Sprintf(" H%.1f V%.1f", px(x), py(fs[k]))
		}
		path += fmt.Sprintf(" H%.1f", right)
		fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", path, c, dash)
		ly := top + 8 + float64(i)*20
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/>`+"\n", right+14, ly, right+38, ly, c, dash)
		text(right+44, ly+4, "start", e, "")
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// escape escapes text for SVG.
func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

func floats(xs []ope.Float) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// median is the median of the values that are not NaN (NaN when none).
func median(xs []ope.Float) float64 {
	var v []float64
	for _, x := range floats(xs) {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return math.NaN()
	}
	slices.Sort(v)
	k := len(v) / 2
	if len(v)%2 == 1 {
		return v[k]
	}
	return (v[k-1] + v[k]) / 2
}

// countBest counts the conditions in which the normalised RMSE is Floor.
func countBest(xs []ope.Float) int {
	n := 0
	for _, x := range xs {
		if float64(x) == Floor {
			n++
		}
	}
	return n
}
