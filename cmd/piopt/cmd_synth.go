package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/piopt/piopt/data/synth"
	"github.com/piopt/piopt/internal/progress"
	"github.com/urfave/cli/v2"
)

func synthCommand() *cli.Command {
	return &cli.Command{
		Name:  "synth",
		Usage: "generate MSLR-WEB10K-shaped folds with a hidden relevance model",
		Description: `Writes OUT/S1.txt..S5.txt (five partitions of the queries) and
OUT/Fold1..Fold5/{train,vali,test}.txt rotating as MSLR-WEB10K does: FoldK
trains on SK, SK+1, SK+2, validates on SK+3 and tests on SK+4 (mod 5), so
Fold1 = S1+S2+S3 / S4 / S5 and Fold2 = S2+S3+S4 / S5 / S1.

Lines are LETOR text with MSLR's 136 features (25 groups × body, anchor,
title, url, whole-document streams, then 11 document-level features), grades
0..4 near MSLR-WEB10K's 52/32/13/2/1 %, and about 120 documents per query
(at most 908). Grades come from a hidden relevance model that no single
feature shows (see the package doc of data/synth). The same --seed gives
byte-identical files on any number of cores.

--queries 1000 (the default) is about 120,000 documents: 140 MB of partitions
and 830 MB over all 20 files, written in seconds. --queries 10000 is
MSLR-WEB10K's size: 1.2 M documents, 8.6 GB over all files, under a minute.
A small set to try the other commands on (6,000 documents, 40 MB):

   piopt synth --out folds --queries 50
   piopt stats folds/Fold1/train.txt`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Required: true, Usage: "output `DIR`"},
			&cli.IntFlag{Name: "queries", Value: synth.DefaultQueries, Usage: "number of queries `N` over the five partitions (10000: MSLR-WEB10K size)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random `SEED`; the same seed gives the same bytes"},
			&cli.IntFlag{Name: "threads", Usage: "generator threads `N`; does not change the output", DefaultText: "all cores"},
		},
		Action: func(c *cli.Context) error {
			start := time.Now()
			n := c.Int("queries")
			bar := progress.New(os.Stderr, "synth", int64(n), "queries")
			var last int
			cfg := synth.Config{Queries: n, Seed: c.Uint64("seed"), Threads: c.Int("threads"),
				Progress: func(done, _ int) {
					bar.Add(int64(done - last))
					last = done
				}}
			res, err := synth.Generate(c.Context, c.String("out"), cfg)
			bar.Done()
			if err != nil {
				return err
			}
			w := c.App.Writer
			for _, f := range res.Files {
				rel, err := filepath.Rel(c.String("out"), f.Path)
				if err != nil {
					rel = f.Path
				}
				fmt.Fprintf(w, "%-16s %13d bytes\n", rel, f.Bytes)
			}
			fmt.Fprintf(w, "wrote %d queries, %d documents (%.1f per query) in %d files, %d bytes, under %s in %.1fs\n",
				res.Queries, res.Docs, float64(res.Docs)/float64(res.Queries), len(res.Files), res.Bytes,
				c.String("out"), time.Since(start).Seconds())
			return nil
		},
	}
}
