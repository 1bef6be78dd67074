package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/urfave/cli/v2"
)

// logMetric returns the log's reward metric with its conventions: flags
// when set, else the header's, else the defaults. ok is false when the
// log names no metric.
func logMetric(c *cli.Context, h data.Header, name string, slots int, ds *data.Dataset) (eval.Metric, bool, error) {
	if name == "" {
		return eval.Metric{}, false, nil
	}
	kindName, _, _ := strings.Cut(name, "@")
	kind, err := eval.ParseKind(kindName)
	if err != nil {
		return eval.Metric{}, false, fmt.Errorf("log metric: %w", err)
	}
	conv, err := conventions(c, ds)
	if err != nil {
		return eval.Metric{}, false, err
	}
	if v := h["discount"]; v != "" && !c.IsSet("discount") {
		if conv.Discount, err = eval.ParseDiscount(v); err != nil {
			return eval.Metric{}, false, fmt.Errorf("log header: %w", err)
		}
	}
	if v, ok, err := h.Int("empty-query-ndcg"); err == nil && ok && !c.IsSet("empty-ndcg") {
		conv.EmptyOne = v == 1
	}
	if v, ok, err := h.Int("err-maxrel"); err == nil && ok && !c.IsSet("maxrel") {
		if err := eval.CheckMaxRel(v, ds.MaxLabel()); err != nil {
			return eval.Metric{}, false, fmt.Errorf("log header err-maxrel: %w", err)
		}
		conv.MaxRel = v
	}
	return eval.Metric{Kind: kind, K: slots, Conventions: conv}, true, nil
}

func parseRange(s string) (lo, hi float64, err error) {
	a, b, ok := strings.Cut(s, ",")
	if ok {
		lo, err = strconv.ParseFloat(strings.TrimSpace(a), 64)
		if err == nil {
			hi, err = strconv.ParseFloat(strings.TrimSpace(b), 64)
		}
	}
	if !ok || err != nil || !(lo < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return 0, 0, fmt.Errorf("--reward-range %q: want LO,HI with LO < HI", s)
	}
	return lo, hi, nil
}
