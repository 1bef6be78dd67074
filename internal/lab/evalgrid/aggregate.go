package evalgrid

import (
	"math"
	"slices"

	"github.com/piopt/piopt/ope"
)

// Floor is the normalised RMSE of the best estimator: the paper's 0.001
// rather than 0, so that it has a place on a log axis.
const Floor = 0.001

// Normalize shifts and rescales the RMSEs of the estimators in one
// condition so that the best is Floor and the worst 1, linearly:
// Floor + (1 − Floor)·(x − best)/(worst − best). NaN (not computed) stays
// NaN and counts for neither end; when every value is the same, all are
// the best, Floor.
func Normalize(xs []float64) []float64 {
	best, worst := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		if !math.IsNaN(x) {
			best, worst = min(best, x), max(worst, x)
		}
	}
	out := make([]float64, len(xs))
	for i, x := range xs {
		switch {
		case math.IsNaN(x):
			out[i] = math.NaN()
		case worst == best:
			out[i] = Floor
		default:
			out[i] = Floor + (1-Floor)*(x-best)/(worst-best)
		}
	}
	return out
}

// CDF returns the empirical distribution function of xs as its steps:
// the distinct values in increasing order and, at each, the fraction of
// xs at or below it. NaN values are in the denominator but never reached,
// so a curve with missing conditions ends below 1.
func CDF(xs []float64) (x, frac []float64) {
	var v []float64
	for _, a := range xs {
		if !math.IsNaN(a) {
			v = append(v, a)
		}
	}
	slices.Sort(v)
	n := float64(len(xs))
	for i, a := range v {
		if i+1 < len(v) && v[i+1] == a {
			continue
		}
		x, frac = append(x, a), append(frac, float64(i+1)/n)
	}
	return x, frac
}

// Aggregate is the paper's aggregate of one metric and slate space at one
// log size: per logging/target combination (a condition), the RMSE of
// every estimator but onpolicy, and those RMSEs normalised within the
// condition (Normalize).
type Aggregate struct {
	Metric     string                 `json:"metric"`
	Space      string                 `json:"space"`
	Samples    int64                  `json:"samples"`
	Conditions []string               `json:"conditions"`
	Estimators []string               `json:"estimators"`
	RMSE       map[string][]ope.Float `json:"rmse"`       // [estimator][condition]
	Normalized map[string][]ope.Float `json:"normalized"` // [estimator][condition]
}

// aggregate fills the report's aggregates: every metric × space (in the
// grid's order) at every aggregate size.
func (r *Report) aggregate() {
	var est []string
	for _, name := range r.Estimators {
		if name != ope.OnPolicy {
			est = append(est, name)
		}
	}
	type group struct{ metric, space string }
	var groups []group
	members := map[group][]ConditionResult{}
	for _, c := range r.Conditions {
		g := group{c.Metric, c.Space}
		if _, ok := members[g]; !ok {
			groups = append(groups, g)
		}
		members[g] = append(members[g], c)
	}
	for _, n := range r.AggregateAt {
		gi := slices.Index(r.Grid, n)
		for _, g := range groups {
			a := Aggregate{Metric: g.metric, Space: g.space, Samples: n, Estimators: est,
				RMSE: map[string][]ope.Float{}, Normalized: map[string][]ope.Float{}}
			for _, c := range members[g] {
				a.Conditions = append(a.Conditions, c.Name)
				xs := make([]float64, len(est))
				for i, name := range est {
					xs[i] = math.NaN()
					if v := c.RMSE[name]; gi >= 0 && gi < len(v) {
						xs[i] = float64(v[gi])
					}
				}
				for i, x := range Normalize(xs) {
					a.RMSE[est[i]] = append(a.RMSE[est[i]], ope.Float(xs[i]))
					a.Normalized[est[i]] = append(a.Normalized[est[i]], ope.Float(x))
				}
			}
			r.Aggregates = append(r.Aggregates, a)
		}
	}
}
