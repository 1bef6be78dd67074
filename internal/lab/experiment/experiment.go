package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/piopt/piopt/internal/provenance"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/atomicfile"
	"github.com/piopt/piopt/internal/pipeline"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/internal/progress"
	"github.com/piopt/piopt/ranker"
	"github.com/piopt/piopt/trainer"
)

// Policy names in results, as in the paper's Table 1; uniformly random
// slates are pipeline.PolicyRandom.
const (
	PIOPT      = "pi-opt"
	SUP        = "sup"
	LambdaMART = "lambdamart"
)

// Fold is one LETOR fold: its files and its number (1-based).
type Fold struct {
	Number            int
	Train, Vali, Test string
}

// Config is one experiment.
type Config struct {
	Folds   []Fold
	Out     string         // output folder
	Slots   int            // ℓ
	Samples int64          // logged impressions per fold and metric
	Metrics []eval.Kind    // rewards to optimise (and report)
	Seed    uint64         // seeds simulation, training and random slates
	Logging impute.Logging // logging policy of the simulated logs (uniform in the paper)
	// Curve, with two sizes or more (ascending, distinct), runs the
	// sample-efficiency curve: every fold at each size in turn, as Samples
	// (samples.go); Samples is then unused.
	Curve []int64
	// RankBy, when not "", is the rank source of a production-like logger
	// (Logging pl:T over its scores; tree: and lasso: fitted on each fold's
	// training file): the experiment then also reports the logger's own
	// deterministic ranking and PI-OPT's gain over it (logger.go).
	RankBy string
	// CandidatesBy, when not "", is the rank source choosing the simulated
	// logs' candidates (policy.Setup.CandidatesBy); it needs a candidate
	// limit, which the experiment does not set yet.
	CandidatesBy string
	// ValidSamples is the number of impressions simulated on the validation
	// fold for PI-OPT's early stopping; 0 scales Samples by the folds'
	// query counts. Used only when Params.EarlyStopping > 0.
	ValidSamples int64
	PerSample    bool // weigh PI-OPT rows by impressions instead of 1 per query
	Params       trainer.Params
	// SelectBy and BaseScore are PI-OPT's trainer.Params.SelectBy and
	// BaseScore (SUP and LambdaMART keep Params'): by default ("") PI-OPT
	// selects its round by Params' validation metric from the weighted mean.
	SelectBy, BaseScore string
	// LearningRate, when > 0, is PI-OPT's shrinkage in place of
	// Params.LearningRate (SUP and LambdaMART keep Params').
	LearningRate float64
	LambdaMART   bool // also train XGBoost rank:ndcg on the labels
	SupTarget    features.SupTarget
	Slate        ranker.SlateMethod
	Conventions  eval.Conventions // MaxRel 0: the highest grade of the data
	Read         data.ReadOptions
	// Log receives one line per finished stage; nil is silent.
	Log io.Writer
	// Notices receives the lines that say a run does other than asked:
	// a resume file whose seal does not match, recomputed. nil: Log.
	Notices io.Writer
	// Progress receives progress bars (shown only on a terminal).
	Progress io.Writer
	// TargetsKind is PI-OPT's targets: pipeline.TargetsDR for doubly-robust
	// ones (φ̄ cross-fitted over the fold's queries, targets.go); "" or
	// pipeline.TargetsPI for PI targets.
	TargetsKind string
	// CurveKinds, with two kinds or more (e.g. pi and dr), runs the curve
	// (at the Curve's sizes, or at Samples alone) once per kind of targets,
	// every kind a point of its own at each size; TargetsKind is then
	// unused.
	CurveKinds []string
	// Grid, when not empty, trains PI-OPT at every point of the grid and
	// keeps the point whose selected round has the best estimated value on
	// the validation log (grid.go); it needs SelectBy value.
	Grid Grid
	// Command, PioptVersion and XGBoostVersion are recorded in the
	// summary's provenance (Versions gives the versions), with the fold
	// files and their hashes.
	Command, PioptVersion, XGBoostVersion string
}

// FoldResult holds one fold's test-set means: metric name → policy → value.
type FoldResult struct {
	Fold    int                           `json:"fold"`
	Values  map[string]map[string]float64 `json:"values"`
	Stderr  map[string]float64            `json:"random_stderr"`             // 0: random ERR is exact (once a Monte Carlo error)
	Greedy  *pipeline.SlateComparison     `json:"greedy_vs_exact,omitempty"` // first PI-OPT model
	Seconds map[string]float64            `json:"seconds"`                   // wall time per stage run (0: reused)
	// Selection records, per PI-OPT model selected by value, the estimate
	// of every round and the round kept.
	Selection map[string]*Selection `json:"selection,omitempty"`
	// Grid holds, per metric name, PI-OPT's grid (Config.Grid).
	Grid map[string]*GridResult `json:"grid,omitempty"`
	// Estimates holds, per metric name, the label-free PI estimates of
	// PI-OPT's and the logger's slates from a fresh log of the logger on
	// the test fold (Config.RankBy).
	Estimates map[string]map[string]float64 `json:"estimates,omitempty"`
}

// Summary is the experiment's result.
type Summary struct {
	Config      map[string]any
	Conventions ranker.ConventionsJSON
	Metrics     []string // "ndcg@3", ...
	Policies    []string
	Folds       []FoldResult
	Mean, Std   map[string]map[string]float64
	// Notes are printed under the table (WriteTable), not in summary.json.
	Notes []string
	// Provenance is the command, the versions and the inputs.
	Provenance provenance.Record
	// Run is the run record: run.json, not summary.json.
	Run *RunRecord
	// Curve, when not empty, is the sample-efficiency curve (Config.Curve),
	// which summary.json then holds in place of folds, mean and std.
	Curve []*CurvePoint
	// Logger is PI-OPT's gain over the logger's ranking (Config.RankBy).
	Logger *LoggerGain
}

// MarshalJSON writes summary.json: {"conventions": {...}, "config": {...},
// "folds": [{"fold": 1, "ndcg@3": {"pi-opt": .., ...}, ...}], "mean": {...},
// "provenance": {...}, "std": {...}}: nothing in it varies between runs of
// the same command on the same inputs (that is in Run).
func (s *Summary) MarshalJSON() ([]byte, error) {
	if len(s.Curve) > 0 {
		return s.curveJSON()
	}
	m := map[string]any{
		"conventions": s.Conventions,
		"config":      s.Config,
		"folds":       foldsJSON(s.Folds),
		"mean":        s.Mean,
		"provenance":  s.Provenance,
		"std":         s.Std,
	}
	if s.Logger != nil {
		m["logger"] = s.Logger // only with a logger, so that other summaries keep their bytes
	}
	return json.Marshal(m)
}

// foldsJSON is summary.json's "folds": per fold its number, every metric's
// values by policy, and the selection and grid records when there are any.
func foldsJSON(fs []FoldResult) []map[string]any {
	folds := make([]map[string]any, len(fs))
	for i, f := range fs {
		m := map[string]any{"fold": f.Fold}
		for k, v := range f.Values {
			m[k] = v
		}
		if len(f.Selection) > 0 {
			m["selection"] = f.Selection
		}
		if len(f.Grid) > 0 {
			m["grid"] = f.Grid
		}
		if len(f.Estimates) > 0 {
			m["estimates"] = f.Estimates
		}
		folds[i] = m
	}
	return folds
}

// Run runs the experiment; with a Curve of several sizes or several
// CurveKinds, the sample-efficiency curve (runCurve).
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	if len(cfg.Curve) > 1 || len(cfg.CurveKinds) > 1 {
		return runCurve(ctx, cfg)
	}
	r, s, err := begin(ctx, cfg)
	if err != nil {
		return nil, err
	}
	for _, f := range cfg.Folds {
		res, err := r.fold(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("fold %d: %w", f.Number, err)
		}
		s.Folds = append(s.Folds, *res)
		s.Run.addFold(res, r.reused)
	}
	s.summarize()
	s.Logger = r.loggerGain(s.Folds)
	s.Run.Seconds["total"] = time.Since(r.start).Seconds()
	return s, nil
}

// begin checks cfg, hashes the inputs, settles maxrel and returns the
// runner with the summary's fold-independent parts: what every run does
// before its first fold.
func begin(ctx context.Context, cfg Config) (*runner, *Summary, error) {
	if cfg.Slots < 1 {
		return nil, nil, fmt.Errorf("experiment: slots %d < 1", cfg.Slots)
	}
	if cfg.Samples < 1 {
		return nil, nil, fmt.Errorf("experiment: samples %d < 1", cfg.Samples)
	}
	if cfg.ValidSamples < 0 {
		return nil, nil, fmt.Errorf("experiment: valid samples %d < 0", cfg.ValidSamples)
	}
	if len(cfg.Metrics) == 0 {
		cfg.Metrics = []eval.Kind{eval.KindNDCG, eval.KindERR}
	}
	if err := cfg.Params.Validate(); err != nil {
		return nil, nil, err
	}
	if err := cfg.CheckGrid(); err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, nil, err
	}
	start := time.Now()
	r := &runner{cfg: cfg, ids: inputIDs{}, start: start}
	// Every input is hashed first, once: the hashes key every stage.
	t := time.Now()
	prov, err := r.provenance()
	if err != nil {
		return nil, nil, err
	}
	hashSeconds := time.Since(t).Seconds()
	if err := r.settleMaxRel(ctx); err != nil {
		return nil, nil, err
	}
	s := &Summary{
		Config:      r.configJSON(),
		Conventions: ranker.NewConventionsJSON(r.cfg.Conventions),
		Policies:    r.policies(),
		Notes:       r.notes(),
		Run:         newRunRecord(start),
	}
	for _, k := range cfg.Metrics {
		s.Metrics = append(s.Metrics, r.metric(k).Name())
	}
	s.Provenance = prov
	s.Run.Seconds["hash inputs"] = hashSeconds
	return r, s, nil
}

// summarize sets the means and standard deviations across folds.
func (s *Summary) summarize() {
	s.Mean, s.Std = map[string]map[string]float64{}, map[string]map[string]float64{}
	for _, m := range s.Metrics {
		s.Mean[m], s.Std[m] = map[string]float64{}, map[string]float64{}
		for _, p := range s.Policies {
			xs := make([]float64, len(s.Folds))
			for i, f := range s.Folds {
				xs[i] = f.Values[m][p]
			}
			s.Mean[m][p], s.Std[m][p] = eval.MeanStd(xs)
		}
	}
}

type runner struct {
	cfg    Config
	loaded map[string]*data.Dataset
	ids    inputIDs // the inputs' content hashes, once per run
	reused bool     // the last fold's results were read back (fold)
	start  time.Time
	// rank are the logger's rank-source options in the current fold
	// (Config.RankBy): fitted on its training file, shared by its stages.
	rank policy.Options
}

func (r *runner) policies() []string {
	p := []string{PIOPT, SUP, pipeline.PolicyRandom}
	if r.cfg.LambdaMART {
		p = append(p, LambdaMART)
	}
	if r.cfg.RankBy != "" {
		p = append(p, Logger)
	}
	return p
}

func (r *runner) metric(k eval.Kind) eval.Metric {
	return eval.Metric{Kind: k, K: r.cfg.Slots, Conventions: r.cfg.Conventions}
}

func (r *runner) configJSON() map[string]any {
	c := r.cfg
	folds := make([]int, len(c.Folds))
	for i, f := range c.Folds {
		folds[i] = f.Number
	}
	m := map[string]any{
		"folds":      folds,
		"slots":      c.Slots,
		"samples":    c.Samples,
		"seed":       c.Seed,
		"logging":    c.Logging.String(),
		"per_sample": c.PerSample,
		"params":     c.Params.String(),
		"sup_target": c.SupTarget.String(),
		"slate":      c.Slate.String(),
		"lambdamart": c.LambdaMART,
	}
	if c.pioptOwn() {
		m["pi_opt_params"] = c.pioptParams().String() // only then, as in the result keys
	}
	if g := c.Grid.String(); g != "" {
		m["grid"] = g // only with a grid, so that other summaries keep their bytes
	}
	if c.RankBy != "" {
		m["rank_by"] = c.RankBy // likewise only with a logger
	}
	if c.dr() {
		m["targets_kind"] = c.TargetsKind // likewise only for dr
	}
	return m
}

// noticef writes a notice line to Notices (Log when nil).
func (r *runner) noticef(format string, args ...any) {
	w := r.cfg.Notices
	if w == nil {
		w = r.cfg.Log
	}
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

func (r *runner) logf(format string, args ...any) {
	if r.cfg.Log != nil {
		fmt.Fprintf(r.cfg.Log, format+"\n", args...)
	}
}

// load returns the dataset at path, loading it unless it is kept.
func (r *runner) load(ctx context.Context, path string) (*data.Dataset, error) {
	if ds, ok := r.loaded[path]; ok {
		return ds, nil
	}
	ds, err := data.LoadContext(ctx, path, r.cfg.Read)
	if err != nil {
		return nil, err
	}
	if r.loaded == nil {
		r.loaded = map[string]*data.Dataset{}
	}
	r.loaded[path] = ds
	return ds, nil
}

// keepOnly drops every loaded dataset but those at paths, so that only the
// current fold's files stay in memory, and hands their memory back to the
// system before the next fold loads its own: the Go heap would otherwise let
// a fold's datasets (650 MB at MSLR-WEB10K size) linger as garbage beside
// the next one's. The collection costs milliseconds: datasets hold no
// pointers.
func (r *runner) keepOnly(paths ...string) {
	dropped := false
	for p := range r.loaded {
		if !slices.Contains(paths, p) {
			delete(r.loaded, p)
			dropped = true
		}
	}
	if dropped {
		debug.FreeOSMemory()
	}
}

// readKey is the part of the cache keys that says how files are read.
func (r *runner) readKey() string {
	return key("read", r.cfg.Read.Features, r.cfg.Read.MaxLabel)
}

// settleMaxRel fixes one maxrel for the whole experiment (docs/design.md): the
// highest grade of every train and test file unless given, and a given one
// must not be below it (ERR would exceed 1), which is checked before any
// stage runs.
func (r *runner) settleMaxRel(ctx context.Context) error {
	// The first fold's files stay loaded for the fold that runs first.
	var first Fold
	if len(r.cfg.Folds) > 0 {
		first = r.cfg.Folds[0]
	}
	highest, err := DatasetMaxRel(ctx, r.cfg.Folds, func(p string) (int, error) {
		return r.maxLabel(ctx, p, p == first.Train || p == first.Test)
	})
	if err != nil {
		return err
	}
	if r.cfg.Conventions.MaxRel == 0 {
		r.cfg.Conventions.MaxRel = highest
		return nil
	}
	if err := eval.CheckMaxRel(r.cfg.Conventions.MaxRel, highest); err != nil {
		return fmt.Errorf("--%w", err)
	}
	return nil
}

// maxLabel returns the highest grade in the file at path. It is cached in
// Out, so that a resumed run does not parse every file again just for it;
// keep keeps the dataset it loads for the fold that needs it next.
func (r *runner) maxLabel(ctx context.Context, path string, keep bool) (int, error) {
	cache := filepath.Join(r.cfg.Out, "maxlabel-"+key("maxlabel", r.ids.id(path), r.readKey())+".txt")
	if b, err := os.ReadFile(cache); err == nil {
		if g, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return g, nil
		}
	}
	ds, err := r.load(ctx, path)
	if err != nil {
		return 0, err
	}
	g := ds.MaxLabel()
	if !keep {
		// Only the grade was needed: hand the dataset back now, or the
		// next file's load stacks on it (an MSLR training file is 0.4 GB).
		delete(r.loaded, path)
		debug.FreeOSMemory()
	}
	return g, atomicfile.WriteFile(cache, []byte(strconv.Itoa(g)+"\n"))
}

// sourceKey is the cache-key part of CandidatesBy and RankBy (with a
// model: logger's content): none when they are "", so that the keys of
// runs without them stay as they were.
func (r *runner) sourceKey() []any {
	var k []any
	if c := r.cfg.CandidatesBy; c != "" {
		k = append(k, "candidates-by", c)
	}
	if rb := r.cfg.RankBy; rb != "" {
		k = append(k, "rank-by", rb)
		if path, ok := strings.CutPrefix(rb, "model:"); ok {
			k = append(k, r.ids.id(path))
		}
	}
	return k
}

// keyRandomSamples stands in the result keys where the number of Monte
// Carlo slates behind random ERR stood (always 1000 from the command line)
// before random ERR became exact, so that finished results keep their keys.
const keyRandomSamples = 1000

// key hashes the parts a stage depends on into a short name
// (provenance.Key, evaluate-grid's settings hash too).
func key(parts ...any) string { return provenance.Key(parts...) }

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// foldRun is one fold's run in progress: its folder, the cache-key parts
// of its files, its training data, and the models trained so far with
// their policy names.
type foldRun struct {
	f                                Fold
	dir                              string
	trainID, valiID, testID, readKey string
	train, vali                      *data.Dataset
	res                              *FoldResult
	models                           []*ranker.Model
	names                            []string
	grids                            []*gridRun // PI-OPT's grid per metric (Config.Grid)
	// matrices shares one quantile matrix between the PI-OPT models of
	// the metrics (one log: the same rows and weights, other targets).
	matrices *trainer.MatrixCache
}

// fold runs fold f, or reads its results back from an earlier run, which
// it records in r.reused.
func (r *runner) fold(ctx context.Context, f Fold) (*FoldResult, error) {
	r.reused = false
	c := r.cfg
	fr := &foldRun{f: f, dir: filepath.Join(c.Out, fmt.Sprintf("fold%d", f.Number))}
	if err := os.MkdirAll(fr.dir, 0o755); err != nil {
		return nil, err
	}
	fr.trainID, fr.valiID, fr.testID = r.ids.id(f.Train), r.ids.id(f.Vali), r.ids.id(f.Test)
	fr.readKey = r.readKey()
	parts := []any{"result", fr.trainID, fr.valiID, fr.testID, fr.readKey, c.Slots, c.Samples, c.Seed, c.Logging,
		c.ValidSamples, c.PerSample, c.Params, c.LambdaMART, c.SupTarget, c.Slate, c.Conventions, keyRandomSamples, c.Metrics}
	parts = append(parts, r.stageKeys()...)
	// Results cached while random ERR was a Monte Carlo estimate hold
	// other random values: they are not reused.
	parts = append(parts, "random-err-exact")
	if c.pioptOwn() {
		parts = append(parts, c.pioptParams()) // only then, so that older results keep their keys
	}
	if g := c.Grid.String(); g != "" {
		parts = append(parts, "grid", g) // likewise only with a grid
	}
	resultKey := key(parts...)
	resultPath := filepath.Join(fr.dir, "result-"+resultKey+".json")
	if b, err := os.ReadFile(resultPath); err == nil {
		var res FoldResult
		if err := atomicfile.CheckJSON(b); err != nil {
			r.noticef("fold %d: recomputing results: %s: %v", f.Number, resultPath, err)
		} else if err := json.Unmarshal(b, &res); err == nil && res.Fold == f.Number {
			r.logf("fold %d: results reused (%s)", f.Number, resultPath)
			r.reused = true
			return &res, nil
		}
	}
	fr.res = &FoldResult{Fold: f.Number, Values: map[string]map[string]float64{}, Stderr: map[string]float64{},
		Seconds: map[string]float64{}, Selection: map[string]*Selection{}}

	r.keepOnly(f.Train, f.Vali, f.Test)
	var err error
	if fr.train, err = r.load(ctx, f.Train); err != nil {
		return nil, err
	}
	if fr.vali, err = r.load(ctx, f.Vali); err != nil {
		return nil, err
	}
	r.rank = policy.Options{Train: fr.train, Seed: c.Seed, Sources: policy.NewSources()}
	if err := r.trainSUP(ctx, fr); err != nil {
		return nil, err
	}
	if c.LambdaMART {
		if err := r.trainLambdaMART(ctx, fr); err != nil {
			return nil, err
		}
	}
	if err := r.trainPIOPTs(ctx, fr); err != nil {
		return nil, err
	}
	if err := r.scoreTest(ctx, fr); err != nil {
		return nil, err
	}
	r.logf("fold %d: %s", f.Number, foldLine(fr.res, r.cfg))
	b, err := json.MarshalIndent(fr.res, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(resultPath, atomicfile.SealJSON(append(b, '\n'))); err != nil {
		return nil, err
	}
	return fr.res, nil
}

// trainSUP trains SUP (once per fold) on the training labels.
func (r *runner) trainSUP(ctx context.Context, fr *foldRun) error {
	c := r.cfg
	supPath := filepath.Join(fr.dir, "sup-"+key("sup", fr.trainID, fr.valiID, fr.readKey, c.Params, c.SupTarget)+".model")
	sup, err := r.trainStage(ctx, fr, "sup", supPath, c.Params, nil, c.Params.EarlyStopping > 0,
		func(ds *data.Dataset, _ bool) (*features.Matrix, error) {
			return pipeline.Matrix(features.KindSUP, c.SupTarget, ds, nil)
		})
	if err != nil {
		return err
	}
	fr.models, fr.names = append(fr.models, sup), append(fr.names, SUP)
	return nil
}

// trainLambdaMART trains the LambdaMART anchor (XGBoost rank:ndcg on the
// labels).
func (r *runner) trainLambdaMART(ctx context.Context, fr *foldRun) error {
	c := r.cfg
	p := c.Params
	p.Objective = trainer.ObjectiveRankNDCG
	p.EvalMetric = fmt.Sprintf("ndcg@%d", c.Slots)
	lmPath := filepath.Join(fr.dir, "lambdamart-"+key("lambdamart", fr.trainID, fr.valiID, fr.readKey, p)+".model")
	lm, err := r.trainStage(ctx, fr, "lambdamart", lmPath, p, nil, p.EarlyStopping > 0,
		func(ds *data.Dataset, _ bool) (*features.Matrix, error) {
			return pipeline.Matrix(features.KindLambdaMART, 0, ds, nil)
		})
	if err != nil {
		return err
	}
	fr.models, fr.names = append(fr.models, lm), append(fr.names, LambdaMART)
	return nil
}

// trainPIOPTs trains PI-OPT for every metric, sharing their training
// matrix, which it frees after the last.
func (r *runner) trainPIOPTs(ctx context.Context, fr *foldRun) error {
	fr.matrices = &trainer.MatrixCache{}
	defer func() {
		fr.matrices.Close()
		fr.matrices = nil
	}()
	for _, k := range r.cfg.Metrics {
		if err := r.trainPIOPT(ctx, fr, k); err != nil {
			return err
		}
	}
	return nil
}

// trainPIOPT imputes PI targets from a simulated log rewarded by metric k
// (and, with early stopping, validation targets) and trains PI-OPT on them.
func (r *runner) trainPIOPT(ctx context.Context, fr *foldRun, k eval.Kind) error {
	c := r.cfg
	m := r.metric(k)
	tKey := key(append([]any{"targets", fr.trainID, fr.readKey, c.Slots, m, c.Samples, c.Seed, c.Logging, c.PerSample}, r.stageKeys()...)...)
	tPath := filepath.Join(fr.dir, fmt.Sprintf("targets-%s-%s.tsv", k, tKey))
	tg, err := r.targets(ctx, fr.res, fr.f, fr.train, tPath, m, c.Samples, c.Seed)
	if err != nil {
		return err
	}
	var vg *data.Targets
	vKey := ""
	if c.Params.EarlyStopping > 0 {
		vn := c.ValidSamples
		if vn == 0 {
			vn = max(1, c.Samples*int64(fr.vali.NumQueries())/int64(fr.train.NumQueries()))
		}
		// A different seed keeps the validation log independent of the
		// training log (the folds share no queries anyway).
		vKey = key(append([]any{"targets", fr.valiID, fr.readKey, c.Slots, m, vn, c.Seed + 1, c.Logging, c.PerSample}, r.stageKeys()...)...)
		vPath := filepath.Join(fr.dir, fmt.Sprintf("valid-targets-%s-%s.tsv", k, vKey))
		if vg, err = r.targets(ctx, fr.res, fr.f, fr.vali, vPath, m, vn, c.Seed+1); err != nil {
			return err
		}
	}
	p := c.pioptParams()
	piPath := filepath.Join(fr.dir, fmt.Sprintf("pi-opt-%s-%s.model", k, key("pi-opt", tKey, vKey, p)))
	var value *trainer.SlateValue
	if p.SelectBy == trainer.SelectValue {
		if vg == nil {
			return fmt.Errorf("PI-OPT selects by value on a validation log: needs --early-stopping > 0")
		}
		if value, err = trainer.NewSlateValue(vg, c.Slate == ranker.SlateExact); err != nil {
			return err
		}
	}
	build := func(ds *data.Dataset, vali bool) (*features.Matrix, error) {
		if vali {
			return pipeline.Matrix(features.KindPIOPT, 0, ds, vg)
		}
		return pipeline.Matrix(features.KindPIOPT, 0, ds, tg)
	}
	if len(c.Grid.Settings) > 0 {
		return r.trainGrid(ctx, fr, k, tKey, vKey, value, build)
	}
	pi, err := r.trainStage(ctx, fr, "pi-opt "+k.String(), piPath, p, value, vg != nil, build)
	if err != nil {
		return err
	}
	fr.models, fr.names = append(fr.models, pi), append(fr.names, PIOPT+"-"+k.String())
	return nil
}

// scoreTest ranks the test fold with every model at once and records each
// metric's means: PI-OPT (the model trained for that metric), SUP, random
// and LambdaMART, and the PI-OPT models of the other metrics for reference.
func (r *runner) scoreTest(ctx context.Context, fr *foldRun) error {
	c := r.cfg
	test, err := r.load(ctx, fr.f.Test)
	if err != nil {
		return err
	}
	start := time.Now()
	bar := progress.New(r.progressWriter(), fmt.Sprintf("fold %d: rank test", fr.f.Number), 0, "docs")
	rep, err := pipeline.RankModels(ctx, test, fr.models, pipeline.RankOptions{
		Slots: c.Slots, Slate: c.Slate, Metrics: c.Metrics, Conventions: c.Conventions,
		Seed: c.Seed, Names: fr.names, Progress: bar.Add,
	})
	bar.Done()
	if err != nil {
		return err
	}
	res := fr.res
	res.Seconds["rank"] = time.Since(start).Seconds()
	for _, k := range c.Metrics {
		name := r.metric(k).Name()
		v := map[string]float64{
			SUP:                   rep.Mean[name][SUP],
			pipeline.PolicyRandom: rep.Mean[name][pipeline.PolicyRandom],
			PIOPT:                 rep.Mean[name][PIOPT+"-"+k.String()],
		}
		if c.LambdaMART {
			v[LambdaMART] = rep.Mean[name][LambdaMART]
		}
		for _, k2 := range c.Metrics {
			if k2 != k {
				v[PIOPT+"-"+k2.String()] = rep.Mean[name][PIOPT+"-"+k2.String()]
			}
		}
		res.Values[name] = v
		res.Stderr[name] = rep.RandomStderr[name]
	}
	res.Greedy = rep.GreedyVsExact
	r.scoreGrid(fr, rep)
	if c.RankBy != "" {
		return r.scoreLogger(ctx, fr, test, rep)
	}
	return nil
}

func (r *runner) progressWriter() io.Writer {
	if r.cfg.Progress == nil {
		return io.Discard
	}
	return r.cfg.Progress
}

func foldLine(res *FoldResult, c Config) string {
	s := ""
	for _, k := range c.Metrics {
		name := eval.Metric{Kind: k, K: c.Slots}.Name()
		v := res.Values[name]
		s += fmt.Sprintf("%s pi-opt %.4f sup %.4f random %.4f", name, v[PIOPT], v[SUP], v[pipeline.PolicyRandom])
		if c.LambdaMART {
			s += fmt.Sprintf(" lambdamart %.4f", v[LambdaMART])
		}
		if c.RankBy != "" {
			s += fmt.Sprintf(" logger %.4f", v[Logger])
		}
		s += "; "
	}
	return s[:len(s)-2]
}

// targets simulates n uniformly logged impressions on ds and imputes PI
// targets, or reads them back from path when an earlier run made them.
func (r *runner) targets(ctx context.Context, res *FoldResult, f Fold, ds *data.Dataset, path string, m eval.Metric, n int64, seed uint64) (*data.Targets, error) {
	if exists(path) {
		if err := atomicfile.CheckTextFile(path); err != nil {
			r.noticef("fold %d: recomputing targets: %s: %v", f.Number, path, err)
		} else if tg, err := data.ReadTargets(path, ds); err == nil {
			r.logf("fold %d: targets reused (%s)", f.Number, path)
			return tg, nil
		} else {
			r.logf("fold %d: ignoring unreadable %s: %v", f.Number, path, err)
		}
	}
	start := time.Now()
	spec := pipeline.SimulationSpec{DataPath: ds.Source, Metric: m, Samples: n, Seed: seed, ByShape: r.cfg.RankBy == "",
		Setup: policy.Setup{Slots: r.cfg.Slots, Logging: r.cfg.Logging, CandidatesBy: r.cfg.CandidatesBy, RankBy: r.cfg.RankBy}, Rank: r.rank}
	bar := progress.New(r.progressWriter(), fmt.Sprintf("fold %d: simulate %s on %s", f.Number, m.Name(), filepath.Base(ds.Source)), n, "samples")
	st, gammas, header, replay, err := pipeline.SimulateReplay(ctx, ds, spec, bar.Add)
	bar.Done()
	if err != nil {
		return nil, err
	}
	// The targets file and the PI-OPT model (whose metadata copies this
	// header) are outputs that later runs reuse by keys not covering the
	// header, so its bytes are frozen: the experiment's header has never
	// carried empty-query-ndcg= (the conventions are in the keys instead),
	// and adding it would make a fresh run differ from a resumed one.
	delete(header, "empty-query-ndcg")
	tg, err := r.imputeTargets(ctx, st, gammas, header, replay)
	if err != nil {
		return nil, err
	}
	if err := saveSealed(path, tg, ds); err != nil {
		return nil, err
	}
	sec := time.Since(start).Seconds()
	res.Seconds["impute "+filepath.Base(path)] = sec
	r.logf("fold %d: imputed %d targets from %d %s impressions on %s in %.1fs", f.Number, tg.Len(), n, m.Name(), filepath.Base(ds.Source), sec)
	return tg, nil
}

// saveSealed writes a targets file for reuse by a later run: as
// data.SaveTargets writes it, with the seal line of atomicfile.Sealer
// (a comment to the targets reader) at its end.
func saveSealed(path string, tg *data.Targets, ds *data.Dataset) error {
	return atomicfile.WriteWith(path, func(w io.Writer) error {
		s := atomicfile.NewSealer(w)
		if err := data.WriteTargets(s, tg, ds); err != nil {
			return err
		}
		return s.Seal()
	})
}

// trainStage trains a model with p unless path already holds one, and
// returns it loaded for ranking. build makes its training matrix from
// fr.train and, when valid, its validation matrix from fr.vali (vali true).
func (r *runner) trainStage(ctx context.Context, fr *foldRun, what, path string, p trainer.Params, value *trainer.SlateValue, valid bool,
	build func(ds *data.Dataset, vali bool) (*features.Matrix, error)) (*ranker.Model, error) {
	f, res := fr.f, fr.res
	if exists(path) {
		if m, err := ranker.LoadModel(path); err == nil {
			if value == nil {
				r.logf("fold %d: %s model reused (%s)", f.Number, what, path)
				return m, nil
			}
			if sel, err := readSelection(path); err == nil {
				res.Selection[what] = sel
				r.logf("fold %d: %s model reused (%s)", f.Number, what, path)
				return m, nil
			}
		}
	}
	start := time.Now()
	tm, err := build(fr.train, false)
	if err != nil {
		return nil, err
	}
	var vm *features.Matrix
	if valid {
		if vm, err = build(fr.vali, true); err != nil {
			return nil, err
		}
	}
	// The selection record is written before the model, so that a model
	// on disk always has its record beside it.
	var sel *Selection
	model, err := pipeline.Fit(ctx, pipeline.FitConfig{Train: tm, Valid: vm, Value: value, Params: p, Out: path, Matrices: fr.matrices,
		Progress: r.progressWriter(), Label: fmt.Sprintf("fold %d: train %s", f.Number, what), Unit: "trees",
		Status: func(rd trainer.Round) string { return stageStatus(f.Number, what, value != nil, rd) },
		BeforeSave: func(m *trainer.Model) error {
			if value == nil {
				return nil
			}
			sel = newSelection(m)
			return writeSelection(path, sel)
		}})
	if err != nil {
		return nil, err
	}
	defer model.Close()
	if sel != nil {
		res.Selection[what] = sel
	}
	sec := time.Since(start).Seconds()
	res.Seconds["train "+what] = sec
	r.logf("fold %d: trained %s (%d rows, %d trees) in %.1fs", f.Number, what, tm.Rows, model.Rounds, sec)
	// Ranking reads the saved file, as a later run reusing it would.
	return ranker.LoadModel(path)
}

// stageStatus is the progress status of a fold's training stage after
// round rd: with the value estimate's interval when selecting by value.
// It leaves out the training metric, which would cost a fifth of the
// fold to compute (trainer.Params.TrainMetric).
func stageStatus(fold int, what string, byValue bool, rd trainer.Round) string {
	if byValue {
		return fmt.Sprintf("fold %d: train %s (valid %s %.4f [%.4f, %.4f], best %.4f @%d)", fold, what,
			rd.ValidMetric, rd.Valid, rd.ValidLo, rd.ValidHi, rd.BestValid, rd.Best+1)
	}
	return fmt.Sprintf("fold %d: train %s (valid %s %.4g)", fold, what, rd.Metric, rd.Valid)
}

// pioptParams are the training parameters of PI-OPT: Params with its own
// selection criterion, starting value and learning rate.
func (c Config) pioptParams() trainer.Params {
	p := c.Params
	p.SelectBy, p.BaseScore = c.SelectBy, c.BaseScore
	if c.LearningRate > 0 {
		p.LearningRate = c.LearningRate
	}
	return p
}

// pioptOwn reports whether PI-OPT trains with parameters other than
// Params': the summary and the result keys then record them.
func (c Config) pioptOwn() bool { return c.pioptParams().String() != c.Params.String() }
