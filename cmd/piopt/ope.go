package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/ranker"
	"github.com/piopt/piopt/trainer"
	"github.com/urfave/cli/v2"
)

// opeFlags are the flags evaluate and evaluate-sweep share.
func opeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "target", Required: true, Usage: "target policy `SPEC`: its top L candidates (feature:K, model:PATH, tree:SUBSET[@DEPTH], lasso:SUBSET[@L1])"},
		&cli.StringFlag{Name: "slate", Value: "greedy", Usage: "`METHOD` of a PI-OPT model target's slates: greedy or exact"},
		&cli.StringFlag{Name: "estimators", Value: "pi,wpi,ips,wips,dm,onpolicy", Usage: "comma-separated `LIST` of pi, wpi, pi-cv (PI with a control variate), dr, wdr (doubly-robust PI and its self-normalised form), ips, wips, dm (tree), dm-linear (lasso), dm[-linear]-clip, onpolicy, or all"},
		&cli.IntFlag{Name: "cv-folds", Value: ope.DefaultCVFolds, Usage: "pi-cv's cross-fitting folds `K`: sample i's coefficient is estimated on the folds other than i mod K (1: in-sample, slightly biased)"},
		&cli.StringFlag{Name: "baseline", Value: policy.Crossfit, Usage: "dr's and wdr's reward model `SPEC`: crossfit (PI-OPT's regression fitted on the log itself, each fold evaluated with the model of the others) or model:PATH (a PI-OPT model trained on other data)"},
		&cli.IntFlag{Name: "baseline-folds", Value: ope.DefaultBaselineFolds, Usage: "cross-fitting folds `K` of --baseline crossfit: sample i is evaluated with the model fitted on the samples of the other folds (i mod K)"},
		&cli.IntFlag{Name: "dm-depth", Value: policy.DefaultTreeDepth, Usage: "`DEPTH` of DM's regression tree"},
		&cli.Float64Flag{Name: "dm-l1", Value: policy.DefaultLassoL1, Usage: "L1 weight `W` of DM's lasso"},
		&cli.StringFlag{Name: "policy-data", Usage: "labelled `FILE` the tree:/lasso: rankers are fitted on (default: --data)"},
		&cli.IntFlag{Name: "threads", Usage: "`N` threads; results do not depend on it", DefaultText: "all cores"},
	}
}

// checkOPEFlags checks the DM flags evaluate and evaluate-sweep share,
// before any work: XGBoost would refuse them only after the log is read.
// (--threads is checked for every command by checkBeforeWork.)
func checkOPEFlags(c *cli.Context) error {
	switch l1 := c.Float64("dm-l1"); {
	case c.Int("cv-folds") < 1:
		return fmt.Errorf("--cv-folds %d: must be ≥ 1", c.Int("cv-folds"))
	case c.Int("baseline-folds") < 2:
		return fmt.Errorf("--baseline-folds %d: cross-fitting needs at least 2 folds", c.Int("baseline-folds"))
	case c.String("baseline") != policy.Crossfit && !strings.HasPrefix(c.String("baseline"), "model:"):
		return fmt.Errorf("--baseline %q: want %s or model:PATH", c.String("baseline"), policy.Crossfit)
	case c.Int("dm-depth") < 1:
		return fmt.Errorf("--dm-depth %d: must be ≥ 1", c.Int("dm-depth"))
	case !(l1 >= 0) || math.IsInf(l1, 0):
		return fmt.Errorf("--dm-l1 %g: must be a finite number ≥ 0", l1)
	}
	return nil
}

// opeEstimators reads --estimators. A build without cgo leaves out the DM
// estimators and dr's cross-fitted baseline (they train on XGBoost) and
// says so, so the others still run.
func opeEstimators(c *cli.Context) (ope.Estimators, error) {
	est, err := ope.ParseEstimators(c.String("estimators"))
	if err != nil {
		return est, fmt.Errorf("--estimators: %w", err)
	}
	if !trainer.Available && len(est.DM) > 0 {
		fmt.Fprintf(os.Stderr, "piopt: warning: DM left out: %v\n", trainer.ErrNoCgo)
		est.DM = nil
	}
	if !trainer.Available && est.Baseline() && c.String("baseline") == policy.Crossfit {
		fmt.Fprintf(os.Stderr, "piopt: warning: dr and wdr left out (their cross-fitted baseline trains with XGBoost; --baseline model:PATH works): %v\n", trainer.ErrNoCgo)
		est.DR, est.WDR = false, false
	}
	return est, nil
}

// opePolicies builds the logging setup's candidates and, over them, the
// --target policy: the two policies evaluate and evaluate-sweep compare.
func opePolicies(c *cli.Context, ds *data.Dataset, ls policy.Setup, method ranker.SlateMethod, popt policy.Options) (*impute.Candidates, *impute.GammaCache, *ope.Target, error) {
	cands, gammas, err := ls.Policies(c.Context, ds, popt, impute.GammaOptions{Seed: c.Uint64("seed")})
	if err != nil {
		return nil, nil, nil, err
	}
	target, err := policy.ResolveTarget(c.Context, c.String("target"), cands, ls.Slots, method, popt)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--target: %w", err)
	}
	return cands, gammas, target, nil
}

// opePrepare prepares the estimators' plan for target against the logging
// setup ls, with Γ seeded by --seed. A non-nil metric scores slates with the
// dataset's labels (the true value, and the rewards of simulated logs).
func opePrepare(c *cli.Context, ls policy.Setup, cands *impute.Candidates, gammas *impute.GammaCache, target *ope.Target, metric *eval.Metric) (*ope.Plan, error) {
	setup := ope.Setup{Candidates: cands, Gammas: gammas, Slots: ls.Slots, Target: target, Threads: c.Int("threads")}
	if metric != nil {
		setup.Scorer = eval.NewScorer(*metric, cands.Labels(), cands.Offsets())
	}
	return ope.Prepare(c.Context, setup)
}

// opeRegressors returns DM's regression models fitted with the given
// XGBoost threads (0: the idle cores).
func opeRegressors(c *cli.Context, threads int) map[string]ope.Regressor {
	return policy.DMRegressors(policy.DMOptions{Depth: c.Int("dm-depth"), L1: c.Float64("dm-l1"),
		Threads: threads, Seed: c.Uint64("seed")})
}

// opeBaseline reads --baseline and --baseline-folds for dr and wdr (the
// zero Baseline when neither is estimated): the cross-fitted regression's
// XGBoost gets threads threads (0: the idle cores).
func opeBaseline(c *cli.Context, est ope.Estimators, plan *ope.Plan, threads int) (ope.Baseline, error) {
	if !est.DR && !est.WDR {
		return ope.Baseline{}, nil
	}
	opt := policy.DefaultBaselineOptions()
	opt.Threads, opt.Seed = threads, c.Uint64("seed")
	return policy.ResolveBaseline(c.Context, c.String("baseline"), c.Int("baseline-folds"), plan.Candidates, plan.Slots, opt)
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
