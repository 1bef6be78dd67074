package trainer

import (
	"fmt"
	"math"
	"runtime"
	"strconv"

	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/trainer/xgboost"
)

// Objectives piopt trains with.
const (
	ObjectiveRegression = "reg:squarederror" // PI-OPT and SUP
	ObjectiveRankNDCG   = "rank:ndcg"        // the LambdaMART anchor
)

// Params are the hyper-parameters of one training run. Trees grow
// loss-guided (best leaf first) up to Leaves leaves with no depth limit, on
// histograms of MaxBin bins (tree_method=hist).
type Params struct {
	Trees        int     // boosting rounds; with early stopping, the most
	Leaves       int     // leaves per tree (max_leaves; max_depth is 0)
	LearningRate float64 // shrinkage of each tree (eta)
	Subsample    float64 // fraction of rows drawn for each tree, in (0, 1]
	MaxBin       int     // histogram bins per feature
	// MinChildWeight is the least weight (hessian) sum of a leaf. Rows
	// weigh 1/(rows of their query) by default, so 1 means about one
	// query's worth of rows.
	MinChildWeight float64
	Lambda         float64 // L2 penalty on leaf values
	Threads        int     // 0: the cores idle when training starts (xgboost.IdleCores); all cores for rank:ndcg
	Seed           int64
	Objective      string // ObjectiveRegression (default) or ObjectiveRankNDCG
	// EvalMetric is the validation metric: rmse for regression (the
	// default), ndcg@K for rank:ndcg (default ndcg@3; a query without
	// relevant docs scores 0). piopt computes it from the predictions, so
	// it does not depend on the thread count.
	EvalMetric string
	// EarlyStopping stops training once the validation metric has not
	// improved for this many rounds, and keeps the trees up to the best
	// round. 0 trains all Trees rounds.
	EarlyStopping int
	// SelectBy chooses the best round (and stops early) by the validation
	// metric (SelectMetric, "" too) or by the estimated value of the
	// model's slates (SelectValue, PI-OPT only: see SlateValue).
	SelectBy string
	// BaseScore is the regression's starting prediction: "mean" (or "",
	// the weighted mean label) or a number (XGBoost's own default is 0.5).
	BaseScore string
	// TrainMetric evaluates the training matrix after every round
	// (Round.Train), for a report; the model does not depend on it.
	// XGBoost's evaluation predicts the whole training matrix, a fifth
	// of an MSLR-size fold on two threads, so it is off by default. A
	// distributed job's workers evaluate together: all of them or none.
	TrainMetric bool
}

// Defaults are practical settings: 300 trees of 70 leaves at learning rate
// 0.1 on 256 bins, which reach the validation loss of 1000 trees within
// noise on MSLR-shaped data at under a third of the cost.
func Defaults() Params {
	return Params{
		Trees: 300, Leaves: 70, LearningRate: 0.1, Subsample: 1, MaxBin: 256,
		MinChildWeight: 1, Lambda: 1, Seed: 1, Objective: ObjectiveRegression,
	}
}

// Presets by name. "paper" is the paper's learner: 1000 trees of up to 70
// leaves; the paper does not state learning rate or subsampling, so it takes
// the common defaults of the GBRT libraries of its time (learning rate 0.1,
// no subsampling).
var presets = map[string]func() Params{
	"default": Defaults,
	"paper": func() Params {
		p := Defaults()
		p.Trees, p.Leaves, p.LearningRate, p.Subsample = 1000, 70, 0.1, 1
		return p
	},
}

// Preset returns the named parameters: "default" or "paper".
func Preset(name string) (Params, error) {
	f, ok := presets[name]
	if !ok {
		return Params{}, fmt.Errorf("unknown preset %q (default or paper)", name)
	}
	return f(), nil
}

// Validate checks p, naming the offending field as its flag.
func (p Params) Validate() error {
	switch {
	case p.Trees < 1:
		return fmt.Errorf("--trees %d: need at least 1", p.Trees)
	case p.Leaves < 2:
		return fmt.Errorf("--leaves %d: need at least 2", p.Leaves)
	case !(p.LearningRate > 0) || math.IsInf(p.LearningRate, 0):
		return fmt.Errorf("--learning-rate %v: must be positive", p.LearningRate)
	case !(p.Subsample > 0 && p.Subsample <= 1):
		return fmt.Errorf("--subsample %v: must be in (0, 1]", p.Subsample)
	case p.MaxBin < 2 || p.MaxBin > 65536:
		return fmt.Errorf("--max-bin %d: must be in 2..65536", p.MaxBin)
	case !(p.MinChildWeight >= 0) || math.IsInf(p.MinChildWeight, 0):
		return fmt.Errorf("--min-child-weight %v: must be ≥ 0", p.MinChildWeight)
	case !(p.Lambda >= 0) || math.IsInf(p.Lambda, 0):
		return fmt.Errorf("--lambda %v: must be ≥ 0", p.Lambda)
	case p.Threads < 0:
		return fmt.Errorf("--threads %d: must be ≥ 0 (0: all cores)", p.Threads)
	case p.EarlyStopping < 0:
		return fmt.Errorf("--early-stopping %d: must be ≥ 0", p.EarlyStopping)
	}
	switch p.SelectBy {
	case "", SelectMetric, SelectValue:
	default:
		return fmt.Errorf("--select-by %q: want %s or %s", p.SelectBy, SelectValue, SelectMetric)
	}
	if p.SelectBy == SelectValue && p.objective() != ObjectiveRegression {
		return fmt.Errorf("--select-by %s is for PI-OPT's regression, not %s", SelectValue, p.objective())
	}
	if _, err := p.parseBaseScore(); err != nil {
		return err
	}
	switch p.objective() {
	case ObjectiveRegression, ObjectiveRankNDCG:
	default:
		return fmt.Errorf("--objective %q: want %s or %s", p.Objective, ObjectiveRegression, ObjectiveRankNDCG)
	}
	if _, err := parseMetric(p.metric(), p.objective()); err != nil {
		return fmt.Errorf("--eval-metric: %w", err)
	}
	return nil
}

func (p Params) objective() string {
	if p.Objective == "" {
		return ObjectiveRegression
	}
	return p.Objective
}

// metric returns the validation metric.
func (p Params) metric() string {
	if p.EvalMetric != "" {
		return p.EvalMetric
	}
	if p.objective() == ObjectiveRankNDCG {
		return "ndcg@3"
	}
	return "rmse"
}

// threads resolves Threads = 0 to the cores idle now (sampled once per
// training: Train sets p.Threads first thing; it costs 18 ms), which a
// regression model does not depend on. A rank:ndcg model does: XGBoost
// 1.7's LambdaRank draws its pairs from one random stream per thread (a
// MQ2008 LambdaMART model trained on 1 thread differs from one trained on
// 2), so it takes every core, as it always has, for the same bytes on a
// busy machine as on an idle one.
func (p Params) threads() int {
	if p.Threads > 0 {
		return p.Threads
	}
	if p.objective() == ObjectiveRankNDCG {
		return runtime.NumCPU()
	}
	return xgboost.IdleCores()
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// xgbParams are the booster parameters of p; baseScore is set for
// regression (the weighted mean label, so the first trees fit structure,
// not the offset).
func (p Params) xgbParams(baseScore float64, evalMetric string) []xgboost.Param {
	ps := []xgboost.Param{
		{Name: "booster", Value: "gbtree"},
		{Name: "objective", Value: p.objective()},
		{Name: "tree_method", Value: "hist"},
		{Name: "grow_policy", Value: "lossguide"},
		{Name: "max_depth", Value: "0"}, // the default 6 would cap trees at 64 leaves
		{Name: "max_leaves", Value: strconv.Itoa(p.Leaves)},
		{Name: "max_bin", Value: strconv.Itoa(p.MaxBin)},
		{Name: "eta", Value: ftoa(p.LearningRate)},
		{Name: "subsample", Value: ftoa(p.Subsample)},
		{Name: "min_child_weight", Value: ftoa(p.MinChildWeight)},
		{Name: "lambda", Value: ftoa(p.Lambda)},
		{Name: "nthread", Value: strconv.Itoa(p.threads())},
		{Name: "seed", Value: strconv.FormatInt(p.Seed, 10)},
		{Name: "eval_metric", Value: evalMetric},
		{Name: "verbosity", Value: "1"}, // warnings only
	}
	if p.objective() == ObjectiveRegression {
		ps = append(ps, xgboost.Param{Name: "base_score", Value: ftoa(baseScore)})
	}
	return ps
}

// parseBaseScore reads BaseScore: NaN for the weighted mean.
func (p Params) parseBaseScore() (v float64, err error) {
	if p.BaseScore == "" || p.BaseScore == "mean" {
		return math.NaN(), nil
	}
	v, err = strconv.ParseFloat(p.BaseScore, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("--base-score %q: want mean or a finite number", p.BaseScore)
	}
	return v, nil
}

// baseScore is the starting prediction of a regression on train.
func (p Params) baseScore(train *features.Matrix) (float64, error) {
	v, err := p.parseBaseScore()
	if err != nil || !math.IsNaN(v) {
		return float64(float32(v)), err
	}
	return weightedMean(train), nil
}

// String describes p as stored in a model's piopt_params attribute.
func (p Params) String() string {
	s := fmt.Sprintf("objective=%s trees=%d leaves=%d learning_rate=%s subsample=%s max_bin=%d min_child_weight=%s lambda=%s seed=%d eval_metric=%s",
		p.objective(), p.Trees, p.Leaves, ftoa(p.LearningRate), ftoa(p.Subsample), p.MaxBin,
		ftoa(p.MinChildWeight), ftoa(p.Lambda), p.Seed, p.metric())
	if p.EarlyStopping > 0 {
		s += fmt.Sprintf(" early_stopping=%d", p.EarlyStopping)
	}
	// The defaults are left out, so models trained before these settings
	// existed keep their bytes.
	if p.SelectBy == SelectValue {
		s += " select_by=" + SelectValue
	}
	if p.BaseScore != "" && p.BaseScore != "mean" {
		s += " base_score=" + p.BaseScore
	}
	return s
}
