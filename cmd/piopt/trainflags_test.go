package main

import (
	"strings"
	"testing"

	"github.com/piopt/piopt/trainer"
	"github.com/urfave/cli/v2"
)

// --preset sets the base values; flags given explicitly override them.
func TestTrainParams(t *testing.T) {
	var got trainer.Params
	app := &cli.App{Flags: trainFlags(), Action: func(c *cli.Context) (err error) {
		got, err = trainParams(c)
		return err
	}}
	for _, c := range []struct {
		args []string
		want func() trainer.Params
	}{
		{nil, trainer.Defaults},
		{[]string{"--preset", "paper"}, func() trainer.Params { p, _ := trainer.Preset("paper"); return p }},
		{[]string{"--preset", "paper", "--trees", "5", "--seed", "9", "--threads", "1", "--early-stopping", "4"}, func() trainer.Params {
			p, _ := trainer.Preset("paper")
			p.Trees, p.Seed, p.Threads, p.EarlyStopping = 5, 9, 1, 4
			return p
		}},
		{[]string{"--learning-rate", "0.05", "--subsample", "0.8", "--max-bin", "64", "--min-child-weight", "0.5", "--lambda", "2", "--leaves", "31"}, func() trainer.Params {
			p := trainer.Defaults()
			p.LearningRate, p.Subsample, p.MaxBin, p.MinChildWeight, p.Lambda, p.Leaves = 0.05, 0.8, 64, 0.5, 2, 31
			return p
		}},
	} {
		if err := app.Run(append([]string{"x"}, c.args...)); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if got != c.want() {
			t.Errorf("%v: params %+v, want %+v", c.args, got, c.want())
		}
	}
	for _, bad := range [][]string{{"--subsample", "0"}, {"--max-bin", "1"}, {"--seed", "18446744073709551615"}, {"--trees", "0"}} {
		if err := app.Run(append([]string{"x"}, bad...)); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// experiment stops early after 50 rounds unless told otherwise or running
// the paper's preset.
func TestExperimentParams(t *testing.T) {
	var got trainer.Params
	app := &cli.App{Flags: trainFlags(), Action: func(c *cli.Context) (err error) {
		got, err = experimentParams(c)
		return err
	}}
	paper, _ := trainer.Preset("paper")
	for _, c := range []struct {
		args []string
		want int
	}{
		{nil, DefaultExperimentEarlyStopping},
		{[]string{"--early-stopping", "0"}, 0},
		{[]string{"--early-stopping", "7"}, 7},
		{[]string{"--preset", "paper"}, paper.EarlyStopping},
		{[]string{"--preset", "paper", "--early-stopping", "9"}, 9},
	} {
		if err := app.Run(append([]string{"x"}, c.args...)); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if got.EarlyStopping != c.want {
			t.Errorf("%v: early stopping %d, want %d", c.args, got.EarlyStopping, c.want)
		}
	}
}

// PI-OPT learns at DefaultPILearningRate in experiment unless
// --pi-learning-rate names another rate, or --learning-rate or the paper's
// preset sets every model's (0: follow it).
func TestPILearningRate(t *testing.T) {
	var got float64
	app := &cli.App{Flags: experimentFlags(), Action: func(c *cli.Context) (err error) {
		got, err = piLearningRate(c)
		return err
	}}
	req := []string{"x", "--folds", "f", "--out", "o"}
	for _, c := range []struct {
		args []string
		want float64
	}{
		{nil, DefaultPILearningRate},
		{[]string{"--preset", "default"}, DefaultPILearningRate},
		{[]string{"--pi-learning-rate", "0.2"}, 0.2},
		{[]string{"--learning-rate", "0.3"}, 0},
		{[]string{"--preset", "paper"}, 0},
		{[]string{"--preset", "paper", "--pi-learning-rate", "0.07"}, 0.07},
		{[]string{"--learning-rate", "0.3", "--pi-learning-rate", "0.1"}, 0.1},
	} {
		if err := app.Run(append(req, c.args...)); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if got != c.want {
			t.Errorf("%v: PI-OPT learning rate %v, want %v", c.args, got, c.want)
		}
	}
	for _, bad := range []string{"0", "-0.1", "Inf", "NaN"} {
		err := app.Run(append(req, "--pi-learning-rate", bad))
		if err == nil || !strings.Contains(err.Error(), "--pi-learning-rate") {
			t.Errorf("--pi-learning-rate %s: error %v", bad, err)
		}
	}
}
