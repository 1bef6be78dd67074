package report

import (
	"fmt"
	"html"
	"io"
	"strings"
	"unicode/utf8"
)

// Page is a self-contained HTML document built in order: headings,
// paragraphs, preformatted text, tables and inline SVG figures. All text is
// escaped; SVG passed to Figure is inserted as is (it must come from this
// package or be trusted).
type Page struct {
	title string
	body  strings.Builder
}

// NewPage starts a page with the given title (also its first heading).
func NewPage(title string) *Page {
	p := &Page{title: title}
	p.Heading(1, title)
	return p
}

// Heading adds a heading of level 1..6.
func (p *Page) Heading(level int, text string) {
	level = min(max(level, 1), 6)
	fmt.Fprintf(&p.body, "<h%d>%s</h%d>\n", level, html.EscapeString(text), level)
}

// Paragraph adds a paragraph of text.
func (p *Page) Paragraph(text string) {
	fmt.Fprintf(&p.body, "<p>%s</p>\n", html.EscapeString(text))
}

// Pre adds preformatted text, for commands and raw tables.
func (p *Page) Pre(text string) {
	fmt.Fprintf(&p.body, "<pre>%s</pre>\n", html.EscapeString(text))
}

// Table adds a table with a header row. Cells that look numeric are right
// aligned and never wrap; other cells wrap anywhere (a path or a hash
// breaks rather than widen the page). A table still too wide scrolls inside
// its own box.
func (p *Page) Table(header []string, rows [][]string) {
	// The wrapper scrolls a table wider than the window on its own, so
	// the page itself never scrolls sideways.
	p.body.WriteString("<div class=\"table\">\n<table>\n<thead><tr>")
	for _, h := range header {
		fmt.Fprintf(&p.body, "<th>%s</th>", html.EscapeString(h))
	}
	p.body.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range rows {
		p.body.WriteString("<tr>")
		for _, c := range r {
			p.body.WriteString(cell(c))
		}
		p.body.WriteString("</tr>\n")
	}
	p.body.WriteString("</tbody>\n</table>\n</div>\n")
}

// longToken is the length from which a cell without spaces or slashes (a
// hash) is set as code: smaller, monospaced, broken anywhere.
const longToken = 32

// cell renders a table cell: numbers right aligned; a long cell breaks
// after its slashes first (<wbr>), so a path wraps at a folder rather than
// inside a name.
func cell(c string) string {
	if numeric(c) {
		return fmt.Sprintf(`<td class="num">%s</td>`, html.EscapeString(c))
	}
	n := utf8.RuneCountInString(c)
	e := html.EscapeString(c)
	if n > 16 {
		e = strings.ReplaceAll(e, "/", "/<wbr>")
	}
	if n >= longToken && !strings.ContainsAny(c, " \t\n/") {
		return fmt.Sprintf(`<td class="token">%s</td>`, e)
	}
	return "<td>" + e + "</td>"
}

// KeyValues adds a two-column table of settings, one per row: the key
// as a row header, the value left aligned and wrapping under itself (a
// long value in a <pre> would wrap to the left margin, where it reads as a
// new key).
func (p *Page) KeyValues(keys, values []string) {
	p.body.WriteString("<div class=\"table\">\n<table class=\"kv\">\n<tbody>\n")
	for i, k := range keys {
		v := ""
		if i < len(values) {
			v = values[i]
		}
		fmt.Fprintf(&p.body, "<tr><th>%s</th><td>%s</td></tr>\n", html.EscapeString(k), html.EscapeString(v))
	}
	p.body.WriteString("</tbody>\n</table>\n</div>\n")
}

func numeric(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	for _, r := range s {
		// k, M, G: the suffixes of Number.
		if !strings.ContainsRune("0123456789.+-eE±×% []()kMG", r) {
			return false
		}
	}
	return true
}

// Figure adds an SVG chart with an optional caption.
func (p *Page) Figure(svg, caption string) {
	p.body.WriteString("<figure>\n")
	p.body.WriteString(svg)
	if caption != "" {
		fmt.Fprintf(&p.body, "<figcaption>%s</figcaption>\n", html.EscapeString(caption))
	}
	p.body.WriteString("</figure>\n")
}

// style makes the page read at any width: the text column is at most
// 1000 px and shrinks with the window; charts scale to the column (never
// past their drawn size, which would blow the text up); tables and
// preformatted text (commands, settings) wrap instead of widening the page.
const style = `body{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222;overflow-wrap:break-word}
div.table{overflow-x:auto;margin:1em 0}table{border-collapse:collapse}
th,td{border:1px solid #ccc;padding:4px 8px}td{overflow-wrap:anywhere}
th{background:#f3f3f3}table.kv th{text-align:left;vertical-align:top;font-weight:normal;white-space:nowrap}
td.token{font-family:monospace;font-size:85%;word-break:break-all}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap;overflow-wrap:normal}
pre{background:#f6f6f6;padding:8px;white-space:pre-wrap;overflow-wrap:anywhere}
figure{margin:1em 0}figure svg{display:block;width:100%;height:auto}
figcaption{font-size:90%;color:#555}`

// HTML returns the complete document.
func (p *Page) HTML() []byte {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<style>\n%s\n</style>\n</head>\n<body>\n", html.EscapeString(p.title), style)
	b.WriteString(p.body.String())
	b.WriteString("</body>\n</html>\n")
	return []byte(b.String())
}

// WriteTo writes the document to w.
func (p *Page) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(p.HTML())
	return int64(n), err
}
