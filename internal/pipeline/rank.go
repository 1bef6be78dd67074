package pipeline

import (
	"context"
	"fmt"
	"io"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/internal/atomicfile"
	"github.com/piopt/piopt/internal/progress"
	"github.com/piopt/piopt/ranker"
)

// RankConfig is one run of piopt rank.
type RankConfig struct {
	Data string           // LETOR test file
	Read data.ReadOptions // how Data is read
	// Model is the model file to rank with; SupModel, when not "", a
	// supervised baseline (SUP or LambdaMART) to compare with.
	Model, SupModel string
	// Slots is ℓ (0: the PI-OPT model's, else 3), Metrics the metrics to
	// report, Slate how PI-OPT pair scores become slates.
	Slots   int
	Metrics []eval.Kind
	Slate   ranker.SlateMethod
	// Conventions of the metrics; MaxRel 0 takes FoldMaxRel's when Data is a
	// fold's file, else the data's highest grade.
	Conventions eval.Conventions
	// FoldMaxRel, when not nil, returns the maxrel piopt experiment settles
	// for the dataset a fold's file at path belongs to, with a note saying
	// so (ok false for any other file): rank and experiment then score ERR
	// alike. (experiment.FoldMaxRel; a hook, since the lab builds on this
	// package.)
	FoldMaxRel func(ctx context.Context, path string, own, maxLabel int) (maxrel int, note string, ok bool, err error)
	Seed       uint64 // recorded only: random slates' values are exact
	Threads    int    // inference threads; 0: all cores
	// Out, JSON and PerQuery, when not "", receive the model's slates as a
	// TREC run, the JSON summary and the per-query metrics.
	Out, JSON, PerQuery string
	Progress            io.Writer // progress bars (shown only on a terminal)
	Log                 io.Writer // notes, such as the maxrel taken
}

// Rank ranks every query of the test file with the model (and the
// baseline), scores the slates against uniformly random ones and writes
// the files asked for; the report is what rank prints (WriteTable).
func Rank(ctx context.Context, cfg RankConfig) (*RankReport, error) {
	models, err := rankModels(cfg.Model, cfg.SupModel)
	if err != nil {
		return nil, err
	}
	ds, err := loadFor(ctx, cfg.Data, cfg.Read, models[0])
	if err != nil {
		return nil, err
	}
	conv, err := rankConventions(ctx, cfg, ds)
	if err != nil {
		return nil, err
	}
	bar := progress.New(cfg.Progress, "rank", int64(ds.NumDocs()*len(models)), "docs")
	rep, err := RankModels(ctx, ds, models, RankOptions{Slots: cfg.Slots, Slate: cfg.Slate, Metrics: cfg.Metrics,
		Conventions: conv, Seed: cfg.Seed, Threads: cfg.Threads, Progress: bar.Add})
	bar.Done()
	if err != nil {
		return nil, err
	}
	if err := writeRankFiles(cfg, ds, rep, models[0].Meta().Kind); err != nil {
		return nil, err
	}
	return rep, nil
}

// rankConventions settles the conventions of rank: without a maxrel, a
// fold's file of a LETOR dataset takes the maxrel experiment settles for
// the whole dataset, saying so on cfg.Log; any other file takes its own
// highest grade, as every command does.
func rankConventions(ctx context.Context, cfg RankConfig, ds *data.Dataset) (eval.Conventions, error) {
	conv, err := settleMaxRel(cfg.Conventions, ds)
	if err != nil || cfg.Conventions.MaxRel != 0 || cfg.FoldMaxRel == nil {
		return conv, err
	}
	mr, note, ok, err := cfg.FoldMaxRel(ctx, cfg.Data, ds.MaxLabel(), cfg.Read.MaxLabel)
	if err != nil || !ok {
		return conv, err
	}
	conv.MaxRel = mr
	if cfg.Log != nil {
		fmt.Fprintln(cfg.Log, note)
	}
	return conv, nil
}

// rankModels loads the model and, when given, the baseline after it.
func rankModels(model, supModel string) ([]*ranker.Model, error) {
	m, err := ranker.LoadModel(model)
	if err != nil {
		return nil, err
	}
	models := []*ranker.Model{m}
	if supModel != "" {
		sup, err := ranker.LoadModel(supModel)
		if err != nil {
			return nil, err
		}
		if sup.Meta().Kind == features.KindPIOPT {
			return nil, fmt.Errorf("--sup-model %s is a PI-OPT model; give it as --model", supModel)
		}
		models = append(models, sup)
	}
	return models, nil
}

// loadFor reads the LETOR file at path and refuses it, as evaluate does
// (ranker.Model.Fits), unless it has m's feature count: --features N is the
// explicit way to pad a file whose highest feature indices are absent.
func loadFor(ctx context.Context, path string, opt data.ReadOptions, m *ranker.Model) (*data.Dataset, error) {
	ds, err := data.LoadContext(ctx, path, opt)
	if err != nil {
		return nil, err
	}
	if err := m.Fits(ds); err != nil {
		return nil, err
	}
	return ds, nil
}

// writeRankFiles writes the files asked for: Out, the TREC run of the
// model of the given kind; PerQuery; JSON, the summary.
func writeRankFiles(cfg RankConfig, ds *data.Dataset, rep *RankReport, kind string) error {
	if p := cfg.Out; p != "" {
		if err := atomicfile.WriteWith(p, func(w io.Writer) error { return ranker.WriteRun(w, ds, rep.Rankings[kind], "piopt") }); err != nil {
			return err
		}
	}
	if p := cfg.PerQuery; p != "" {
		if err := atomicfile.WriteWith(p, func(w io.Writer) error { return rep.WritePerQuery(w, ds) }); err != nil {
			return err
		}
	}
	if p := cfg.JSON; p != "" {
		return atomicfile.WriteJSON(p, rep)
	}
	return nil
}
