package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/internal/lab/experiment"
	"github.com/piopt/piopt/internal/pipeline"
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
	cfg, err := rankConfig(c)
	if err != nil {
		return err
	}
	rep, err := pipeline.Rank(c.Context, cfg)
	if err != nil {
		return err
	}
	return rep.WriteTable(os.Stdout)
}

// rankConfig reads rank's flags. Without --maxrel (or with 0), a --data
// file of a fold of a LETOR dataset takes the maxrel piopt experiment
// settles for the whole dataset, so that rank and experiment score ERR
// alike.
func rankConfig(c *cli.Context) (pipeline.RankConfig, error) {
	cfg := pipeline.RankConfig{Data: c.String("data"), Model: c.String("model"), SupModel: c.String("sup-model"),
		Slots: c.Int("slots"), Seed: c.Uint64("seed"), Threads: c.Int("threads"),
		Out: c.String("out"), JSON: c.String("json"), PerQuery: c.String("per-query"),
		FoldMaxRel: experiment.FoldMaxRel, Progress: os.Stderr, Log: c.App.ErrWriter}
	var err error
	if cfg.Metrics, err = parseMetrics("metrics", c.String("metrics")); err != nil {
		return cfg, err
	}
	if cfg.Slate, err = ranker.ParseSlateMethod(c.String("slate")); err != nil {
		return cfg, fmt.Errorf("--slate: %w", err)
	}
	if c.IsSet("slots") && cfg.Slots < 1 {
		return cfg, fmt.Errorf("--slots must be ≥ 1, not %d", cfg.Slots)
	}
	if cfg.Read, err = readOptions(c); err != nil {
		return cfg, err
	}
	cfg.Conventions, err = conventions(c)
	return cfg, err
}
