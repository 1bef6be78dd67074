package policy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/piopt/piopt/data"
)

// Layout describes how a LETOR feature vector is organised into streams:
// features 5g+1 .. 5g+5 are group g's values on the body, anchor, title,
// url and whole-document streams, for g = 0 .. Groups−1; document-level
// features follow.
type Layout struct {
	Name     string
	Features int   // feature count of the layout
	Groups   int   // stream groups of 5 features
	URLDoc   []int // document-level features of the url side (1-based)
	BodyDoc  []int // document-level features of the body side
	DocLevel []int // every document-level feature
}

// Streams in the order of a group.
var streams = []string{"body", "anchor", "title", "url", "whole"}

func span(lo, hi int) []int {
	var s []int
	for i := lo; i <= hi; i++ {
		s = append(s, i)
	}
	return s
}

// Layouts known by feature count.
var (
	// MSLR-WEB10K/30K (docs/design.md): 25 groups; 126..136 document-level.
	// The authors' scripts logged with "url-side" = anchor and url streams
	// + 126..131 (URL slashes and length, inlinks, outlinks, PageRank,
	// SiteRank) and targeted "body-side" = body, title and whole-document
	// streams + 132..133 (QualityScore, QualityScore2).
	LayoutMSLR = Layout{Name: "MSLR", Features: 136, Groups: 25, URLDoc: span(126, 131), BodyDoc: span(132, 133), DocLevel: span(126, 136)}
	// LETOR 4.0 (MQ2007, MQ2008): 8 groups (TF, IDF, TF·IDF, length, BM25,
	// LMIR.ABS, LMIR.DIR, LMIR.JM); 41..46 document-level (PageRank,
	// inlinks, outlinks, URL slashes, URL length, child pages), which are
	// all link or URL features and so belong to the url side.
	LayoutLETOR4 = Layout{Name: "LETOR 4.0", Features: 46, Groups: 8, URLDoc: span(41, 46), BodyDoc: nil, DocLevel: span(41, 46)}
)

// LayoutFor returns the stream layout of a dataset with nf features.
func LayoutFor(nf int) (Layout, error) {
	switch nf {
	case LayoutMSLR.Features:
		return LayoutMSLR, nil
	case LayoutLETOR4.Features:
		return LayoutLETOR4, nil
	}
	return Layout{}, fmt.Errorf("no stream layout for %d features (known: 136 = MSLR, 46 = LETOR 4.0); name features by number instead, e.g. 1-5+126", nf)
}

// stream returns the features of one stream (0 body .. 4 whole).
func (l Layout) stream(s int) []int {
	out := make([]int, l.Groups)
	for g := range out {
		out[g] = 5*g + s + 1
	}
	return out
}

// Subset returns the features (1-based, increasing) of a named group:
// body, anchor, title, url, whole (one stream of every group), doc (every
// document-level feature), url-side (anchor + url streams + the url side's
// document-level features) or body-side (body + title + whole streams + the
// body side's document-level features).
func (l Layout) Subset(name string) ([]int, error) {
	var out []int
	switch name {
	case "url-side":
		out = append(append(l.stream(1), l.stream(3)...), l.URLDoc...)
	case "body-side":
		out = append(append(append(l.stream(0), l.stream(2)...), l.stream(4)...), l.BodyDoc...)
	case "doc":
		out = slices.Clone(l.DocLevel)
	default:
		i := slices.Index(streams, name)
		if i < 0 {
			return nil, fmt.Errorf("unknown feature group %q (want body, anchor, title, url, whole, doc, url-side, body-side, or numbers like 1-5)", name)
		}
		out = l.stream(i)
	}
	slices.Sort(out)
	return out, nil
}

// ParseSubset reads a feature subset for a dataset of nf features: items
// joined by '+', each a group name of Layout.Subset or a feature number or
// range (1-based, inclusive), e.g. "url-side", "body+title", "1-5+126".
// The result is sorted and free of repeats.
func ParseSubset(spec string, nf int) ([]int, error) {
	var out []int
	for _, item := range strings.Split(spec, "+") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("feature subset %q: empty item", spec)
		}
		if item[0] >= '0' && item[0] <= '9' {
			lo, hi, isRange := strings.Cut(item, "-")
			a, err := strconv.Atoi(lo)
			b := a
			if err == nil && isRange {
				b, err = strconv.Atoi(hi)
			}
			if err != nil || a < 1 || b < a || b > nf {
				return nil, fmt.Errorf("feature subset %q: %q is not a feature number or range within 1..%d", spec, item, nf)
			}
			out = append(out, span(a, b)...)
			continue
		}
		l, err := LayoutFor(nf)
		if err != nil {
			return nil, fmt.Errorf("feature subset %q: %w", spec, err)
		}
		s, err := l.Subset(item)
		if err != nil {
			return nil, fmt.Errorf("feature subset %q: %w", spec, err)
		}
		out = append(out, s...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// Masked returns a copy of ds's features with every column outside the
// subset (1-based feature numbers) set to 0. A regressor trained on it never
// uses the zeroed columns — a constant column offers no split to a tree and
// gets no weight from an L1-penalised linear model — so the model applies to
// full feature rows unchanged.
func Masked(ds *data.Dataset, features []int) []float32 {
	nf := ds.NumFeatures
	keep := make([]bool, nf)
	for _, f := range features {
		keep[f-1] = true
	}
	out := make([]float32, len(ds.Features))
	for d := range ds.NumDocs() {
		row, src := out[d*nf:(d+1)*nf], ds.Features[d*nf:(d+1)*nf]
		for k := range nf {
			if keep[k] {
				row[k] = src[k]
			}
		}
	}
	return out
}
