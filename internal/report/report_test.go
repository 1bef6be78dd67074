package report

import (
	"encoding/xml"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// wellFormed parses s as XML, which an inline SVG must be.
func wellFormed(t *testing.T, s string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		_, err := d.Token()
		if err != nil {
			if err.Error() == "EOF" {
				return
			}
			t.Fatalf("not well-formed XML: %v\n%s", err, s)
		}
	}
}

func TestLogLogChartPlacesPointsOnLogScale(t *testing.T) {
	svg := LogLogChart([]Series{
		{Name: "wPI", X: []float64{10, 100, 1000}, Y: []float64{1, 0.1, 0.01}},
		{Name: "wIPS <&>", X: []float64{10, 100, 1000}, Y: []float64{0.5, math.NaN(), 0.05}},
	}, Title("RMSE"), XLabel("n"), YLabel("RMSE"), Size(600, 400))
	wellFormed(t, svg)
	if !strings.Contains(svg, "wIPS &lt;&amp;&gt;") {
		t.Fatal("series name not escaped")
	}
	// wPI's three points lie on a straight line in log-log space with equal
	// pixel steps: x and y are both log-spaced by one decade.
	re := regexp.MustCompile(`<circle cx="([0-9.]+)" cy="([0-9.]+)" r="3" fill="#0072B2"><title>wPI`)
	m := re.FindAllStringSubmatch(svg, -1)
	if len(m) != 3 {
		t.Fatalf("found %d wPI points, want 3", len(m))
	}
	var xs, ys [3]float64
	for i, g := range m {
		xs[i], _ = strconv.ParseFloat(g[1], 64)
		ys[i], _ = strconv.ParseFloat(g[2], 64)
	}
	if math.Abs((xs[1]-xs[0])-(xs[2]-xs[1])) > 0.2 || math.Abs((ys[1]-ys[0])-(ys[2]-ys[1])) > 0.2 {
		t.Fatalf("points not equally spaced on log axes: x %v y %v", xs, ys)
	}
	if !(ys[0] < ys[1] && ys[1] < ys[2]) {
		t.Fatalf("decreasing RMSE must go down the page (growing y): %v", ys)
	}
	// The NaN point is skipped: the second series has a path broken in two.
	if strings.Count(svg, `<title>wIPS &lt;&amp;&gt;: (`) != 2 {
		t.Fatal("NaN point drawn")
	}
	for _, tick := range []string{">10<", ">100<", ">1k<", ">0.01<", ">0.1<", ">1<"} {
		if !strings.Contains(svg, tick) {
			t.Errorf("tick label %s missing", tick)
		}
	}
}

func TestBarChartHeightsAndErrorBars(t *testing.T) {
	svg := BarChart([]string{"ndcg@3", "err@3"}, []string{"pi-opt", "sup"},
		[][]float64{{0.4, 0.2}, {0.3, math.NaN()}}, [][]float64{{0.05, 0}, {0.01, 0}}, YLabel("value"))
	wellFormed(t, svg)
	re := regexp.MustCompile(`<rect x="[0-9.]+" y="([0-9.]+)" width="[0-9.]+" height="([0-9.]+)" fill="[^"]+"><title>([^<]*)</title>`)
	m := re.FindAllStringSubmatch(svg, -1)
	if len(m) != 3 {
		t.Fatalf("found %d bars, want 3 (NaN left out)", len(m))
	}
	h := map[string]float64{}
	for _, g := range m {
		h[g[3]], _ = strconv.ParseFloat(g[2], 64)
	}
	// Heights are proportional to values (axis from 0).
	if r := h["ndcg@3, pi-opt: 0.4"] / h["ndcg@3, sup: 0.2"]; math.Abs(r-2) > 0.02 {
		t.Fatalf("bar heights ratio %g, want 2 (%v)", r, h)
	}
	// Two error bars (zero errors are not drawn), three lines each.
	if n := strings.Count(svg, `stroke="#222222"`); n != 6 {
		t.Fatalf("%d error-bar lines, want 6", n)
	}
}

func TestBarChartNegativeValues(t *testing.T) {
	svg := BarChart([]string{"a"}, []string{"x", "y"}, [][]float64{{-1, 2}}, nil)
	wellFormed(t, svg)
	if !strings.Contains(svg, ">-1<") {
		t.Fatal("axis does not reach the negative value")
	}
}

// The default 720×440 chart with a one-letter legend plots in the frame
// x ∈ [70, 659] (720 − legend 44+7 − margin 10), y ∈ [36, 390] (440 − 50).
// The linear axes widen (1..2, 3..4) to themselves (steps of 0.2), so the
// points sit on the frame's corners; the log axes widen both to the decade
// [1, 10], so x = 2 sits at 70 + 589·log10 2 = 247.3, y = 3 at
// 390 − 354·log10 3 = 221.1 and y = 4 at 390 − 354·log10 4 = 176.9. Fixed
// pixels also pin down that the same input gives the same bytes.
func TestChartsPlacePointsExactly(t *testing.T) {
	s := []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{3, 4}}}
	for _, c := range []struct {
		name, svg, path string
	}{
		{"LineChart", LineChart(s), "M70.0 390.0 L659.0 36.0"},
		{"LogLogChart", LogLogChart(s), "M70.0 221.1 L247.3 176.9"},
	} {
		if want := `<path d="` + c.path + `"`; !strings.Contains(c.svg, want) {
			t.Errorf("%s lacks %s:\n%s", c.name, want, c.svg)
		}
	}
}

func TestEmptyChartsAreValid(t *testing.T) {
	wellFormed(t, LogLogChart(nil))
	wellFormed(t, BarChart(nil, nil, nil, nil))
	wellFormed(t, LogLogChart([]Series{{Name: "zero", X: []float64{0}, Y: []float64{0}}}))
}

func TestPage(t *testing.T) {
	p := NewPage("Results <1>")
	p.Paragraph("a & b")
	p.Table([]string{"estimator", "rmse"}, [][]string{{"wpi", "0.0123"}, {"dm", "n/a"}})
	p.Pre("piopt evaluate-sweep --runs 10")
	p.Figure(BarChart([]string{"g"}, []string{"s"}, [][]float64{{1}}, nil), "caption")
	h := string(p.HTML())
	for _, want := range []string{"<title>Results &lt;1&gt;</title>", "<p>a &amp; b</p>",
		`<td class="num">0.0123</td>`, "<td>n/a</td>", "<svg", "<figcaption>caption</figcaption>"} {
		if !strings.Contains(h, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"http://", "https://", "src="} {
		if strings.Contains(strings.ReplaceAll(h, `xmlns="http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("page refers to an external asset (%q)", bad)
		}
	}
}

func ExampleLogLogChart() {
	svg := LogLogChart([]Series{
		{Name: "wPI", X: []float64{1e3, 1e4, 1e5}, Y: []float64{0.1, 0.03, 0.01}},
		{Name: "wIPS", X: []float64{1e3, 1e4, 1e5}, Y: []float64{0.5, 0.3, 0.2}},
	}, Title("RMSE against logged samples"), XLabel("samples"), YLabel("RMSE"))
	fmt.Println(strings.HasPrefix(svg, "<svg"), strings.Count(svg, "<path"))
	// Output: true 2
}

func ExampleBarChart() {
	svg := BarChart(
		[]string{"ndcg@3", "err@3"},         // groups along the x axis
		[]string{"pi-opt", "sup", "random"}, // bars inside each group
		[][]float64{{0.42, 0.44, 0.15}, {0.32, 0.31, 0.10}},
		[][]float64{{0.01, 0.01, 0.002}, {0.01, 0.01, 0.002}},
		YLabel("mean over folds ± std"))
	p := NewPage("Experiment")
	p.Figure(svg, "Test-fold metrics.")
	fmt.Println(strings.Count(svg, "<rect") - 1 - 3) // minus background and legend swatches
	// Output: 6
}

// Every text of a page is escaped (html/template's escaper: + too, which
// browsers show as +), and a figure's SVG is inserted as is.
func TestPageEscapesText(t *testing.T) {
	const raw = `<a href='x'>"1+1" & ü</a>`
	const esc = `&lt;a href=&#39;x&#39;&gt;&#34;1&#43;1&#34; &amp; ü&lt;/a&gt;`
	p := NewPage(raw)
	p.Heading(9, raw)
	p.Paragraph(raw)
	p.Pre(raw)
	p.Table([]string{raw}, [][]string{{raw, "+1.5e+05", "a/b/c/d/e/f/g/h/<i>"}})
	p.KeyValues([]string{raw, "no value"}, []string{raw})
	p.Figure(`<svg><text>1+1</text></svg>`, raw)
	h := string(p.HTML())
	for _, want := range []string{
		"<title>" + esc + "</title>", "<h1>" + esc + "</h1>", "<h6>" + esc + "</h6>", "<p>" + esc + "</p>",
		"<pre>" + esc + "</pre>", "<th>" + esc + "</th>", "<td>" + esc + "</td>",
		`<td class="num">&#43;1.5e&#43;05</td>`, "<td>a/<wbr>b/<wbr>c/<wbr>d/<wbr>e/<wbr>f/<wbr>g/<wbr>h/<wbr>&lt;i&gt;</td>",
		"<tr><th>" + esc + "</th><td>" + esc + "</td></tr>", "<tr><th>no value</th><td></td></tr>",
		"<figure>\n<svg><text>1+1</text></svg><figcaption>" + esc + "</figcaption>\n</figure>\n",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("page lacks %q:\n%s", want, h)
		}
	}
	if strings.Count(h, "<a ") != 0 {
		t.Errorf("page has unescaped markup:\n%s", h)
	}
}
