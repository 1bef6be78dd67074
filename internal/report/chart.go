package report

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// palette holds distinguishable colours (Okabe–Ito, then Tableau); series
// cycle through it, and line series also cycle through dash patterns so
// that more series than colours stay distinct in print.
var palette = []string{
	"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
	"#56B4E9", "#000000", "#F0E442", "#8c564b", "#7f7f7f",
}

var dashes = []string{"", "6 3", "2 2", "8 3 2 3"}

// options are the settings shared by the charts.
type options struct {
	title, xlabel, ylabel string
	width, height         int
}

// Option sets a chart setting.
type Option func(*options)

// Title sets the chart's title.
func Title(s string) Option { return func(o *options) { o.title = s } }

// XLabel sets the x axis label.
func XLabel(s string) Option { return func(o *options) { o.xlabel = s } }

// YLabel sets the y axis label.
func YLabel(s string) Option { return func(o *options) { o.ylabel = s } }

// Size sets the chart's width and height in pixels (default 720 × 440).
func Size(w, h int) Option {
	return func(o *options) {
		if w > 0 && h > 0 {
			o.width, o.height = w, h
		}
	}
}

func apply(opts []Option) options {
	o := options{width: 720, height: 440}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// num formats a coordinate with one decimal, the resolution of the drawing.
func num(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

type svgWriter struct{ strings.Builder }

func (w *svgWriter) open(o options) {
	// No width or height: the chart scales to its container, keeping the
	// viewBox's aspect ratio, and never grows past its drawn size, where
	// its text would become larger than the page's.
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" style="width:100%%;max-width:%dpx;height:auto" font-family="sans-serif" font-size="12">`,
		o.width, o.height, o.width)
	w.WriteString("\n")
	fmt.Fprintf(w, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", o.width, o.height)
	if o.title != "" {
		fmt.Fprintf(w, `<text x="%s" y="20" text-anchor="middle" font-size="15" font-weight="bold">%s</text>`+"\n",
			num(float64(o.width)/2), html.EscapeString(o.title))
	}
}

func (w *svgWriter) text(x, y float64, anchor, s string) {
	fmt.Fprintf(w, `<text x="%s" y="%s" text-anchor="%s">%s</text>`+"\n", num(x), num(y), anchor, html.EscapeString(s))
}

func (w *svgWriter) line(x1, y1, x2, y2 float64, style string) {
	fmt.Fprintf(w, `<line x1="%s" y1="%s" x2="%s" y2="%s" %s/>`+"\n", num(x1), num(y1), num(x2), num(y2), style)
}

// frame is the plotting area in pixels.
type frame struct{ left, top, right, bottom float64 }

// axis maps data values to pixels, linearly or in log10.
type axis struct {
	log    bool
	lo, hi float64 // in data units (for a log axis, positive)
	p0, p1 float64 // pixel positions of lo and hi
}

func (a axis) pos(v float64) float64 {
	var t float64
	if a.log {
		t = (math.Log10(v) - math.Log10(a.lo)) / (math.Log10(a.hi) - math.Log10(a.lo))
	} else {
		t = (v - a.lo) / (a.hi - a.lo)
	}
	return a.p0 + t*(a.p1-a.p0)
}

// ticks returns the tick values of the axis: powers of ten on a log axis
// (with 2 and 5 between them when the range spans less than three decades),
// "nice" steps of 1, 2 or 5 × 10^k on a linear one.
func (a axis) ticks() (major []float64) {
	if a.log {
		e0, e1 := math.Floor(math.Log10(a.lo)), math.Ceil(math.Log10(a.hi))
		few := e1-e0 < 3
		for e := e0; e <= e1; e++ {
			p := math.Pow(10, e)
			for _, m := range []float64{1, 2, 5} {
				v := m * p
				if v < a.lo*(1-1e-9) || v > a.hi*(1+1e-9) {
					continue
				}
				if m == 1 || few {
					major = append(major, v)
				}
			}
		}
		return major
	}
	step := niceStep((a.hi - a.lo) / 6)
	for v := math.Ceil(a.lo/step-1e-9) * step; v <= a.hi+step*1e-9; v += step {
		major = append(major, math.Round(v/step)*step)
	}
	return major
}

func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// niceRange widens [lo, hi] to multiples of a nice step (linear axes).
func niceRange(lo, hi float64) (float64, float64) {
	if lo == hi {
		if lo == 0 {
			return 0, 1
		}
		d := math.Abs(lo) * 0.1
		lo, hi = lo-d, hi+d
	}
	step := niceStep((hi - lo) / 6)
	return math.Floor(lo/step) * step, math.Ceil(hi/step) * step
}

// logRange widens [lo, hi] (positive) to whole decades, or to 1-2-5 steps
// when the data span less than a decade.
func logRange(lo, hi float64) (float64, float64) {
	if !(lo > 0) || !(hi > 0) {
		return 1, 10
	}
	l, h := math.Pow(10, math.Floor(math.Log10(lo)+1e-9)), math.Pow(10, math.Ceil(math.Log10(hi)-1e-9))
	if l == h {
		h = 10 * l
	}
	return l, h
}

func (w *svgWriter) axes(f frame, x, y axis, o options, xTicks, yTicks []float64) {
	grid := `stroke="#e5e5e5" stroke-width="1"`
	// Horizontal grid and y labels.
	for _, v := range yTicks {
		py := y.pos(v)
		w.line(f.left, py, f.right, py, grid)
		w.text(f.left-6, py+4, "end", Number(v))
	}
	for _, v := range xTicks {
		px := x.pos(v)
		w.line(px, f.top, px, f.bottom, grid)
		w.text(px, f.bottom+16, "middle", Number(v))
	}
	axisStyle := `stroke="#333333" stroke-width="1"`
	w.line(f.left, f.bottom, f.right, f.bottom, axisStyle)
	w.line(f.left, f.top, f.left, f.bottom, axisStyle)
	if o.xlabel != "" {
		w.text((f.left+f.right)/2, f.bottom+36, "middle", o.xlabel)
	}
	if o.ylabel != "" {
		cy := (f.top + f.bottom) / 2
		fmt.Fprintf(w, `<text x="16" y="%s" text-anchor="middle" transform="rotate(-90 16 %s)">%s</text>`+"\n",
			num(cy), num(cy), html.EscapeString(o.ylabel))
	}
}

// legend draws one entry per series at the right of the frame.
func (w *svgWriter) legend(f frame, names []string, line bool) {
	x := f.right + 14
	for i, n := range names {
		y := f.top + 8 + float64(i)*20
		c := palette[i%len(palette)]
		if line {
			w.line(x, y, x+24, y, fmt.Sprintf(`stroke="%s" stroke-width="2"%s`, c, dashAttr(i)))
			fmt.Fprintf(w, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", num(x+12), num(y), c)
		} else {
			fmt.Fprintf(w, `<rect x="%s" y="%s" width="14" height="12" fill="%s"/>`+"\n", num(x+5), num(y-6), c)
		}
		w.text(x+30, y+4, "start", n)
	}
}

// dashAttr is the stroke-dasharray attribute of series i ("" for solid):
// past the palette's colours, dash patterns tell series apart.
func dashAttr(i int) string {
	if d := dashes[(i/len(palette)+i)%len(dashes)]; d != "" {
		return fmt.Sprintf(` stroke-dasharray="%s"`, d)
	}
	return ""
}

func legendWidth(names []string) float64 {
	n := 0
	for _, s := range names {
		n = max(n, len([]rune(s)))
	}
	return float64(44 + 7*n)
}

// Series is one line of a line chart: points (X[i], Y[i]) joined in order.
// Lo and Hi, when set (same length as Y), draw an error bar at each point.
// BandLo and BandHi, when set, shade the band between them under the line
// (for example the spread of the points across runs). Points that cannot be
// drawn (NaN, or not positive on a log axis) are skipped and break the line
// and the band.
type Series struct {
	Name           string
	X, Y           []float64
	Lo, Hi         []float64
	BandLo, BandHi []float64
}

// LogLogChart returns an SVG line chart with log10 scales on both axes, one
// line per series (for example the RMSE of every estimator against the
// number of logged samples).
func LogLogChart(series []Series, opts ...Option) string {
	return lineChart(series, true, true, opts)
}

// LogXChart returns an SVG line chart with a log10 x axis and a linear y
// axis (for example a metric against the number of logged impressions).
func LogXChart(series []Series, opts ...Option) string {
	return lineChart(series, true, false, opts)
}

// LineChart returns an SVG line chart with linear axes.
func LineChart(series []Series, opts ...Option) string {
	return lineChart(series, false, false, opts)
}

// plot is a line chart's frame and axes.
type plot struct {
	f          frame
	x, y       axis
	logX, logY bool
}

// drawable reports whether point k of s can be drawn.
func (p plot) drawable(s Series, k int) bool {
	return k < len(s.Y) && plottable(s.X[k], p.logX) && plottable(s.Y[k], p.logY)
}

func lineChart(series []Series, logX, logY bool, opts []Option) string {
	o := apply(opts)
	names := make([]string, len(series))
	for i, s := range series {
		names[i] = s.Name
	}
	xlo, xhi, ylo, yhi := axisRanges(series, logX, logY)
	f := frame{left: 70, top: 36, right: float64(o.width) - legendWidth(names) - 10, bottom: float64(o.height) - 50}
	p := plot{f: f, logX: logX, logY: logY,
		x: axis{log: logX, lo: xlo, hi: xhi, p0: f.left, p1: f.right},
		y: axis{log: logY, lo: ylo, hi: yhi, p0: f.bottom, p1: f.top}}
	var w svgWriter
	w.open(o)
	w.axes(f, p.x, p.y, o, p.x.ticks(), p.y.ticks())
	// Every band goes under every line, so no band hides a line.
	for i, s := range series {
		w.band(p, s, palette[i%len(palette)])
	}
	for i, s := range series {
		w.series(p, s, palette[i%len(palette)], dashAttr(i))
	}
	w.legend(f, names, true)
	w.WriteString("</svg>\n")
	return w.String()
}

// series draws the line, error bars and points of s.
func (w *svgWriter) series(p plot, s Series, c, dash string) {
	var path strings.Builder
	pen := false
	for k := range s.X {
		if !p.drawable(s, k) {
			pen = false
			continue
		}
		cmd := "L"
		if !pen {
			cmd = "M"
		}
		fmt.Fprintf(&path, "%s%s %s ", cmd, num(p.x.pos(s.X[k])), num(p.y.pos(s.Y[k])))
		pen = true
	}
	if d := strings.TrimSpace(path.String()); d != "" {
		fmt.Fprintf(w, `<path d="%s" fill="none" stroke="%s" stroke-width="2"%s><title>%s</title></path>`+"\n",
			d, c, dash, html.EscapeString(s.Name))
	}
	for k := range s.X {
		if !p.drawable(s, k) {
			continue
		}
		px, py := p.x.pos(s.X[k]), p.y.pos(s.Y[k])
		if k < len(s.Lo) && k < len(s.Hi) && plottable(s.Lo[k], p.logY) && plottable(s.Hi[k], p.logY) {
			st := fmt.Sprintf(`stroke="%s" stroke-width="1"`, c)
			lo, hi := p.y.pos(s.Lo[k]), p.y.pos(s.Hi[k])
			w.line(px, lo, px, hi, st)
			w.line(px-3, lo, px+3, lo, st)
			w.line(px-3, hi, px+3, hi, st)
		}
		fmt.Fprintf(w, `<circle cx="%s" cy="%s" r="3" fill="%s"><title>%s: (%s, %s)</title></circle>`+"\n",
			num(px), num(py), c, html.EscapeString(s.Name), Number(s.X[k]), Number(s.Y[k]))
	}
}

// band shades the area between s.BandLo and s.BandHi, one polygon per run
// of consecutive drawable points (a lone point has no area and is left
// out). An edge outside the frame is drawn on it: on a log axis a lower
// edge of 0 or below the axis (which the range does not stretch to, see
// axisRanges) lies on the bottom.
func (w *svgWriter) band(p plot, s Series, c string) {
	ok := func(k int) bool {
		return k < len(s.BandLo) && k < len(s.BandHi) && p.drawable(s, k) &&
			!math.IsNaN(s.BandLo[k]) && plottable(s.BandHi[k], p.logY)
	}
	ypos := func(v float64) float64 {
		if p.logY && !(v > 0) {
			return p.f.bottom
		}
		return min(max(p.y.pos(v), p.f.top), p.f.bottom)
	}
	for k := 0; k < len(s.X); {
		if !ok(k) {
			k++
			continue
		}
		end := k
		for end+1 < len(s.X) && ok(end+1) {
			end++
		}
		if end > k {
			var d strings.Builder
			cmd := "M"
			for j := k; j <= end; j++ {
				fmt.Fprintf(&d, "%s%s %s ", cmd, num(p.x.pos(s.X[j])), num(ypos(s.BandHi[j])))
				cmd = "L"
			}
			for j := end; j >= k; j-- {
				fmt.Fprintf(&d, "L%s %s ", num(p.x.pos(s.X[j])), num(ypos(s.BandLo[j])))
			}
			fmt.Fprintf(w, `<path d="%sZ" fill="%s" fill-opacity="0.15" stroke="none"/>`+"\n", d.String(), c)
		}
		k = end + 1
	}
}

// plottable reports whether v can be drawn on a linear or, when log is
// set, a logarithmic axis.
func plottable(v float64, log bool) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && (!log || v > 0)
}

// axisRanges returns the rounded x and y ranges of a line chart: they cover
// every drawable point, error bar and band's upper edge of the series, and
// on a linear y axis the bands' lower edges too. A log axis is not
// stretched down to a band's lower edge: near zero it would be unbounded
// (the RMSE minus its error can be 0), and the curves would shrink into a
// corner.
func axisRanges(series []Series, logX, logY bool) (xlo, xhi, ylo, yhi float64) {
	ok := plottable
	xlo, xhi, ylo, yhi = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	widen := func(vs []float64, k int, lo, hi bool) {
		if k < len(vs) && ok(vs[k], logY) {
			if lo {
				ylo = min(ylo, vs[k])
			}
			if hi {
				yhi = max(yhi, vs[k])
			}
		}
	}
	for _, s := range series {
		for k := range s.X {
			if k >= len(s.Y) || !ok(s.X[k], logX) || !ok(s.Y[k], logY) {
				continue
			}
			xlo, xhi = min(xlo, s.X[k]), max(xhi, s.X[k])
			ylo, yhi = min(ylo, s.Y[k]), max(yhi, s.Y[k])
			widen(s.Lo, k, true, false)
			widen(s.Hi, k, false, true)
			widen(s.BandHi, k, false, true)
			widen(s.BandLo, k, !logY, false)
		}
	}
	if xlo > xhi { // nothing to draw
		xlo, xhi, ylo, yhi = 1, 10, 1, 10
	}
	if logX {
		xlo, xhi = logRange(xlo, xhi)
	} else {
		xlo, xhi = niceRange(xlo, xhi)
	}
	if logY {
		ylo, yhi = logRange(ylo, yhi)
	} else {
		ylo, yhi = niceRange(ylo, yhi)
	}
	return xlo, xhi, ylo, yhi
}

// BarChart returns an SVG grouped bar chart: one cluster per group along
// the x axis, one bar per series inside it (values[g][s]), with an error bar
// of ± errs[g][s] when errs is non-nil (for example fold means ± their
// standard deviation). NaN values are left out.
func BarChart(groups, series []string, values, errs [][]float64, opts ...Option) string {
	o := apply(opts)
	at := func(t [][]float64, g, s int) float64 {
		if g < len(t) && s < len(t[g]) {
			return t[g][s]
		}
		return math.NaN()
	}
	lo, hi := 0.0, math.Inf(-1)
	for g := range groups {
		for s := range series {
			v := at(values, g, s)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			e := at(errs, g, s)
			if math.IsNaN(e) || math.IsInf(e, 0) {
				e = 0
			}
			e = math.Abs(e)
			lo, hi = min(lo, v-e), max(hi, v+e)
		}
	}
	if math.IsInf(hi, -1) {
		hi = 1
	}
	hi = max(hi, 0)
	lo, hi = niceRange(lo, hi)
	f := frame{left: 70, top: 36, right: float64(o.width) - legendWidth(series) - 10, bottom: float64(o.height) - 50}
	y := axis{lo: lo, hi: hi, p0: f.bottom, p1: f.top}
	x := axis{lo: 0, hi: 1, p0: f.left, p1: f.right}
	var w svgWriter
	w.open(o)
	w.axes(f, x, y, o, nil, y.ticks()) // bars are named, not ticked
	ng := max(len(groups), 1)
	cluster := (f.right - f.left) / float64(ng)
	bar := cluster * 0.8 / float64(max(len(series), 1))
	zero := y.pos(0)
	for g, gname := range groups {
		cx := f.left + cluster*float64(g)
		w.text(cx+cluster/2, f.bottom+16, "middle", gname)
		for s, sname := range series {
			v := at(values, g, s)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			c := palette[s%len(palette)]
			bx := cx + cluster*0.1 + bar*float64(s)
			top, bot := min(y.pos(v), zero), max(y.pos(v), zero)
			fmt.Fprintf(&w, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s, %s: %s</title></rect>`+"\n",
				num(bx+1), num(top), num(max(bar-2, 1)), num(bot-top), c,
				html.EscapeString(gname), html.EscapeString(sname), Number(v))
			e := at(errs, g, s)
			if e != 0 && !math.IsNaN(e) && !math.IsInf(e, 0) {
				e = math.Abs(e)
				mx := bx + bar/2
				st := `stroke="#222222" stroke-width="1.2"`
				w.line(mx, y.pos(v-e), mx, y.pos(v+e), st)
				w.line(mx-4, y.pos(v-e), mx+4, y.pos(v-e), st)
				w.line(mx-4, y.pos(v+e), mx+4, y.pos(v+e), st)
			}
		}
	}
	if lo < 0 {
		w.line(f.left, zero, f.right, zero, `stroke="#333333" stroke-width="1"`)
	}
	w.legend(f, series, false)
	w.WriteString("</svg>\n")
	return w.String()
}
