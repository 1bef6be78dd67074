package trainer

import (
	"fmt"
	"math"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/impute"
)

// Selection criteria (Params.SelectBy).
const (
	SelectMetric = "rmse"  // the validation metric on the validation labels (imputed targets for PI-OPT)
	SelectValue  = "value" // the PI estimate of the model's slates' value (SlateValue)
)

// SlateValue estimates, without labels, the value of the slates a PI-OPT
// model under training builds on the validation queries: the PI estimate
// computed from the validation targets φ̂ imputed from a validation log.
//
// For a deterministic slate s* of query x, PI's sum over x's impressions
// is Σ_i 1_{s*}ᵀΓ†1_{s_i}·r_i = n_x·Σ_j φ̄_x(j, s*_j), so the estimate of a
// query's slate value is Σ_j φ̂(x, s*_j, j) read from its targets: no pass
// over the log. The estimate is the mean over the validation queries (the
// quantity a test table reports: the mean metric per query), and its
// interval is the normal one from the spread over queries, which counts
// the sampling of queries as well as the log's noise.
//
// Every query of the targets must have the full grid of its candidates ×
// slots 1..ℓ_x (what impute writes); slates are built from those candidates
// as ranker builds them at test time (greedy, or exact).
type SlateValue struct {
	name   string    // e.g. "pi-ndcg@3"
	exact  bool      // exact slates instead of greedy
	target []float64 // φ̂ per validation row (the matrix's row order)
	block  []int     // query k's rows are [block[k], block[k+1])
	slots  []int     // ℓ_x of query k
	solver *impute.SlateSolver
	w      []float64
	slate  []int32
	values []float64
}

// slateEstimate is the value of one model's slates with its interval.
type slateEstimate struct {
	Value, Lo, Hi float64 // estimate and 95% normal interval
	Queries       int
}

// NewSlateValue prepares the estimate from validation targets t, whose
// rows are the validation matrix's (features.PIOPT(ds, t)). exact builds
// exact slates (ranker's --slate exact) instead of greedy ones.
func NewSlateValue(t *data.Targets, exact bool) (*SlateValue, error) {
	if t == nil || t.Len() == 0 {
		return nil, fmt.Errorf("value selection: no validation targets")
	}
	v := &SlateValue{name: "pi", exact: exact, target: t.Target, solver: new(impute.SlateSolver)}
	if m := t.Header["metric"]; m != "" {
		v.name = "pi-" + m
	}
	n := t.Len()
	for lo := 0; lo < n; {
		hi := lo
		for hi < n && t.Query[hi] == t.Query[lo] {
			hi++
		}
		lx := 0
		for r := lo; r < hi && t.Doc[r] == t.Doc[lo]; r++ {
			lx++
		}
		if lx == 0 || (hi-lo)%lx != 0 {
			return nil, fmt.Errorf("value selection: validation query %d does not have every candidate in slots 1..ℓ", t.Query[lo])
		}
		for r := lo; r < hi; r++ {
			k := r - lo
			if int(t.Slot[r]) != k%lx+1 || t.Doc[r] != t.Doc[lo+k/lx*lx] {
				return nil, fmt.Errorf("value selection: validation query %d does not have every candidate in slots 1..%d (targets row %d)", t.Query[lo], lx, r+1)
			}
		}
		v.block = append(v.block, lo)
		v.slots = append(v.slots, lx)
		lo = hi
	}
	v.block = append(v.block, n)
	v.values = make([]float64, len(v.slots))
	return v, nil
}

// estimate returns the estimated value of the slates built from pred, the
// predictions of the validation rows.
func (v *SlateValue) estimate(pred []float32) slateEstimate {
	for k, lx := range v.slots {
		lo, hi := v.block[k], v.block[k+1]
		m := (hi - lo) / lx
		if cap(v.w) < lx*m {
			v.w = make([]float64, lx*m)
		}
		if cap(v.slate) < lx {
			v.slate = make([]int32, lx)
		}
		w, slate := v.w[:lx*m], v.slate[:lx]
		for a := range m {
			for j := range lx {
				w[j*m+a] = float64(pred[lo+a*lx+j])
			}
		}
		if v.exact {
			v.solver.Exact(w, m, slate)
		} else {
			v.solver.Greedy(w, m, slate)
		}
		val := 0.0
		for j, a := range slate {
			val += v.target[lo+int(a)*lx+j]
		}
		v.values[k] = val
	}
	return normalInterval(v.values)
}

// z95 is the standard normal's 97.5% quantile.
const z95 = 1.959963984540054

// normalInterval is the mean of xs with its 95% normal interval.
func normalInterval(xs []float64) slateEstimate {
	n := float64(len(xs))
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / n
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	half := math.NaN()
	if len(xs) > 1 {
		half = z95 * math.Sqrt(ss/(n-1)/n)
	}
	return slateEstimate{Value: mean, Lo: mean - half, Hi: mean + half, Queries: len(xs)}
}
