package report

import (
	"fmt"
	"html"
	"io"
	"strings"
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
// aligned.
func (p *Page) Table(header []string, rows [][]string) {
	p.body.WriteString("<table>\n<thead><tr>")
	for _, h := range header {
		fmt.Fprintf(&p.body, "<th>%s</th>", html.EscapeString(h))
	}
	p.body.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range rows {
		p.body.WriteString("<tr>")
		for _, c := range r {
			class := ""
			if numeric(c) {
				class = ` class="num"`
			}
			fmt.Fprintf(&p.body, "<td%s>%s</td>", class, html.EscapeString(c))
		}
		p.body.WriteString("</tr>\n")
	}
	p.body.WriteString("</tbody>\n</table>\n")
}

func numeric(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789.+-eE±×% []()", r) {
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

const style = `body{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:4px 8px}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
pre{background:#f6f6f6;padding:8px;overflow-x:auto}figure{margin:1em 0}
figcaption{font-size:90%;color:#555}`

// HTML returns the complete document.
func (p *Page) HTML() []byte {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
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
