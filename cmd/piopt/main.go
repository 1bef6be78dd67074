package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/piopt/piopt/trainer/xgboost"
	"github.com/urfave/cli/v2"
)

func newApp() *cli.App {
	app := &cli.App{
		Name:  "piopt",
		Usage: "learn and evaluate rankings from page-level rewards (pseudoinverse estimator)",
		Description: `piopt turns logged slates with one page-level reward each into per-(slot, doc)
regression targets with the pseudoinverse (PI) estimator, trains gradient-boosted
trees on them, ranks, and evaluates ranking policies off-policy.

A typical run on LETOR folds (MSLR-WEB10K layout: FoldK/{train,vali,test}.txt):

   piopt synth --out folds                  # or bring MSLR-WEB10K
   piopt simulate --data folds/Fold1/train.txt --slots 3 --metric ndcg \
                  --logging uniform --samples 1000000 --out train.log
   piopt impute --data folds/Fold1/train.txt --logs train.log --slots 3 \
                --logging uniform --out train.targets
   piopt train --data folds/Fold1/train.txt --targets train.targets --out pi.model
   piopt train --sup --data folds/Fold1/train.txt --out sup.model
   piopt rank --data folds/Fold1/test.txt --model pi.model --sup-model sup.model \
              --slots 3 --out test.run --json summary.json

or all of it, over every fold, with one command:

   piopt experiment --folds folds --slots 3 --out results

In every file a doc is its 0-based position inside its query's block of the
dataset file (with --doc-ids comment, the id in its line's comment), a query
is its raw qid, and a slot is 1-based.`,
		Commands:             commands(),
		Version:              pioptVersion(),
		EnableBashCompletion: true,
		OnUsageError:         onUsageError,
		Action:               rootAction,
	}
	for _, cmd := range app.Commands {
		req, renamed := takeRequired(cmd), addRenamed(cmd)
		cmd.Before = func(c *cli.Context) error {
			if err := keepRenamed(c, renamed); err != nil {
				return err
			}
			if err := checkRequired(c, req); err != nil {
				return err
			}
			return checkBeforeWork(c)
		}
		cmd.OnUsageError = onUsageError
	}
	return app
}

// commands are piopt's commands, as their constructors build them (newApp
// then moves their required flags' checks to checkRequired).
func commands() []*cli.Command {
	return []*cli.Command{
		synthCommand(),
		statsCommand(),
		simulateCommand(),
		imputeCommand(),
		trainCommand(),
		predictCommand(),
		rankCommand(),
		experimentCommand(),
		evaluateCommand(),
		evaluateSweepCommand(),
		evaluateGridCommand(),
		selectCommand(),
		cacheCommand(),
	}
}

// gcPercent is piopt's GOGC unless the environment sets one. piopt's heap
// is a few large pointer-free arrays (features, labels, targets) that a
// collection does not scan, so collecting when garbage reaches a quarter
// of what is live, rather than Go's default of all of it, costs little CPU
// and keeps up to a dataset's size of garbage (650 MB for an MSLR-WEB10K
// training fold) out of the peak.
const gcPercent = 25

func main() {
	xgboost.LimitOpenMPSpin()
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newApp().RunContext(ctx, os.Args); err != nil {
		fmt.Fprintln(os.Stderr, errorLine(err))
		os.Exit(1)
	}
}

// checkBeforeWork runs, for every command, the checks that need no input
// read: a run never spends minutes and then fails on what it could have
// refused at start.
func checkBeforeWork(c *cli.Context) error {
	if c.IsSet("threads") && c.Int("threads") < 0 {
		return fmt.Errorf("--threads %d: must be ≥ 0 (0: all cores)", c.Int("threads"))
	}
	if _, err := docIDsFlag(c); err != nil {
		return err
	}
	return checkOutputs(c)
}
