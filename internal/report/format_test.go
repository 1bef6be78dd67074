package report

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestNumber(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{
		{0, "0"}, {100, "100"}, {999, "999"}, {1000, "1k"}, {2000, "2k"}, {1e4, "10k"}, {1e5, "100k"}, {1e6, "1M"},
		{1e9, "1G"}, {3e12, "3T"},
		{17783, "17.78k"}, {1778, "1.778k"}, {56234, "56.23k"}, {316, "316"}, {31.62, "31.62"},
		{999950, "1M"},   // four digits round up a unit, not to 1000k
		{999.96, "1k"},   // nor to 1000
		{-2500, "-2.5k"}, // signs kept
		{0.1 * 3, "0.3"}, {0.001, "0.001"}, {1e-5, "0.00001"}, {0.000012346, "0.00001235"}, {0.35, "0.35"},
		{math.NaN(), "-"}, {math.Inf(1), "∞"},
	} {
		if got := Number(c.x); got != c.want {
			t.Errorf("Number(%v) = %q, want %q", c.x, got, c.want)
		}
	}
}

func TestDecimalsAndFixed(t *testing.T) {
	for _, c := range []struct {
		vals      []float64
		sig, want int
	}{
		{[]float64{0.21174, 0.0007697, math.NaN()}, 2, 5}, // 0.00077: 2 digits need 5 decimals
		{[]float64{0.5, -0.25}, 2, 4},                     // at least lo = 4
		{[]float64{1e-9, 0.3}, 2, 6},                      // at most hi = 6
		{[]float64{0, math.NaN(), math.Inf(1)}, 2, 4},     // nothing finite and nonzero: lo
		{[]float64{-0.0123}, 3, 4},                        // the magnitude counts, not the sign
	} {
		if got := Decimals(c.vals, c.sig, 4, 6); got != c.want {
			t.Errorf("Decimals(%v, %d) = %d, want %d", c.vals, c.sig, got, c.want)
		}
	}
	got := FixedColumn([]float64{0.21174, -0.0007697, math.NaN(), 2}, 2, 4, 6)
	want := []string{"0.21174", "-0.00077", "-", "2.00000"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("FixedColumn = %q, want %q", got, want)
	}
	// A value rounding to zero prints no minus sign.
	for x, want := range map[float64]string{-0.000001: "0.0000", -0.00005: "-0.0001", 0: "0.0000"} {
		if got := Fixed(x, 4); got != want {
			t.Errorf("Fixed(%v, 4) = %q, want %q", x, got, want)
		}
	}
}

// xTicks are the labels under a line chart's x axis (y = height − 34 with
// the default frame), in order.
func xTicks(svg string, height int) []string {
	re := regexp.MustCompile(`<text x="[0-9.]+" y="` + strconv.Itoa(height-34) + `\.0" text-anchor="middle">([^<]*)</text>`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(svg, -1) {
		out = append(out, m[1])
	}
	return out
}

// yTicks are the labels left of the y axis (anchored at its end), bottom up.
func yTicks(svg string) []string {
	re := regexp.MustCompile(`<text x="64\.0" y="[0-9.]+" text-anchor="end">([^<]*)</text>`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(svg, -1) {
		out = append(out, m[1])
	}
	return out
}

// A log axis from 100 to 10⁶ is labelled in the one notation of Number,
// and so is a y axis of three decades below 1: no 1e+05, no 100000.
func TestLogAxisTicks(t *testing.T) {
	svg := LogLogChart([]Series{{Name: "a", X: []float64{100, 1e6}, Y: []float64{0.002, 0.9}}})
	wellFormed(t, svg)
	if got, want := strings.Join(xTicks(svg, 440), " "), "100 1k 10k 100k 1M"; got != want {
		t.Errorf("x ticks %q, want %q", got, want)
	}
	if got, want := strings.Join(yTicks(svg), " "), "0.001 0.01 0.1 1"; got != want {
		t.Errorf("y ticks %q, want %q", got, want)
	}
	// Less than three decades: 1-2-5 steps, same notation.
	svg = LogLogChart([]Series{{Name: "a", X: []float64{1000, 50000}, Y: []float64{1, 2}}}, Size(700, 300))
	if got, want := strings.Join(xTicks(svg, 300), " "), "1k 2k 5k 10k 20k 50k 100k"; got != want {
		t.Errorf("x ticks %q, want %q", got, want)
	}
}

// Charts scale to their container: a viewBox, no fixed width or height on
// the <svg> element, and a max-width of the drawn size.
func TestChartsAreResponsive(t *testing.T) {
	s := []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{3, 4}}}
	svgTag := regexp.MustCompile(`^<svg [^>]*>`)
	for name, svg := range map[string]string{
		"LogLogChart": LogLogChart(s, Size(1200, 500)),
		"LineChart":   LineChart(s, Size(1200, 500)),
		"BarChart":    BarChart([]string{"g"}, []string{"s"}, [][]float64{{1}}, nil, Size(1200, 500)),
	} {
		tag := svgTag.FindString(svg)
		if !strings.Contains(tag, `viewBox="0 0 1200 500"`) || !strings.Contains(tag, `style="width:100%;max-width:1200px;height:auto"`) {
			t.Errorf("%s: %s", name, tag)
		}
		if regexp.MustCompile(`\s(width|height)=`).MatchString(tag) {
			t.Errorf("%s has a fixed size: %s", name, tag)
		}
	}
}

// A band is one closed path per run of drawable points: the upper edge
// left to right, the lower edge back. On the default 720×440 frame with a
// one-letter legend, x ∈ [70, 659] and y ∈ [36, 390]; x spans the decades
// 10..1000 (10 → 70, 100 → 70 + 589/2 = 364.5) and y the decades 0.01..1
// (pixel 390 − 177·(log10 v + 2)): 0.8 → 53.2, 0.3 → 128.5. The lower
// edge 10⁻⁶ at x = 100 is below the axis, which a band's lower edge does
// not stretch (the axis still starts at 0.01), so it lies on the bottom
// (390.0); the third point has no lower edge (NaN) and, alone, no band.
func TestBandCoordinates(t *testing.T) {
	svg := LogLogChart([]Series{{Name: "a", X: []float64{10, 100, 1000}, Y: []float64{0.5, 0.2, 0.05},
		BandLo: []float64{0.3, 1e-6, math.NaN()}, BandHi: []float64{0.8, 0.3, 0.1}}})
	wellFormed(t, svg)
	want := `<path d="M70.0 53.2 L364.5 128.5 L364.5 390.0 L70.0 128.5 Z" fill="#0072B2" fill-opacity="0.15" stroke="none"/>`
	if !strings.Contains(svg, want) {
		t.Errorf("band missing: want %s in\n%s", want, svg)
	}
	if n := strings.Count(svg, `fill-opacity=`); n != 1 {
		t.Errorf("%d bands, want 1", n)
	}
	if got := yTicks(svg); got[0] != "0.01" {
		t.Errorf("y axis starts at %s, want 0.01 (not stretched by the band)", got[0])
	}
	// Bands are drawn before every line, so no band hides a line.
	if strings.Index(svg, "fill-opacity") > strings.Index(svg, `fill="none"`) {
		t.Error("band drawn over a line")
	}
	// On a linear axis the lower edge does widen the range: 0.5 − 1 < 0.
	lin := LineChart([]Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2}, BandLo: []float64{-1, 1}, BandHi: []float64{2, 3}}})
	if got := yTicks(lin); got[0] != "-1" {
		t.Errorf("linear y axis starts at %s, want -1", got[0])
	}
}

// The page's CSS keeps it within a 700-pixel window: long settings and
// table cells wrap, wide tables scroll in their own box, charts scale.
func TestPageReadsAtAnyWidth(t *testing.T) {
	p := NewPage("t")
	hash := strings.Repeat("0123456789abcdef", 4)
	p.Table([]string{"input", "bytes", "sha256"}, [][]string{{"/work/shared/data/MQ2008/Fold1/test.txt", "1768645", hash}, {"n/a", "1.778k", "-"}})
	p.KeyValues([]string{"params"}, []string{"trees=30 leaves=70"})
	h := string(p.HTML())
	for _, want := range []string{
		`<meta name="viewport" content="width=device-width, initial-scale=1">`,
		`pre{background:#f6f6f6;padding:8px;white-space:pre-wrap;overflow-wrap:anywhere}`,
		`td{overflow-wrap:anywhere}`, `div.table{overflow-x:auto`, `figure svg{display:block;width:100%;height:auto}`,
		`<div class="table">` + "\n<table>",
		`<td>/<wbr>work/<wbr>shared/<wbr>data/<wbr>MQ2008/<wbr>Fold1/<wbr>test.txt</td>`, // breaks at folders
		`<td class="token">` + hash + `</td>`, `<td class="num">1768645</td>`,
		`<td>n/a</td>`, `<td class="num">1.778k</td>`, `<td class="num">-</td>`,
		`<table class="kv">` + "\n<tbody>\n<tr><th>params</th><td>trees=30 leaves=70</td></tr>",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(h, "overflow-x:auto}figure") || strings.Contains(h, "pre{background:#f6f6f6;padding:8px;overflow-x:auto}") {
		t.Error("pre scrolls sideways instead of wrapping")
	}
}
