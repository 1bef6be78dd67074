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
	History []trainer.Round // every round trained

	validTargets *data.Targets // PI-OPT's validation targets, for value selection
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
		r.trainMetric(), r.LastTrain, ms(r.Reading), ms(r.Building), ms(r.Matrix), ms(r.Boost), r.Out)
}

// trainMetric names the training metric: the validation one, unless the
// rounds were selected by value.
func (r *Result) trainMetric() string {
	if len(r.History) > 0 {
		return r.History[0].Metric
	}
	return r.Metric
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
	var value *trainer.SlateValue
	if p.SelectBy == trainer.SelectValue {
		if res.validTargets == nil {
			return nil, fmt.Errorf("--select-by value needs PI-OPT validation targets (--valid-data and --valid-targets)")
		}
		if value, err = trainer.NewSlateValue(res.validTargets, false); err != nil {
			return nil, fmt.Errorf("%s: %w", cfg.ValidTargets, err)
		}
		res.validTargets = nil
	}
	bar := progress.New(cfg.Progress, "train", int64(p.Trees), "rounds")
	model, err := trainer.TrainSelect(ctx, train, valid, value, p, func(r trainer.Round) {
		s := fmt.Sprintf("train %s %.5g", r.Metric, r.Train)
		switch {
		case !math.IsNaN(r.ValidLo):
			s += fmt.Sprintf(", valid %s %.4f [%.4f, %.4f] (best %.4f @%d)", r.ValidMetric, r.Valid, r.ValidLo, r.ValidHi, r.BestValid, r.Best+1)
		case !math.IsNaN(r.Valid):
			s += fmt.Sprintf(", valid %.5g (best %.5g @%d)", r.Valid, r.BestValid, r.Best+1)
		}
		bar.Status(s)
		bar.Expect(progress.RoundsEnd(p.Trees, r.Best, p.EarlyStopping))
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
	res.History = model.History
	return res, nil
}

// matrices reads the training (and validation) files and builds their
// design matrices, timing both steps into res.
func matrices(cfg Config, res *Result) (train, valid *features.Matrix, err error) {
	if train, err = matrix(cfg, cfg.Data, cfg.Targets, res, false); err != nil {
		return nil, nil, err
	}
	if cfg.ValidData == "" {
		return train, nil, nil
	}
	if valid, err = matrix(cfg, cfg.ValidData, cfg.ValidTargets, res, cfg.Params.SelectBy == trainer.SelectValue); err != nil {
		return nil, nil, err
	}
	if cfg.Kind == features.KindPIOPT && valid.Meta.Slots != train.Meta.Slots {
		return nil, nil, fmt.Errorf("--valid-targets are for %d slots, --targets for %d", valid.Meta.Slots, train.Meta.Slots)
	}
	return train, valid, nil
}

func matrix(cfg Config, path, targets string, res *Result, keepTargets bool) (*features.Matrix, error) {
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
		if keepTargets {
			res.validTargets = t
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

// JSON is the run as train --json writes it: the model kept and every
// round's values (null where a round has none).
func (r *Result) JSON() any {
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
