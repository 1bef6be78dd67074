package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/piopt/piopt/internal/offpolicy"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/trainer"
	"github.com/urfave/cli/v2"
)

// opeFlags are the flags evaluate and evaluate-sweep share.
func opeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "target", Required: true, Usage: "target policy `SPEC`: its top L candidates (feature:K, model:PATH, tree:SUBSET[@DEPTH], lasso:SUBSET[@L1])"},
		&cli.StringFlag{Name: "slate", Value: "greedy", Usage: "`METHOD` of a PI-OPT model target's slates: greedy or exact"},
		&cli.StringFlag{Name: "estimators", Value: "pi,wpi,ips,wips,dm,onpolicy", Usage: "comma-separated `LIST` of pi, wpi, ips, wips, dm (tree), dm-linear (lasso), dm[-linear]-clip, onpolicy, or all"},
		&cli.IntFlag{Name: "dm-depth", Value: policy.DefaultTreeDepth, Usage: "`DEPTH` of DM's regression tree"},
		&cli.Float64Flag{Name: "dm-l1", Value: policy.DefaultLassoL1, Usage: "L1 weight `W` of DM's lasso"},
		&cli.StringFlag{Name: "policy-data", Usage: "labelled `FILE` the tree:/lasso: rankers are fitted on (default: --data)"},
		&cli.IntFlag{Name: "threads", Usage: "`N` threads; results do not depend on it", DefaultText: "all cores"},
	}
}

// dropDMWithoutCgo removes the DM estimators from a build without cgo
// (they train on XGBoost) and says so, so the others still run.
func dropDMWithoutCgo(est *offpolicy.Estimators) {
	if trainer.Available || len(est.DM) == 0 {
		return
	}
	fmt.Fprintf(os.Stderr, "piopt: warning: DM left out: %v\n", trainer.ErrNoCgo)
	est.DM = nil
}

// opeRegressors returns DM's regression models fitted with the given
// XGBoost threads (0: all cores).
func opeRegressors(c *cli.Context, threads int) map[string]offpolicy.Regressor {
	return policy.DMRegressors(policy.DMOptions{Depth: c.Int("dm-depth"), L1: c.Float64("dm-l1"),
		Threads: threads, Seed: c.Uint64("seed")})
}

// opePolicyOptions reads --policy-data.
func opePolicyOptions(c *cli.Context) (policy.Options, error) {
	opt := policy.Options{Threads: c.Int("threads"), Seed: c.Uint64("seed")}
	if p := c.String("policy-data"); p != "" {
		ds, err := loadFile(c, p)
		if err != nil {
			return opt, err
		}
		opt.Train = ds
	}
	return opt, nil
}

// commandLine returns the command as run, for reports.
func commandLine() string {
	args := make([]string, len(os.Args))
	for i, a := range os.Args {
		if i == 0 {
			a = filepath.Base(a)
		}
		if strings.ContainsAny(a, " \t'\"$") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		args[i] = a
	}
	return strings.Join(args, " ")
}
