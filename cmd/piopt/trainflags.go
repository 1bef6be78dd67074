package main

import (
	"fmt"
	"math"
	"runtime"

	"github.com/piopt/piopt/internal/pipeline"
	"github.com/piopt/piopt/trainer"
	"github.com/urfave/cli/v2"
)

// trainFlags are the hyper-parameter flags of every command that trains
// (train, experiment). Their defaults are trainer.Defaults();
// --preset replaces those, and any flag given explicitly overrides both.
func trainFlags() []cli.Flag {
	d := trainer.Defaults()
	return []cli.Flag{
		&cli.StringFlag{Name: "preset", Usage: "hyper-parameter `PRESET`: default (300 trees × 70 leaves, learning rate 0.1) or paper (the paper's 1000 trees × 70 leaves, learning rate 0.1, no subsampling); flags given explicitly override it"},
		&cli.IntFlag{Name: "trees", Value: d.Trees, Usage: "boosting rounds `N` (the most, with --early-stopping)"},
		&cli.IntFlag{Name: "leaves", Value: d.Leaves, Usage: "leaves per tree `N` (loss-guided growth, no depth limit)"},
		&cli.Float64Flag{Name: "learning-rate", Value: d.LearningRate, Usage: "shrinkage `ETA` of each tree"},
		&cli.Float64Flag{Name: "subsample", Value: d.Subsample, Usage: "`FRACTION` of rows drawn for each tree, in (0, 1]"},
		&cli.IntFlag{Name: "max-bin", Value: d.MaxBin, Usage: "histogram bins `N` per feature"},
		&cli.Float64Flag{Name: "min-child-weight", Value: d.MinChildWeight, Usage: "least row-weight sum `W` of a leaf (rows of a query weigh 1 in total by default)"},
		&cli.Float64Flag{Name: "lambda", Value: d.Lambda, Usage: "L2 penalty `L` on leaf values"},
		&cli.IntFlag{Name: "threads", Usage: "training threads `N` (0: the cores idle when a training starts; all cores for rank:ndcg, whose model depends on them); a regression model does not depend on it"},
		&cli.Uint64Flag{Name: "seed", Value: uint64(d.Seed), Usage: "random `SEED` of row subsampling"},
		&cli.IntFlag{Name: "early-stopping", Usage: "stop after `N` rounds without improvement on the validation set and keep the best round's trees (0: off)"},
	}
}

// trainParams reads trainFlags.
func trainParams(c *cli.Context) (trainer.Params, error) {
	p := trainer.Defaults()
	if name := c.String("preset"); name != "" {
		var err error
		if p, err = trainer.Preset(name); err != nil {
			return p, fmt.Errorf("--preset: %w", err)
		}
	}
	// Only flags given explicitly override the preset (cli's Destination
	// would write the defaults too).
	for _, f := range []struct {
		name string
		dst  *int
	}{{"trees", &p.Trees}, {"leaves", &p.Leaves}, {"max-bin", &p.MaxBin}, {"threads", &p.Threads}, {"early-stopping", &p.EarlyStopping}} {
		if c.IsSet(f.name) {
			*f.dst = c.Int(f.name)
		}
	}
	for _, f := range []struct {
		name string
		dst  *float64
	}{{"learning-rate", &p.LearningRate}, {"subsample", &p.Subsample}, {"min-child-weight", &p.MinChildWeight}, {"lambda", &p.Lambda}} {
		if c.IsSet(f.name) {
			*f.dst = c.Float64(f.name)
		}
	}
	if c.IsSet("seed") {
		s := c.Uint64("seed")
		if s > math.MaxInt64 {
			return p, fmt.Errorf("--seed %d: at most %d", s, int64(math.MaxInt64))
		}
		p.Seed = int64(s)
	}
	return p, p.Validate()
}

// selectFlags are PI-OPT's model-selection flags, with the command's
// defaults: experiment selects by value from 0.5 (docs/results.md, "Choosing
// models without labels"), train keeps the validation loss from the mean.
func selectFlags(selectBy, baseScore string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "select-by", Value: selectBy, Usage: "`CRITERION` choosing PI-OPT's best round (and stopping early): value (the PI estimate of its slates' value on the validation log; no label read) or rmse (validation loss on the imputed targets)"},
		&cli.StringFlag{Name: "base-score", Value: baseScore, Usage: "PI-OPT's starting prediction `B`: mean (the weighted mean target) or a number (XGBoost's own default is 0.5)"},
	}
}

// selectChoices reads selectFlags for PI-OPT trained with p: value needs a
// validation set, so without early stopping it falls back to the metric.
func selectChoices(c *cli.Context, p trainer.Params) (selectBy, baseScore string, err error) {
	selectBy, baseScore = c.String("select-by"), c.String("base-score")
	q := p
	q.SelectBy, q.BaseScore = selectBy, baseScore
	if err := q.Validate(); err != nil {
		return "", "", err
	}
	if selectBy == trainer.SelectMetric || (selectBy == trainer.SelectValue && p.EarlyStopping == 0 && !c.IsSet("select-by")) {
		selectBy = ""
	}
	if selectBy == trainer.SelectValue && p.EarlyStopping == 0 {
		return "", "", fmt.Errorf("--select-by value chooses among rounds on a validation log: give --early-stopping N")
	}
	if baseScore == "mean" {
		baseScore = ""
	}
	return selectBy, baseScore, nil
}

// jobFlags are train's flags of a distributed training (docs/distributed.md).
func jobFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "tracker", Usage: "join a distributed training run by XGBoost's tracker at `HOST:PORT` (python3 -m xgboost.tracker), as worker --rank of --world; rank 0 writes the model"},
		&cli.IntFlag{Name: "world", Usage: "workers `N` of the distributed training (with --tracker)"},
		&cli.IntFlag{Name: "rank", Usage: "this worker's rank `I` in 0..N−1 (with --tracker): it trains on the queries whose qid's FNV-1a 64 hash is I modulo N"},
		&cli.IntFlag{Name: "workers", Usage: "train with `N` local worker processes and XGBoost's tracker on loopback (the tracker needs python3-xgboost)"},
		&cli.StringFlag{Name: "python", Usage: "Python `INTERPRETER` with xgboost, for --workers' tracker", DefaultText: "/usr/bin/python3 or python3", EnvVars: []string{"PIOPT_PYTHON"}},
	}
}

// launchFlags are the flags a --workers launcher does not pass on to its
// workers.
var launchFlags = map[string]bool{"workers": true, "python": true, "tracker": true, "world": true, "rank": true}

// jobConfig reads jobFlags into the worker's job (nil: not a worker).
func jobConfig(c *cli.Context) (*pipeline.JobConfig, error) {
	if !c.IsSet("tracker") {
		if c.IsSet("world") || c.IsSet("rank") {
			return nil, fmt.Errorf("--world and --rank place a worker of a job: give --tracker HOST:PORT too")
		}
		return nil, nil
	}
	if c.IsSet("workers") {
		return nil, fmt.Errorf("--workers starts its own tracker: drop --tracker")
	}
	if !c.IsSet("world") || !c.IsSet("rank") {
		return nil, fmt.Errorf("--tracker needs --world N and --rank I")
	}
	return &pipeline.JobConfig{Tracker: c.String("tracker"), World: c.Int("world"), Rank: c.Int("rank")}, nil
}

// workerArgs are the arguments of a --workers launcher's worker: the
// command and every flag given, but the launcher's own. Without --threads
// the workers share the cores.
func workerArgs(c *cli.Context) []string {
	args := []string{c.Command.Name}
	if !c.IsSet("threads") {
		args = append(args, fmt.Sprintf("--threads=%d", max(1, runtime.NumCPU()/c.Int("workers"))))
	}
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if launchFlags[name] || !c.IsSet(name) {
			continue
		}
		args = append(args, fmt.Sprintf("--%s=%v", name, c.Value(name)))
	}
	return args
}
