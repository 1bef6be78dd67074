package trainer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/internal/atomicfile"
	"github.com/piopt/piopt/trainer/xgboost"
)

// Attribute keys a trained model carries besides features.Meta's. best_iteration
// and best_score are the names XGBoost's own Python package reads.
const (
	attrParams        = "piopt_params"   // Params.String() of the run
	attrRounds        = "piopt_rounds"   // rounds trained before truncation
	attrBestIteration = "best_iteration" // 0-based last round kept (the best one with early stopping)
	attrBestScore     = "best_score"     // validation metric at that round, if validated
)

// Round reports one boosting round to the progress function.
type Round struct {
	Iter   int     // 0-based round just trained
	trees  int     // rounds planned (Params.Trees)
	Metric string  // e.g. "rmse", "ndcg@3"
	Train  float64 // metric on the training matrix with Params.TrainMetric; NaN without
	Valid  float64 // metric on the validation matrix (or the slates' estimated value); NaN without one
	// ValidMetric names what Valid measures: Metric, or the estimated
	// value's name (e.g. "pi-ndcg@3") when selecting by value.
	ValidMetric string
	// ValidLo and ValidHi are the 95% interval of an estimated value
	// (selecting by value); NaN otherwise.
	ValidLo, ValidHi float64
	Best             int     // best validation round so far (-1 without one)
	BestValid        float64 // its metric
	elapsed          time.Duration
}

// Timing splits the wall time of Train.
type Timing struct {
	Matrix time.Duration // handing the matrices to XGBoost (quantile sketch and bins included)
	Boost  time.Duration // the boosting rounds and their evaluation
}

// Model is a trained booster with piopt's metadata.
type Model struct {
	Meta    features.Meta
	params  Params // as trained (zero when loaded from a file)
	Rounds  int    // rounds in the model (after truncation to the best)
	Trained int    // rounds trained (before truncation)
	// BestIteration is the 0-based best validation round (Rounds-1 without
	// validation, or with early stopping); BestScore its validation metric
	// (NaN without validation). A loaded model has the file's
	// best_iteration and best_score: its last round's.
	BestIteration int
	BestScore     float64
	Metric        string
	History       []Round // one per round trained
	Timing        Timing
	booster       *xgboost.Booster
}

func checkMatrix(name string, m *features.Matrix) error {
	d := dense(m)
	if err := d.Validate(); err != nil {
		return fmt.Errorf("%s matrix: %w", name, err)
	}
	if m.Labels == nil {
		return fmt.Errorf("%s matrix has no labels", name)
	}
	for i, v := range m.Labels {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("%s matrix: label %v in row %d", name, v, i)
		}
	}
	for i, w := range m.Weights {
		if !(w >= 0) || math.IsInf(float64(w), 0) {
			return fmt.Errorf("%s matrix: weight %v in row %d", name, w, i)
		}
	}
	return nil
}

// errZeroWeights: a training matrix whose rows all weigh 0 gives XGBoost
// nothing to fit (every gradient is 0) and yields a constant model without
// a word. Targets' weights are float64 and the matrix's float32, so weights
// below float32's smallest (about 1e-45) become 0 on the way.
var errZeroWeights = errors.New("training matrix: every row's weight is 0 (in float32, below about 1e-45 counts as 0): nothing to fit")

// allZero reports whether w has elements and all are 0.
func allZero(w []float32) bool {
	for _, v := range w {
		if v != 0 {
			return false
		}
	}
	return len(w) > 0
}

// weightedMean is the mean label, weighted as the objective weighs rows.
func weightedMean(m *features.Matrix) float64 {
	s, w := weightedSums(m)
	return meanOf(s, w)
}

// weightedSums are the sums of weight × label and of weights.
func weightedSums(m *features.Matrix) (s, w float64) {
	for i, y := range m.Labels {
		wi := 1.0
		if m.Weights != nil {
			wi = float64(m.Weights[i])
		}
		s += wi * float64(y)
		w += wi
	}
	return s, w
}

// meanOf is s/w rounded to float32 (0 when w is 0).
func meanOf(s, w float64) float64 {
	if w == 0 {
		return 0
	}
	// Round to float32, as XGBoost stores it, so the value survives a
	// save and reload unchanged.
	return float64(float32(s / w))
}

// Train fits p.Trees rounds (fewer with early stopping) of trees to train,
// evaluating p's metric on train and, if not nil, on valid after each round
// and calling progress (if not nil) with the result. With early stopping the
// model keeps the trees up to the best validation round. The model carries
// train.Meta. ctx cancels between rounds.
//
// Train reads the training rows only while it hands them to XGBoost, batch
// by batch (a matrix made on demand, as features.PIOPT makes, is never
// stored whole); a caller that drops its own references before calling lets
// the collector have them once XGBoost has its copy. The validation rows are
// read in place after every round, never copied.
func Train(ctx context.Context, train, valid *features.Matrix, p Params, progress func(Round)) (*Model, error) {
	return TrainSelect(ctx, train, valid, nil, p, progress)
}

// TrainSelect is Train choosing the best round (and stopping early) by
// value when p.SelectBy is SelectValue: the estimated value of the slates
// the model builds on the validation queries (value, made from the targets
// of valid's rows), never by labels. The model's Metric is value.Name().
func TrainSelect(ctx context.Context, train, valid *features.Matrix, value *SlateValue, p Params, progress func(Round)) (*Model, error) {
	return TrainJob(ctx, nil, train, valid, value, p, progress)
}

// TrainJob is TrainSelect as one worker of a distributed job (job nil:
// alone). train is this worker's share of the training rows; only the
// job's Root passes valid (and value), and every worker passes the same
// p. Every worker returns the same model: XGBoost sums the gradient
// histograms of all workers each round, and Root's validation decides the
// best round and early stopping for all (see Job).
func TrainJob(ctx context.Context, job *Job, train, valid *features.Matrix, value *SlateValue, p Params, progress func(Round)) (*Model, error) {
	return trainJob(ctx, nil, job, train, valid, value, p, progress)
}

// trainJob is TrainJob building its training matrix through cache (nil:
// a matrix of its own).
func trainJob(ctx context.Context, cache *MatrixCache, job *Job, train, valid *features.Matrix, value *SlateValue, p Params, progress func(Round)) (*Model, error) {
	if err := checkJobInputs(job, train, valid, value, p); err != nil {
		return nil, err
	}
	p.Threads = p.threads()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	met, err := parseMetric(p.metric(), p.objective())
	if err != nil {
		return nil, err
	}
	val, maximize, err := selection(met, value, valid, p.Threads)
	if err != nil {
		return nil, err
	}
	vr := job.validator(val, p.SelectBy == SelectValue)
	maximize = maximize || (job.remote() && p.SelectBy == SelectValue)

	start := time.Now()
	dtrain, release, err := cache.matrix(train, p, job.comm())
	if err != nil {
		return nil, err
	}
	defer release()
	m := &Model{Meta: train.Meta, params: p, Metric: met.name, BestIteration: -1, BestScore: math.NaN()}
	if value != nil {
		m.Metric = value.name
	}
	baseScore, err := job.baseScore(p, train)
	if err != nil {
		return nil, err
	}
	bst, err := job.newBooster(p.xgbParams(baseScore, met.xgboostName()), dtrain)
	if err != nil {
		return nil, err
	}
	closeBooster := true
	defer func() {
		if closeBooster {
			bst.Close()
		}
	}()
	m.Timing.Matrix = time.Since(start)

	start = time.Now()
	if err := m.boost(ctx, bst, dtrain, vr, p.SelectBy == SelectValue, maximize, start, progress); err != nil {
		return nil, err
	}
	m.Trained = len(m.History)
	m.Rounds = m.Trained
	if p.EarlyStopping > 0 && m.BestIteration+1 < m.Trained {
		// Keep the best trees only, so every reader of the file (leaves
		// included) predicts with the best model.
		s, err := bst.Slice(0, m.BestIteration+1)
		if err != nil {
			return nil, err
		}
		bst.Close()
		bst = s
		m.Rounds = m.BestIteration + 1
	}
	if vr == nil {
		m.BestIteration = m.Rounds - 1
	}
	m.Timing.Boost = time.Since(start)
	m.booster = bst
	if err := m.setAttrs(); err != nil {
		return nil, err
	}
	closeBooster = false
	return m, nil
}

// checkJobInputs refuses what TrainJob cannot train on: bad matrices and
// parameters (checkInputs), weights that are all 0, and a selection by
// value without validation targets (or targets without it).
func checkJobInputs(job *Job, train, valid *features.Matrix, value *SlateValue, p Params) error {
	if err := checkInputs(train, valid, p, job.validated(valid)); err != nil {
		return err
	}
	if job == nil && allZero(train.Weights) {
		// A worker's share may weigh nothing while the job's rows do.
		return errZeroWeights
	}
	if (p.SelectBy == SelectValue) != (value != nil || (job.remote() && p.SelectBy == SelectValue)) {
		return fmt.Errorf("--select-by %s: needs validation targets to estimate slate values from, and only then", SelectValue)
	}
	return nil
}

// selection sets up the per-round validation of valid (nil: none) and
// says whether its criterion is maximised: a slate value always is.
func selection(met metric, value *SlateValue, valid *features.Matrix, threads int) (*validation, bool, error) {
	if valid == nil {
		return nil, met.maximize(), nil
	}
	val, err := newValidation(met, value, valid, threads)
	if err != nil {
		return nil, false, fmt.Errorf("validation matrix: %w", err)
	}
	return val, met.maximize() || value != nil, nil
}

// quantileMatrix hands the training rows to XGBoost as a quantile matrix,
// the leanest and fastest to train on (see trainer/xgboost's benchmarks).
func quantileMatrix(train *features.Matrix, p Params, comm *xgboost.Communicator) (*xgboost.DMatrix, error) {
	opt := xgboost.MatrixOptions{Build: xgboost.BuildQuantile, Threads: p.Threads, MaxBin: p.MaxBin, Comm: comm}
	d, err := newDMatrix(dense(train), opt)
	if err != nil {
		return nil, fmt.Errorf("training matrix: %w", err)
	}
	return d, nil
}

// newDMatrix is xgboost.NewDMatrix for every fit of this package. Before a
// large matrix it collects the garbage of earlier stages (simulated logs, a
// previous fold, the direct method's estimation) and returns it to the
// system: the process peaks while XGBoost builds the matrix, and the Go
// heap would otherwise be allowed to grow by GOGC over what is live. It
// costs milliseconds: the large live objects (features, labels) hold no
// pointers.
func newDMatrix(d xgboost.Dense, opt xgboost.MatrixOptions) (*xgboost.DMatrix, error) {
	if d.Rows*d.Cols >= smallFit {
		debug.FreeOSMemory()
	}
	return xgboost.NewDMatrix(d, opt)
}

// checkInputs refuses parameters and matrices Train cannot use together.
func checkInputs(train, valid *features.Matrix, p Params, validated bool) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if !xgboost.Available {
		return xgboost.ErrNoCgo
	}
	if train == nil {
		return fmt.Errorf("no training matrix")
	}
	if err := checkMatrix("training", train); err != nil {
		return err
	}
	if valid != nil {
		if err := checkMatrix("validation", valid); err != nil {
			return err
		}
		if valid.Cols != train.Cols {
			return fmt.Errorf("validation matrix has %d columns, training matrix %d", valid.Cols, train.Cols)
		}
		if valid.Meta.Kind != train.Meta.Kind || valid.Meta.Slots != train.Meta.Slots {
			return fmt.Errorf("validation matrix is for a %s model with %d slots, training matrix for %s with %d",
				valid.Meta.Kind, valid.Meta.Slots, train.Meta.Kind, train.Meta.Slots)
		}
	} else if p.EarlyStopping > 0 && !validated {
		return fmt.Errorf("--early-stopping needs a validation set")
	}
	rank := p.objective() == ObjectiveRankNDCG
	if rank != (train.Groups != nil) || (valid != nil && rank != (valid.Groups != nil)) {
		return fmt.Errorf("objective %s with matrices that %s query groups", p.objective(),
			map[bool]string{true: "have", false: "lack"}[train.Groups != nil])
	}
	return nil
}

// boost runs the boosting rounds, recording each in m.History and the best
// validation round in m.BestIteration and m.BestScore, until p.Trees rounds
// or early stopping. start times Round.elapsed.
func (m *Model) boost(ctx context.Context, bst *xgboost.Booster, dtrain *xgboost.DMatrix, val validator,
	byValue, maximize bool, start time.Time, progress func(Round)) error {
	p := m.params
	better := func(a, b float64) bool { return a < b }
	if maximize {
		better = func(a, b float64) bool { return a > b }
	}
	trainSet := xgboost.EvalSet{Name: "train", Matrix: dtrain}
	// Selecting by value, the first trees may only fit the targets'
	// per-slot offsets, which leave every slate as it was; patience
	// starts once some round has changed the estimate.
	moved := val == nil || !byValue
	for it := range p.Trees {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := bst.Update(it, dtrain); err != nil {
			return fmt.Errorf("round %d: %w", it+1, err)
		}
		// The training value is for display: XGBoost's is close
		// enough. The validation value decides, so piopt computes it
		// exactly from predictions equal to XGBoost's.
		train := math.NaN()
		if p.TrainMetric {
			res, err := bst.Eval(it, trainSet)
			if err != nil {
				return fmt.Errorf("round %d: %w", it+1, err)
			}
			train = res[0].Value
		}
		r := Round{Iter: it, trees: p.Trees, Metric: p.metric(), ValidMetric: m.Metric, Train: train, Valid: math.NaN(),
			ValidLo: math.NaN(), ValidHi: math.NaN(), Best: -1, BestValid: math.NaN()}
		if val != nil {
			var err error
			if r.Valid, r.ValidLo, r.ValidHi, err = val.round(ctx, bst, it); err != nil {
				return fmt.Errorf("round %d: %w", it+1, err)
			}
			moved = moved || (m.BestIteration >= 0 && r.Valid != m.History[0].Valid)
			if m.BestIteration < 0 || better(r.Valid, m.BestScore) {
				m.BestIteration, m.BestScore = it, r.Valid
			}
			r.Best, r.BestValid = m.BestIteration, m.BestScore
		}
		r.elapsed = time.Since(start)
		m.History = append(m.History, r)
		if progress != nil {
			progress(r)
		}
		if p.EarlyStopping > 0 && moved && it-m.BestIteration >= p.EarlyStopping {
			return nil
		}
	}
	return nil
}

// dense describes m to XGBoost: its stored rows, or Fill for rows made on
// demand.
func dense(m *features.Matrix) xgboost.Dense {
	d := xgboost.Dense{Data: m.X, Rows: m.Rows, Cols: m.Cols, Labels: m.Labels, Weights: m.Weights, Groups: m.Groups}
	if m.X == nil {
		d.Fill = m.Fill
	}
	return d
}

func (m *Model) setAttrs() error {
	attrs := m.Meta.Attrs()
	attrs[attrParams] = m.params.String()
	attrs[attrRounds] = strconv.Itoa(m.Trained)
	// XGBoost's tools predict with the trees up to best_iteration: make it
	// the last round kept, so they agree with leaves, which uses them all.
	last := m.History[m.Rounds-1]
	attrs[attrBestIteration] = strconv.Itoa(last.Iter)
	if !math.IsNaN(last.Valid) {
		attrs[attrBestScore] = ftoa(last.Valid)
	}
	for k, v := range attrs {
		if err := m.booster.SetAttr(k, v); err != nil {
			return err
		}
	}
	return nil
}

// Close frees the booster.
func (m *Model) Close() error {
	if m == nil {
		return nil
	}
	return m.booster.Close()
}

// Predict scores the rows of x with the model.
func (m *Model) Predict(x *features.Matrix) ([]float32, error) {
	if x.Cols != m.Meta.Columns() {
		return nil, fmt.Errorf("model expects %d columns (%d features + %d slots), matrix has %d",
			m.Meta.Columns(), m.Meta.Features, m.Meta.Slots, x.Cols)
	}
	if x.X != nil {
		return m.booster.PredictDense(x.X, x.Rows, x.Cols, xgboost.PredictOptions{})
	}
	const batch = 1 << 16
	pred := make([]float32, 0, x.Rows)
	buf := make([]float32, min(batch, x.Rows)*x.Cols)
	for lo := 0; lo < x.Rows; lo += batch {
		hi := min(lo+batch, x.Rows)
		x.Fill(buf, lo, hi)
		p, err := m.booster.PredictDense(buf[:(hi-lo)*x.Cols], hi-lo, x.Cols, xgboost.PredictOptions{})
		if err != nil {
			return nil, err
		}
		pred = append(pred, p...)
	}
	return pred, nil
}

// formatFor returns the format `piopt train` writes to path: XGBoost's JSON
// for a .json name, else XGBoost's legacy binary, the format leaves reads.
func formatFor(path string) xgboost.Format {
	if strings.EqualFold(filepath.Ext(path), ".json") {
		return xgboost.FormatJSON
	}
	return xgboost.FormatBinary
}

// bytes serialises the model in format f.
func (m *Model) bytes(f xgboost.Format) ([]byte, error) { return m.booster.Save(f) }

// Save writes the model to path atomically, in formatFor(path).
func (m *Model) Save(path string) error {
	b, err := m.bytes(formatFor(path))
	if err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, b)
}

// Load reads a model written by Save (or any XGBoost model carrying piopt's
// attributes) and its metadata.
func Load(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	bst, err := xgboost.LoadBooster(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	attrs, err := bst.Attrs()
	if err == nil {
		var m *Model
		if m, err = fromAttrs(attrs); err == nil {
			m.booster = bst
			if m.Rounds, err = bst.Rounds(); err == nil {
				return m, nil
			}
		}
	}
	bst.Close()
	return nil, fmt.Errorf("%s: %w", path, err)
}

func fromAttrs(a map[string]string) (*Model, error) {
	meta, err := features.MetaFromAttrs(a)
	if err != nil {
		return nil, err
	}
	m := &Model{Meta: meta, BestScore: math.NaN(), BestIteration: -1}
	if v, ok := a[attrBestIteration]; ok {
		if m.BestIteration, err = strconv.Atoi(v); err != nil {
			return nil, fmt.Errorf("model attribute %s = %q", attrBestIteration, v)
		}
	}
	if v, ok := a[attrBestScore]; ok {
		if m.BestScore, err = strconv.ParseFloat(v, 64); err != nil {
			return nil, fmt.Errorf("model attribute %s = %q", attrBestScore, v)
		}
	}
	if v, ok := a[attrRounds]; ok {
		m.Trained, _ = strconv.Atoi(v)
	}
	for _, f := range strings.Fields(a[attrParams]) {
		if k, v, ok := strings.Cut(f, "="); ok && k == "eval_metric" {
			m.Metric = v
		}
	}
	return m, nil
}
