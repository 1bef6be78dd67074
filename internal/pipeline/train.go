package pipeline

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/internal/progress"
	"github.com/piopt/piopt/trainer"
)

// TrainConfig is one run of piopt train. The caller has checked that the
// files fit the kind: Targets and ValidTargets only for PI-OPT,
// ValidTargets exactly when ValidData.
type TrainConfig struct {
	Kind      string             // features.KindPIOPT, KindSUP or KindLambdaMART
	SupTarget features.SupTarget // SUP's regression target
	Data      string             // training LETOR file
	Targets   string             // PI-OPT targets of Data
	// ValidData (optional) is the validation LETOR file, ValidTargets its
	// PI-OPT targets.
	ValidData, ValidTargets string
	Params                  trainer.Params
	Out                     string           // model file
	Read                    data.ReadOptions // how the LETOR files are read
	// Progress receives the reading and round-by-round progress bars
	// (shown only on a terminal).
	Progress io.Writer
	// Job, when not nil, makes the run one worker of a distributed
	// training: it trains on its shard of the queries, and only rank 0
	// reads the validation files and writes the model.
	Job *JobConfig
}

// TrainResult summarises a finished run.
type TrainResult struct {
	Kind       string
	Rows, Cols int  // of the training matrix
	Validated  bool // trained with a validation set
	Trained    int  // rounds trained
	Rounds     int  // rounds kept in the model
	Best       int  // 0-based best validation round
	Metric     string
	BestScore  float64 // validation metric at Best
	LastTrain  float64 // training metric of the last round
	Out        string
	// Reading and Building are piopt's own work before XGBoost: reading
	// the files, and building the design matrices.
	Reading, Building time.Duration
	trainer.Timing
	History []trainer.Round // every round trained
	// Rank and World place a worker of a distributed training (World 0:
	// alone); Out is empty on a worker that writes no model.
	Rank, World int

	validTargets *data.Targets // PI-OPT's validation targets, for value selection
}

// String is the one-line summary piopt train prints.
func (r *TrainResult) String() string {
	s := fmt.Sprintf("train: %s model on %d×%d rows, %d rounds", r.Kind, r.Rows, r.Cols, r.Trained)
	if r.World > 0 {
		s = fmt.Sprintf("train: rank %d of %d: %s model on %d×%d rows of its queries, %d rounds", r.Rank, r.World, r.Kind, r.Rows, r.Cols, r.Trained)
	}
	out := r.Out
	if out == "" {
		out = "no model (rank 0 writes it)"
	}
	if r.Validated {
		s += fmt.Sprintf(", best %d (valid %s %.6g)", r.Best+1, r.Metric, r.BestScore)
		if r.Rounds < r.Trained {
			s += fmt.Sprintf(", kept %d", r.Rounds)
		}
	}
	ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	return s + fmt.Sprintf(", train %s %.6g; reading %s, features %s, XGBoost matrices %s, boosting %s → %s",
		r.trainMetric(), r.LastTrain, ms(r.Reading), ms(r.Building), ms(r.Matrix), ms(r.Boost), out)
}

// trainMetric names the training metric: the validation one, unless the
// rounds were selected by value.
func (r *TrainResult) trainMetric() string {
	if len(r.History) > 0 {
		return r.History[0].Metric
	}
	return r.Metric
}

// Train reads the LETOR file (and, for PI-OPT, the imputed targets φ̄
// written by Impute), builds the design matrix of the model kind, fits
// XGBoost with an optional validation set and saves the model atomically.
// It keeps the process's memory peak low and times piopt's own work apart
// from XGBoost's.
func Train(ctx context.Context, cfg TrainConfig) (*TrainResult, error) {
	res := &TrainResult{Out: cfg.Out}
	var job *trainer.Job
	if cfg.Job != nil {
		var err error
		if job, err = joinJob(cfg.Job, cfg.ValidData != ""); err != nil {
			return nil, fmt.Errorf("rank %d: %w", cfg.Job.Rank, err)
		}
		defer job.Comm.Close()
		res.Rank, res.World = cfg.Job.Rank, cfg.Job.World
		if !isRoot(job) {
			res.Out, cfg.ValidData, cfg.ValidTargets = "", "", ""
		}
	}
	res, err := train(ctx, cfg, job, res)
	if err != nil && cfg.Job != nil {
		return nil, fmt.Errorf("rank %d: %w", cfg.Job.Rank, err)
	}
	return res, err
}

// train is Train once the job (nil: none) is joined.
func train(ctx context.Context, cfg TrainConfig, job *trainer.Job, res *TrainResult) (*TrainResult, error) {
	train, valid, err := matrices(ctx, cfg, res)
	if err != nil {
		return nil, err
	}
	// The targets and the parse buffers are garbage now (the matrices keep
	// their labels, weights and row indexes and read the datasets' features
	// in place); trainer.Train hands that memory back before XGBoost makes
	// its quantile matrix, which is when the process peaks.
	res.Rows, res.Cols, res.Validated = train.Rows, train.Cols, valid != nil || (job != nil && job.Validated)
	p := cfg.Params
	p.TrainMetric = true // reported by the summary line and --json's rounds
	var value *trainer.SlateValue
	// A worker other than the root selects by the value the root
	// broadcasts: it reads no validation targets.
	if p.SelectBy == trainer.SelectValue && isRoot(job) {
		if res.validTargets == nil {
			return nil, fmt.Errorf("--select-by value needs PI-OPT validation targets (--valid-data and --valid-targets)")
		}
		if value, err = trainer.NewSlateValue(res.validTargets, false); err != nil {
			return nil, fmt.Errorf("%s: %w", cfg.ValidTargets, err)
		}
		res.validTargets = nil
	}
	model, err := Fit(ctx, FitConfig{Train: train, Valid: valid, Value: value, Params: p, Out: res.Out,
		Progress: cfg.Progress, Label: "train", Unit: "rounds", Status: roundStatus, Job: job})
	if err != nil {
		return nil, err
	}
	defer model.Close()
	res.Kind, res.Trained, res.Rounds = model.Meta.Kind, model.Trained, model.Rounds
	res.Best, res.Metric, res.BestScore = model.BestIteration, model.Metric, model.BestScore
	res.LastTrain = model.History[len(model.History)-1].Train
	res.Timing = model.Timing
	res.History = model.History
	return res, nil
}

// roundStatus is train's progress status after round r.
func roundStatus(r trainer.Round) string {
	s := fmt.Sprintf("train %s %.5g", r.Metric, r.Train)
	switch {
	case !math.IsNaN(r.ValidLo):
		s += fmt.Sprintf(", valid %s %.4f [%.4f, %.4f] (best %.4f @%d)", r.ValidMetric, r.Valid, r.ValidLo, r.ValidHi, r.BestValid, r.Best+1)
	case !math.IsNaN(r.Valid):
		s += fmt.Sprintf(", valid %.5g (best %.5g @%d)", r.Valid, r.BestValid, r.Best+1)
	}
	return s
}

// FitConfig is one model fit: the design matrices, the value estimate
// choosing the round (nil: the validation metric), the parameters, the
// model file, and the progress bar's writer, label, unit and status line.
type FitConfig struct {
	Train, Valid *features.Matrix
	Value        *trainer.SlateValue
	Params       trainer.Params
	Out          string
	Progress     io.Writer
	Label, Unit  string
	Status       func(trainer.Round) string
	// BeforeSave, when not nil, is called with the model before it is
	// saved (a record that must exist beside every saved model).
	BeforeSave func(*trainer.Model) error
	// Job, when not nil, trains as a worker of a distributed job; only
	// its root saves.
	Job *trainer.Job
	// Matrices, when not nil, shares the training's quantile matrix with
	// the fits before and after it on the same rows and weights.
	Matrices *trainer.MatrixCache
}

// Fit trains a model on cfg's matrices and saves it to cfg.Out: the one
// training step of every PI-OPT, SUP and LambdaMART model. The caller
// closes the model.
func Fit(ctx context.Context, cfg FitConfig) (*trainer.Model, error) {
	p := cfg.Params
	bar := progress.New(cfg.Progress, cfg.Label, int64(p.Trees), cfg.Unit)
	model, err := cfg.Matrices.TrainJob(ctx, cfg.Job, cfg.Train, cfg.Valid, cfg.Value, p, func(r trainer.Round) {
		bar.Status(cfg.Status(r))
		bar.Expect(progress.RoundsEnd(p.Trees, r.Best, p.EarlyStopping))
		bar.Add(1)
	})
	bar.Done()
	if err != nil {
		return nil, err
	}
	if !isRoot(cfg.Job) {
		return model, nil
	}
	if cfg.BeforeSave != nil {
		if err := cfg.BeforeSave(model); err != nil {
			model.Close()
			return nil, err
		}
	}
	if err := model.Save(cfg.Out); err != nil {
		model.Close()
		return nil, err
	}
	return model, nil
}

// matrices reads the training (and validation) files and builds their
// design matrices, timing both steps into res.
func matrices(ctx context.Context, cfg TrainConfig, res *TrainResult) (train, valid *features.Matrix, err error) {
	if train, err = matrix(ctx, cfg, cfg.Data, cfg.Targets, res, false, cfg.Job); err != nil {
		return nil, nil, err
	}
	if cfg.ValidData == "" {
		return train, nil, nil
	}
	if valid, err = matrix(ctx, cfg, cfg.ValidData, cfg.ValidTargets, res, cfg.Params.SelectBy == trainer.SelectValue, nil); err != nil {
		return nil, nil, err
	}
	if cfg.Kind == features.KindPIOPT && valid.Meta.Slots != train.Meta.Slots {
		return nil, nil, fmt.Errorf("--valid-targets are for %d slots, --targets for %d", valid.Meta.Slots, train.Meta.Slots)
	}
	return train, valid, nil
}

// matrix reads one file (and its targets) and builds its design matrix:
// of the queries of job's rank only, when job is not nil.
func matrix(ctx context.Context, cfg TrainConfig, path, targets string, res *TrainResult, keepTargets bool, job *JobConfig) (*features.Matrix, error) {
	start := time.Now()
	ds, err := load(ctx, path, cfg.Read, cfg.Progress)
	if err != nil {
		return nil, err
	}
	var t *data.Targets
	if cfg.Kind == features.KindPIOPT {
		if t, err = data.ReadTargets(targets, ds); err != nil {
			return nil, err
		}
		if keepTargets {
			res.validTargets = t
		}
	}
	if job != nil {
		if ds, t, err = shardQueries(ds, t, job.Rank, job.World); err != nil {
			return nil, err
		}
	}
	res.Reading += time.Since(start)
	start = time.Now()
	defer func() { res.Building += time.Since(start) }()
	return Matrix(cfg.Kind, cfg.SupTarget, ds, t)
}

// Matrix builds the design matrix of a model kind on ds: PI-OPT's rows
// [f(x,a); onehot(j)] with the targets t, SUP's f(x,a) with its target, or
// LambdaMART's f(x,a) with the labels.
func Matrix(kind string, sup features.SupTarget, ds *data.Dataset, t *data.Targets) (*features.Matrix, error) {
	switch kind {
	case features.KindSUP:
		return features.SUP(ds, sup)
	case features.KindLambdaMART:
		return features.LambdaMART(ds)
	}
	return features.PIOPT(ds, t)
}

// JSON is the run as train --json writes it: the model kept and every
// round's values (null where a round has none).
func (r *TrainResult) JSON() any {
	num := func(v float64) any {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return v
	}
	rounds := make([]map[string]any, len(r.History))
	for i, h := range r.History {
		rounds[i] = map[string]any{"round": h.Iter + 1, "train": num(h.Train), "valid": num(h.Valid),
			"lo": num(h.ValidLo), "hi": num(h.ValidHi)}
	}
	out := map[string]any{"kind": r.Kind, "out": r.Out, "trained": r.Trained, "trees": r.Rounds,
		"train_metric": r.trainMetric(), "rounds": rounds}
	if r.Validated {
		out["valid_metric"], out["best_round"], out["best_valid"] = r.Metric, r.Best+1, num(r.BestScore)
	}
	return out
}
