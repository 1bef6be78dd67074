package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/internal/lab/experiment"
	"github.com/piopt/piopt/internal/progress"
	"github.com/piopt/piopt/ranker"
	"github.com/urfave/cli/v2"
)

func rankCommand() *cli.Command {
	return &cli.Command{
		Name:      "rank",
		Usage:     "build slates on a test set with trained models and score them against random",
		ArgsUsage: " ",
		Description: `Ranks every query of --data with --model: a PI-OPT model by its greedy (or
exact) slot-action slate, a SUP or LambdaMART model by sorting its scores. Prints
NDCG@L and ERR@L of the model, of --sup-model when given, and of uniformly random
slates (their exact expectation, for NDCG and ERR alike), with the metric
conventions.

--out writes the model's slates as a TREC run: qid Q0 docid rank score piopt, docid
the 0-based doc position in its query (its comment id with --doc-ids comment),
rank the slot 1..min(L, m), score the model's score of that (doc, slot) pair (of
the doc for a SUP model).
--json writes the summary; --per-query writes one line per query with every
metric of every policy (header: qid docs ndcg@3:pi-opt ...).

   piopt train --sup --data folds/Fold1/train.txt --trees 50 --out sup.model
   piopt rank --data folds/Fold1/test.txt --model sup.model --slots 5 \
              --out test.run --json summary.json --per-query test.tsv`,
		Flags: append(append([]cli.Flag{
			&cli.StringFlag{Name: "data", Usage: "LETOR test `FILE`", Required: true},
			&cli.StringFlag{Name: "model", Usage: "model `FILE` to rank with (PI-OPT, SUP or LambdaMART)", Required: true},
			&cli.StringFlag{Name: "sup-model", Usage: "supervised baseline model `FILE` to compare with (SUP or LambdaMART)"},
			&cli.IntFlag{Name: "slots", Usage: "slate length `L` and metric cut-off", DefaultText: "the PI-OPT model's ℓ, else 3"},
			&cli.StringFlag{Name: "metrics", Value: "ndcg,err", Usage: "metrics to report, comma-separated `LIST` of ndcg, err"},
			&cli.StringFlag{Name: "slate", Value: "greedy", Usage: "`METHOD` of PI-OPT slates: greedy (take the best (doc, slot) pair, repeat) or exact (maximise the sum of pair scores)"},
			&cli.StringFlag{Name: "out", Usage: "TREC run `FILE` of the model's slates"},
			&cli.StringFlag{Name: "json", Usage: "summary JSON `FILE`"},
			&cli.StringFlag{Name: "per-query", Usage: "per-query metrics TSV `FILE`"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "unused: random ERR is exact (`SEED` kept so that old scripts run)"},
			&cli.IntFlag{Name: "random-samples", Value: ranker.DefaultRandomSamples, Usage: "unused: random ERR is exact (`N` kept so that old scripts run)"},
			&cli.IntFlag{Name: "threads", Usage: "inference threads `N`", DefaultText: "all cores; results do not depend on it"},
		}, dataFlags()...), conventionFlags()...),
		Action: runRank,
	}
}

// parseMetrics reads flag's comma-separated list of metric kinds, without
// repeats.
func parseMetrics(flag, s string) ([]eval.Kind, error) {
	var out []eval.Kind
	seen := map[eval.Kind]bool{}
	for _, f := range strings.Split(s, ",") {
		k, err := eval.ParseKind(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("--%s: %w", flag, err)
		}
		if !seen[k] {
			out = append(out, k)
			seen[k] = true
		}
	}
	return out, nil
}

func runRank(c *cli.Context) error {
	opt, err := rankOptions(c)
	if err != nil {
		return err
	}
	models, err := rankModels(c)
	if err != nil {
		return err
	}
	ds, err := loadForModel(c, models[0])
	if err != nil {
		return err
	}
	if opt.Conventions, err = rankConventions(c, ds); err != nil {
		return err
	}
	bar := progress.New(os.Stderr, "rank", int64(ds.NumDocs()*len(models)), "docs")
	opt.Progress = bar.Add
	rep, err := ranker.Evaluate(c.Context, ds, models, opt)
	bar.Done()
	if err != nil {
		return err
	}
	if err := writeRankFiles(c, ds, rep, models[0].Meta().Kind); err != nil {
		return err
	}
	return rep.WriteTable(os.Stdout)
}

// rankOptions reads rank's flags but the conventions, which depend on the
// data.
func rankOptions(c *cli.Context) (ranker.EvalOptions, error) {
	kinds, err := parseMetrics("metrics", c.String("metrics"))
	if err != nil {
		return ranker.EvalOptions{}, err
	}
	method, err := ranker.ParseSlateMethod(c.String("slate"))
	if err != nil {
		return ranker.EvalOptions{}, fmt.Errorf("--slate: %w", err)
	}
	if c.IsSet("slots") && c.Int("slots") < 1 {
		return ranker.EvalOptions{}, fmt.Errorf("--slots must be ≥ 1, not %d", c.Int("slots"))
	}
	if c.Int("random-samples") < 1 {
		return ranker.EvalOptions{}, fmt.Errorf("--random-samples must be ≥ 1, not %d", c.Int("random-samples"))
	}
	return ranker.EvalOptions{
		Slots:         c.Int("slots"),
		Slate:         method,
		Metrics:       kinds,
		RandomSamples: c.Int("random-samples"),
		Seed:          c.Uint64("seed"),
		Threads:       c.Int("threads"),
	}, nil
}

// rankConventions reads the conventions of rank: without --maxrel (or
// with 0), a --data file of a fold of a LETOR dataset takes the maxrel piopt
// experiment settles for the whole dataset, saying so on stderr, so that
// rank and experiment score ERR alike; any other file takes its own highest
// grade, as every command does.
func rankConventions(c *cli.Context, ds *data.Dataset) (eval.Conventions, error) {
	conv, err := conventions(c, ds)
	if err != nil || c.Int("maxrel") != 0 {
		return conv, err
	}
	mr, note, ok, err := experiment.FoldMaxRel(c.Context, c.String("data"), ds.MaxLabel(), c.Int("max-label"))
	if err != nil || !ok {
		return conv, err
	}
	conv.MaxRel = mr
	fmt.Fprintln(c.App.ErrWriter, note)
	return conv, nil
}

// rankModels loads --model and, when given, --sup-model after it.
func rankModels(c *cli.Context) ([]*ranker.Model, error) {
	model, err := ranker.LoadModel(c.String("model"))
	if err != nil {
		return nil, err
	}
	models := []*ranker.Model{model}
	if p := c.String("sup-model"); p != "" {
		sup, err := ranker.LoadModel(p)
		if err != nil {
			return nil, err
		}
		if sup.Meta().Kind == features.KindPIOPT {
			return nil, fmt.Errorf("--sup-model %s is a PI-OPT model; give it as --model", p)
		}
		models = append(models, sup)
	}
	return models, nil
}

// writeRankFiles writes the files asked for: --out, the TREC run of the
// model of the given kind; --per-query; --json, the summary.
func writeRankFiles(c *cli.Context, ds *data.Dataset, rep *ranker.Report, kind string) error {
	if p := c.String("out"); p != "" {
		if err := writeAtomic(p, func(w io.Writer) error { return ranker.WriteRun(w, ds, rep.Rankings[kind], "piopt") }); err != nil {
			return err
		}
	}
	if p := c.String("per-query"); p != "" {
		if err := writeAtomic(p, func(w io.Writer) error { return ranker.WritePerQuery(w, ds, rep) }); err != nil {
			return err
		}
	}
	if p := c.String("json"); p != "" {
		return writeJSON(p, rep)
	}
	return nil
}
