package main

import (
	"fmt"
	"os"

	"github.com/piopt/piopt/internal/pipeline"
	"github.com/piopt/piopt/ope"
	"github.com/urfave/cli/v2"
)

// shardFlags reads --shard and --partial: --partial needs --shard and
// replaces out (the flag a whole run writes), which may not be given too.
func shardFlags(c *cli.Context, out string) (pipeline.Shard, string, error) {
	var s pipeline.Shard
	partial := c.String("partial")
	if c.IsSet("shard") {
		var err error
		if s, err = pipeline.ParseShard(c.String("shard")); err != nil {
			return s, "", err
		}
	}
	switch {
	case c.IsSet("partial") && !s.On():
		return s, "", fmt.Errorf("--partial writes a shard's partial file: give --shard I/N too (--shard 1/1 for the whole log)")
	case c.IsSet("partial") && partial == "":
		return s, "", fmt.Errorf("--partial: empty file name")
	case c.IsSet("partial") && c.IsSet(out[2:]):
		return s, "", fmt.Errorf("give %s or --partial, not both: a shard writes its partial file, piopt merge the %s", out, out)
	}
	return s, partial, nil
}

func mergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "merge the partial files of a sharded impute or evaluate into the unsharded output",
		ArgsUsage: "PARTIAL...",
		Description: `merge reads the partial files that every shard of a run wrote
(impute --shard I/N --partial FILE, or evaluate --shard I/N --partial FILE)
and writes what the unsharded run writes, byte for byte: with --out the
targets file of impute, with --json the estimates of evaluate. It refuses a
missing or repeated shard, partials of another run, policy file or setting
(naming both files and the key) and a partial changed after it was written
(its checksum). See docs/distributed.md.

   piopt merge --out train.targets parts/train.*.partial
   piopt merge --json est.json parts/eval.*.partial`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "targets `FILE` to write from impute partials"},
			&cli.StringFlag{Name: "json", Usage: "estimates JSON `FILE` to write from evaluate partials"},
		},
		Action: runMerge,
	}
}

func runMerge(c *cli.Context) error {
	paths := c.Args().Slice()
	if len(paths) == 0 {
		return fmt.Errorf("give the partial files to merge")
	}
	var res *pipeline.MergeResult
	var err error
	switch {
	case c.IsSet("out") == c.IsSet("json"):
		return fmt.Errorf("give --out TARGETS (impute partials) or --json FILE (evaluate partials)")
	case c.IsSet("out"):
		res, err = pipeline.MergeTargets(paths, c.String("out"))
	default:
		res, err = pipeline.MergeEstimates(c.Context, paths, c.String("json"))
	}
	if err != nil {
		return err
	}
	res.WriteSummary(os.Stderr)
	return nil
}

// shardable leaves out of a default estimator list those a shard cannot
// evaluate: DM, dr and wdr fit models on the whole log.
func shardable(est ope.Estimators) ope.Estimators {
	est.DM, est.DR, est.WDR = nil, false, false
	return est
}
