package ope

import "context"

// Estimator is one estimator, or a family that shares its statistics (pi
// and wpi, ips and wips, dr and wdr, DM's variants), folded over a log by
// an Evaluator. The Evaluator computes what every estimator needs once per
// sample (Sample: the PI weight, the IPS ratio) and once per log (Summary:
// the contexts' σ², the shared bootstrap replicates), so a new estimator is
// one type with these three methods, given to EvalOptions.Extra.
type Estimator interface {
	// Names are the keys of the estimates it gives, in order; they must
	// not repeat another estimator's.
	Names() []string
	// Add folds in one logged sample. The sample and its slate are only
	// valid during the call.
	Add(s *Sample)
	// Estimate returns one estimate per name, in the order of Names.
	Estimate(ctx context.Context, sum *Summary) ([]*Estimate, error)
}

// Sample is one logged impression as the estimators see it.
type Sample struct {
	Index int64 // its position in the log, from 0
	// InContext is its position among its context's impressions, from 0:
	// unlike Index, the same however the log is split into shards of
	// contexts.
	InContext int64
	Query     int     // its context: a query (or a policy file's context) of the plan
	Slate     []int32 // the logged slate: ℓ_x candidate indices, slot 1 first
	Reward    float64
	// Weight is the PI weight G = q_πᵀΓ†1_s of the logged slate
	// (E_μ[G] = 1).
	Weight float64
	// Ratio is the IPS ratio π(s|x)/μ(s|x), NaN when the target does not
	// know its slate probabilities.
	Ratio float64
}

// Summary is what an Evaluator knows of the whole log when it asks its
// estimators for their estimates.
type Summary struct {
	Plan      *Plan
	Intervals Intervals
	N         int64   // samples
	Counts    []int64 // samples per query
	// Sigma2 is σ² = E_x[q_πᵀΓ†q_π] over the log's contexts: the
	// variance term of Theorem 1 for the PI weights.
	Sigma2 float64
	// Bootstrap is the log's Poisson bootstrap (nil when
	// Intervals.Bootstrap is 0): channel 0 holds the PI weights, channel 1
	// the IPS ratios (0 where unknown). Every estimator resamples the same
	// replicates of the log.
	Bootstrap *Bootstrap
}
