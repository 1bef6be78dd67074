package ope

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/piopt/piopt/internal/xsum"
)

// onPolicyEstimator gives onpolicy: the target's true value V(x, s*(x))
// averaged over the log's contexts, known in semi-synthetic mode (a
// deterministic target and the dataset's labels). It estimates nothing; it
// is what the estimators are compared with on the same contexts.
type onPolicyEstimator struct {
	plan    *Plan
	value   xsum.Sum // Σ_i V(x_i, s*)
	missing string   // why there is no true value (Plan.onPolicyMissing; set by a merge)
}

func (e *onPolicyEstimator) Names() []string { return []string{OnPolicy} }

func (e *onPolicyEstimator) Add(s *Sample) { e.value.Add(e.plan.queries[s.Query].value) }

func (e *onPolicyEstimator) Estimate(_ context.Context, sum *Summary) ([]*Estimate, error) {
	p := e.plan
	o := &Estimate{Value: Float(math.NaN()), N: sum.N}
	if math.IsNaN(p.TrueValue) {
		if e.missing == "" {
			e.missing = p.onPolicyMissing()
		}
		o.Warnings = []string{e.missing}
	} else if sum.N > 0 {
		o.Value = Float(e.value.Float64() / float64(max(sum.N, 1)))
	}
	return []*Estimate{o}, nil
}

// onPolicyMissing says what OnPolicy lacks when the plan has no true value:
// a deterministic target, or a Scorer, which the CLI builds from the log
// header's metric= (or --metric), so a log without it is named as the cause.
func (p *Plan) onPolicyMissing() string {
	var lacks []string
	if !p.Target.Deterministic() {
		lacks = append(lacks, fmt.Sprintf("a deterministic target (%s is stochastic)", p.Target.Name()))
	}
	if p.Scorer == nil {
		lacks = append(lacks, "the reward metric, which the log's header does not give (no metric=; give --metric ndcg or err)")
	}
	if len(lacks) == 0 {
		return "OnPolicy needs a deterministic target and the dataset's labels"
	}
	return "OnPolicy needs " + strings.Join(lacks, " and ")
}
