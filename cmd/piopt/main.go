package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
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
		Commands:              commands(),
		Version:               pioptVersion(),
		EnableBashCompletion:  true,
		OnUsageError:          onUsageError,
		Action:                rootAction,
		CustomAppHelpTemplate: appHelpTemplate(),
	}
	for _, cmd := range app.Commands {
		req := takeRequired(cmd)
		cmd.Before = func(c *cli.Context) error {
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
// then moves their required flags' checks to checkRequired), each in its
// group of piopt --help: the commands of the library's use, and the paper's
// lab (experiment, evaluate-sweep, evaluate-grid), which reproduces the
// paper's tables and figures.
func commands() []*cli.Command {
	cmds := []*cli.Command{
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
		mergeCommand(),
	}
	for _, c := range cmds {
		c.Category = categoryUse
		if paperCommands[c.Name] {
			c.Category = categoryPaper
		}
		c.CustomHelpTemplate = commandHelpTemplate(c)
	}
	return cmds
}

// commandHelpTemplate is urfave/cli's help of c without the CATEGORY
// section it gives a command in a group: the groups are piopt --help's
// table of contents, not part of a command's own help.
func commandHelpTemplate(c *cli.Command) string {
	t := cli.CommandHelpTemplate
	if len(c.Subcommands) > 0 {
		t = cli.SubcommandHelpTemplate
	}
	return strings.Replace(t, "{{if .Category}}\n\nCATEGORY:\n   {{.Category}}{{end}}", "", 1)
}

// The groups of piopt --help, in their order there.
const (
	categoryUse   = "use"
	categoryPaper = "reproduce the paper"
)

// paperCommands are the commands of the paper's lab (internal/lab).
var paperCommands = map[string]bool{"experiment": true, "evaluate-sweep": true, "evaluate-grid": true}

// appHelpTemplate is urfave/cli's help of piopt itself with the commands in
// their groups, "use" first, then the paper's, a blank line between: urfave/cli
// sorts the groups by name, and lists those without one (its help command)
// first. The help command closes the "use" group.
func appHelpTemplate() string {
	const commandLines = `{{range .VisibleCommands}}
     {{join .Names ", "}}{{"\t"}}{{.Usage}}{{end}}`
	group := func(name, more string) string {
		return fmt.Sprintf(`{{range .VisibleCategories}}{{if eq .Name %q}}
   {{.Name}}:%s{{end}}{{end}}%s`, name, commandLines, more)
	}
	ungrouped := fmt.Sprintf(`{{range .VisibleCategories}}{{if eq .Name ""}}%s{{end}}{{end}}`, commandLines)
	groups := group(categoryUse, ungrouped) + "\n" + group(categoryPaper, "")
	return strings.Replace(cli.AppHelpTemplate, `{{template "visibleCommandCategoryTemplate" .}}`, groups, 1)
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
	if err := run(ctx, newApp(), os.Args); err != nil {
		fmt.Fprintln(os.Stderr, errorLine(err))
		os.Exit(1)
	}
}

// run runs app on the command line args (program name first) once
// checkArgs has found no flag to refuse in it.
func run(ctx context.Context, app *cli.App, args []string) error {
	if err := checkArgs(app, args[1:]); err != nil {
		return err
	}
	return app.RunContext(ctx, args)
}

// checkBeforeWork runs, for every command, the checks that need no input
// read: a run never spends minutes and then fails on what it could have
// refused at start.
func checkBeforeWork(c *cli.Context) error {
	if c.IsSet("threads") && c.Int("threads") < 0 {
		return fmt.Errorf("--threads %d: must be ≥ 0 (0: all cores)", c.Int("threads"))
	}
	if err := checkCounts(c); err != nil {
		return err
	}
	if err := checkMaxLabel(c); err != nil {
		return err
	}
	if _, err := docIDsFlag(c); err != nil {
		return err
	}
	return checkOutputs(c)
}
