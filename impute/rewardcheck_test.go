package impute

import (
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
)

// headerMetric reads only a header that states every convention the way
// simulate writes it; anything else is not guessed at (no check).
func TestHeaderMetric(t *testing.T) {
	full := func(edit func(h data.Header)) data.Header {
		h := data.Header{"metric": "err@3", "discount": "1/log2(j+1)", "empty-query-ndcg": "1", "err-maxrel": "4"}
		edit(h)
		return h
	}
	for _, tc := range []struct {
		name string
		h    data.Header
		ok   bool
		want eval.Metric
	}{
		{"as simulate writes it", full(func(data.Header) {}), true,
			eval.Metric{Kind: eval.KindERR, K: 3, Conventions: eval.Conventions{Discount: eval.DiscountLog2, EmptyOne: true, MaxRel: 4}}},
		{"ndcg", full(func(h data.Header) { h["metric"], h["empty-query-ndcg"] = "ndcg@3", "0" }), true,
			eval.Metric{Kind: eval.KindNDCG, K: 3, Conventions: eval.Conventions{Discount: eval.DiscountLog2, MaxRel: 4}}},
		{"cut-off is not the slots", full(func(h data.Header) { h["metric"] = "err@2" }), false, eval.Metric{}},
		{"no metric", full(func(h data.Header) { delete(h, "metric") }), false, eval.Metric{}},
		{"no discount", full(func(h data.Header) { delete(h, "discount") }), false, eval.Metric{}},
		{"no empty-query-ndcg", full(func(h data.Header) { delete(h, "empty-query-ndcg") }), false, eval.Metric{}},
		{"empty-query-ndcg=2", full(func(h data.Header) { h["empty-query-ndcg"] = "2" }), false, eval.Metric{}},
		{"no err-maxrel", full(func(h data.Header) { delete(h, "err-maxrel") }), false, eval.Metric{}},
		{"err-maxrel=0", full(func(h data.Header) { h["err-maxrel"] = "0" }), false, eval.Metric{}},
	} {
		got, ok := headerMetric(tc.h, 3)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: got %+v, %v; want %+v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
