package evalgrid

import (
	"context"
	"fmt"
	"io"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/internal/pipeline"
	"github.com/piopt/piopt/internal/progress"
	"github.com/piopt/piopt/internal/provenance"
)

// GridConfig is one run of piopt evaluate-grid: the grid of Grid on the
// data of the file Data.
type GridConfig struct {
	Data string           // LETOR file whose labels give the rewards and the true values
	Read data.ReadOptions // how Data (and PolicyData) is read
	// PolicyData, when not "", is the labelled file the rank sources are
	// fitted on (else Data); it is hashed with Data into the provenance.
	PolicyData string
	// Conventions of both metrics; MaxRel 0 takes the data's highest grade.
	Conventions eval.Conventions
	// Grid is the rest of the run; Evaluate sets its Data, Inputs,
	// Conventions, Policy.Train and its Progress, Status and Log hooks.
	Grid Config
	// Progress shows the grid's progress bar (only on a terminal); Log
	// receives one line per finished or loaded condition.
	Progress, Log io.Writer
}

// Evaluate reads the data, runs (or loads) every condition of the grid,
// aggregates them and writes the report's files to Grid.Out.
func Evaluate(ctx context.Context, cfg GridConfig) (*Report, error) {
	g := cfg.Grid
	if err := g.Check(); err != nil {
		return nil, err
	}
	var err error
	if g.Data, err = pipeline.Load(ctx, cfg.Data, cfg.Read, cfg.Progress); err != nil {
		return nil, err
	}
	if g.Conventions, err = pipeline.SettleMaxRel(cfg.Conventions, g.Data); err != nil {
		return nil, err
	}
	if g.Policy, err = pipeline.PolicyOptions(ctx, cfg.PolicyData, cfg.Read, g.Threads, g.Seed, cfg.Progress); err != nil {
		return nil, err
	}
	paths := []string{g.Data.Source}
	if cfg.PolicyData != "" {
		paths = append(paths, cfg.PolicyData)
	}
	if g.Inputs, err = provenance.HashInputs(paths...); err != nil {
		return nil, err
	}
	n := int64(len(g.Grid.Conditions()))
	bar := progress.New(cfg.Progress, "evaluate-grid", n*g.Samples*int64(g.Runs), "samples")
	g.Progress, g.Status = bar.Add, bar.Status
	g.Log = func(line string) {
		if cfg.Log == nil {
			return
		}
		if bar != nil {
			fmt.Fprint(cfg.Log, "\r\033[K") // clear the bar's line
		}
		fmt.Fprintln(cfg.Log, "evaluate-grid: "+line)
	}
	rep, err := Run(ctx, g)
	bar.Done()
	if err != nil {
		return nil, err
	}
	if err := rep.WriteFiles(g.Out); err != nil {
		return nil, err
	}
	return rep, nil
}
