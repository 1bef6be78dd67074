package trainer

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/features"
)

// metric is a validation metric computed in Go from XGBoost's predictions.
// XGBoost's own evaluation sums over threads in an order that depends on
// their number, so its value changes in the last digits with --threads; the
// value that picks the best round and is stored in the model must not.
type metric struct {
	name string // "rmse" or "ndcg@K"
	k    int    // K of ndcg@K
}

// parseMetric checks a metric name against the objective: rmse for
// regression, ndcg@K for rank:ndcg.
func parseMetric(name, objective string) (metric, error) {
	if objective == ObjectiveRankNDCG {
		k, err := strconv.Atoi(strings.TrimPrefix(name, "ndcg@"))
		if !strings.HasPrefix(name, "ndcg@") || err != nil || k < 1 {
			return metric{}, fmt.Errorf("eval metric %q: rank:ndcg is evaluated with ndcg@K", name)
		}
		return metric{name: name, k: k}, nil
	}
	if name != "rmse" {
		return metric{}, fmt.Errorf("eval metric %q: regression is evaluated with rmse", name)
	}
	return metric{name: name}, nil
}

// maximize reports whether a larger value is better.
func (m metric) maximize() bool { return m.k > 0 }

// xgboostName is the name of the same metric in XGBoost, for the training
// set's value: "ndcg@K-" scores a query without relevant docs 0, as piopt
// does by default.
func (m metric) xgboostName() string {
	if m.k > 0 {
		return m.name + "-"
	}
	return m.name
}

// evaluator computes a metric on one matrix, reusing its buffers.
// It keeps the labels, weights and groups of the matrix but not its rows.
type evaluator struct {
	m       metric
	labels  []float32
	weights []float32
	groups  []uint32
	grades  []uint8 // labels of a ranking matrix as grades
	order   []int32
}

func newEvaluator(m metric, x *features.Matrix) (*evaluator, error) {
	e := &evaluator{m: m, labels: x.Labels, weights: x.Weights, groups: x.Groups}
	if m.k > 0 {
		e.grades = make([]uint8, len(x.Labels))
		for i, l := range x.Labels {
			if l < 0 || l > 30 || l != float32(math.Trunc(float64(l))) {
				return nil, fmt.Errorf("row %d: grade %v is not an integer in 0..30", i, l)
			}
			e.grades[i] = uint8(l)
		}
	}
	return e, nil
}

// eval returns the metric of predictions p (one per row), summed in row
// order in float64: the same value for any number of threads.
func (e *evaluator) eval(p []float32) float64 {
	if e.m.k == 0 {
		var se, w float64
		for i, y := range e.labels {
			wi := 1.0
			if e.weights != nil {
				wi = float64(e.weights[i])
			}
			d := float64(p[i]) - float64(y)
			se += wi * d * d
			w += wi
		}
		if w == 0 {
			return 0
		}
		return math.Sqrt(se / w)
	}
	conv := eval.Conventions{Discount: eval.DiscountLog2}
	var sum float64
	lo := 0
	for _, g := range e.groups {
		hi := lo + int(g)
		e.order = slices.Grow(e.order[:0], hi-lo)[:hi-lo]
		eval.SortByScore(e.order, p[lo:hi])
		sum += eval.NDCG(e.grades[lo:hi], e.order[:min(e.m.k, hi-lo)], e.m.k, conv)
		lo = hi
	}
	return sum / float64(len(e.groups))
}
