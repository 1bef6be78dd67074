package report

import (
	"html/template"
	"io"
	"strings"
	"unicode/utf8"
)

// Page is a self-contained HTML document built in order: headings,
// paragraphs, preformatted text, tables and inline SVG figures. The markup
// is html/template's (pageTemplates), which escapes all text by context;
// SVG passed to Figure is inserted as is (it must come from this package
// or be trusted).
type Page struct {
	title string
	body  strings.Builder
}

// pageTemplates are a page's blocks, one template each, and the document
// around them ("page"). Every block ends its own line, as the document's
// tags do, so a page reads in a text editor too.
var pageTemplates = template.Must(template.New("").Parse(`
{{- define "heading"}}<h{{.Level}}>{{.Text}}</h{{.Level}}>
{{end}}
{{- define "paragraph"}}<p>{{.}}</p>
{{end}}
{{- define "pre"}}<pre>{{.}}</pre>
{{end}}
{{- define "table"}}<div class="table">
<table>
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}{{template "cell" .}}{{end}}</tr>
{{end}}</tbody>
</table>
</div>
{{end}}
{{- define "cell"}}<td{{with .Class}} class="{{.}}"{{end}}>
	{{- range $i, $part := .Parts}}{{if $i}}/<wbr>{{end}}{{$part}}{{end}}</td>
{{- end}}
{{- define "keyValues"}}<div class="table">
<table class="kv">
<tbody>
{{range .}}<tr><th>{{.Key}}</th><td>{{.Value}}</td></tr>
{{end}}</tbody>
</table>
</div>
{{end}}
{{- define "figure"}}<figure>
{{.SVG}}{{with .Caption}}<figcaption>{{.}}</figcaption>
{{end}}</figure>
{{end}}
{{- define "page"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
` + style + `
</style>
</head>
<body>
{{.Body}}</body>
</html>
{{end}}`))

// add renders the block template name with data onto the page. The
// templates are fixed and their data typed, so an error is a bug here.
func (p *Page) add(name string, data any) {
	if err := pageTemplates.ExecuteTemplate(&p.body, name, data); err != nil {
		panic("report: " + err.Error())
	}
}

// NewPage starts a page with the given title (also its first heading).
func NewPage(title string) *Page {
	p := &Page{title: title}
	p.Heading(1, title)
	return p
}

// Heading adds a heading of level 1..6.
func (p *Page) Heading(level int, text string) {
	p.add("heading", struct {
		Level int
		Text  string
	}{min(max(level, 1), 6), text})
}

// Paragraph adds a paragraph of text.
func (p *Page) Paragraph(text string) { p.add("paragraph", text) }

// Pre adds preformatted text, for commands and raw tables.
func (p *Page) Pre(text string) { p.add("pre", text) }

// tableCell is one <td>: its class ("" for none) and its text in parts,
// with a line-break opportunity (<wbr>) after the slash between two.
type tableCell struct {
	Class string
	Parts []string
}

// Table adds a table with a header row. Cells that look numeric are right
// aligned and never wrap; other cells wrap anywhere (a path or a hash
// breaks rather than widen the page). A table still too wide scrolls inside
// its own box (the wrapper div), so the page itself never scrolls sideways.
func (p *Page) Table(header []string, rows [][]string) {
	cells := make([][]tableCell, len(rows))
	for i, r := range rows {
		cells[i] = make([]tableCell, len(r))
		for j, c := range r {
			cells[i][j] = cell(c)
		}
	}
	p.add("table", struct {
		Header []string
		Rows   [][]tableCell
	}{header, cells})
}

// longToken is the length from which a cell without spaces or slashes (a
// hash) is set as code: smaller, monospaced, broken anywhere.
const longToken = 32

// cell lays out a table cell: numbers right aligned; a long cell breaks
// after its slashes first (<wbr>), so a path wraps at a folder rather than
// inside a name.
func cell(c string) tableCell {
	if numeric(c) {
		return tableCell{"num", []string{c}}
	}
	n := utf8.RuneCountInString(c)
	if n >= longToken && !strings.ContainsAny(c, " \t\n/") {
		return tableCell{"token", []string{c}}
	}
	if n > 16 {
		return tableCell{"", strings.Split(c, "/")}
	}
	return tableCell{"", []string{c}}
}

// KeyValues adds a two-column table of settings, one per row: the key
// as a row header, the value left aligned and wrapping under itself (a
// long value in a <pre> would wrap to the left margin, where it reads as a
// new key). A key without a value gets an empty cell.
func (p *Page) KeyValues(keys, values []string) {
	type keyValue struct{ Key, Value string }
	kvs := make([]keyValue, len(keys))
	for i, k := range keys {
		kvs[i].Key = k
		if i < len(values) {
			kvs[i].Value = values[i]
		}
	}
	p.add("keyValues", kvs)
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
	p.add("figure", struct {
		SVG     template.HTML // trusted: see Page
		Caption string
	}{template.HTML(svg), caption})
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
	p2 := struct {
		Title string
		Body  template.HTML // the blocks, rendered by add
	}{p.title, template.HTML(p.body.String())}
	if err := pageTemplates.ExecuteTemplate(&b, "page", p2); err != nil {
		panic("report: " + err.Error())
	}
	return []byte(b.String())
}

// WriteTo writes the document to w.
func (p *Page) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(p.HTML())
	return int64(n), err
}
