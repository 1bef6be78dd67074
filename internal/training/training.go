package training

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

// Config is one training run. The caller has checked that the files fit the
// kind: Targets and ValidTargets only for PI-OPT, ValidTargets exactly when
// ValidData.
type Config struct {
	Kind      string             // features.KindPIOPT, KindSUP or KindLambdaMART
	SupTarget features.SupTarget // SUP's regression target
	Data      string             // training LETOR file
	Targets   string             // PI-OPT targets of Data
	// ValidData (optional) is the validation LETOR file, ValidTargets its
	// PI-OPT targets.
	ValidData, ValidTargets string
	Params                  trainer.Params
	Out                     string // model file
	// Load reads a LETOR file; the caller chooses the read options and the
	// progress display.
	Load func(path string) (*data.Dataset, error)
	// Progress receives the round-by-round progress bar (shown only on a
	// terminal).
	Progress io.Writer
}

// Result summarises a finished run.
type Result struct {
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
}

// String is the one-line summary piopt train prints.
func (r *Result) String() string {
	s := fmt.Sprintf("train: %s model on %d×%d rows, %d rounds", r.Kind, r.Rows, r.Cols, r.Trained)
	if r.Validated {
		s += fmt.Sprintf(", best %d (valid %s %.6g)", r.Best+1, r.Metric, r.BestScore)
		if r.Rounds < r.Trained {
			s += fmt.Sprintf(", kept %d", r.Rounds)
		}
	}
	ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	return s + fmt.Sprintf(", train %s %.6g; reading %s, features %s, XGBoost matrices %s, boosting %s → %s",
		r.Metric, r.LastTrain, ms(r.Reading), ms(r.Building), ms(r.Matrix), ms(r.Boost), r.Out)
}

// Run trains the model of cfg and saves it to cfg.Out.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	res := &Result{Out: cfg.Out}
	train, valid, err := matrices(cfg, res)
	if err != nil {
		return nil, err
	}
	// The targets and the parse buffers are garbage now (the matrices keep
	// their labels, weights and row indexes and read the datasets' features
	// in place); trainer.Train hands that memory back before XGBoost makes
	// its quantile matrix, which is when the process peaks.
	res.Rows, res.Cols, res.Validated = train.Rows, train.Cols, valid != nil
	p := cfg.Params
	bar := progress.New(cfg.Progress, "train", int64(p.Trees), "rounds")
	model, err := trainer.Train(ctx, train, valid, p, func(r trainer.Round) {
		s := fmt.Sprintf("train %s %.5g", r.Metric, r.Train)
		if !math.IsNaN(r.Valid) {
			s += fmt.Sprintf(", valid %.5g (best %.5g @%d)", r.Valid, r.BestValid, r.Best+1)
		}
		bar.Status(s)
		bar.Add(1)
	})
	bar.Done()
	if err != nil {
		return nil, err
	}
	defer model.Close()
	if err := model.Save(cfg.Out); err != nil {
		return nil, err
	}
	res.Kind, res.Trained, res.Rounds = model.Meta.Kind, model.Trained, model.Rounds
	res.Best, res.Metric, res.BestScore = model.BestIteration, model.Metric, model.BestScore
	res.LastTrain = model.History[len(model.History)-1].Train
	res.Timing = model.Timing
	return res, nil
}

// matrices reads the training (and validation) files and builds their
// design matrices, timing both steps into res.
func matrices(cfg Config, res *Result) (train, valid *features.Matrix, err error) {
	if train, err = matrix(cfg, cfg.Data, cfg.Targets, res); err != nil {
		return nil, nil, err
	}
	if cfg.ValidData == "" {
		return train, nil, nil
	}
	if valid, err = matrix(cfg, cfg.ValidData, cfg.ValidTargets, res); err != nil {
		return nil, nil, err
	}
	if cfg.Kind == features.KindPIOPT && valid.Meta.Slots != train.Meta.Slots {
		return nil, nil, fmt.Errorf("--valid-targets are for %d slots, --targets for %d", valid.Meta.Slots, train.Meta.Slots)
	}
	return train, valid, nil
}

func matrix(cfg Config, path, targets string, res *Result) (*features.Matrix, error) {
	start := time.Now()
	ds, err := cfg.Load(path)
	if err != nil {
		return nil, err
	}
	var t *data.Targets
	if cfg.Kind == features.KindPIOPT {
		if t, err = data.ReadTargets(targets, ds); err != nil {
			return nil, err
		}
	}
	res.Reading += time.Since(start)
	start = time.Now()
	defer func() { res.Building += time.Since(start) }()
	switch cfg.Kind {
	case features.KindSUP:
		return features.SUP(ds, cfg.SupTarget)
	case features.KindLambdaMART:
		return features.LambdaMART(ds)
	}
	return features.PIOPT(ds, t)
}
