package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/internal/pipeline"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/ope"
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
		baselineFlag("dr's and wdr's reward model"),
		baselineFoldsFlag(ope.DefaultBaselineFolds, "sample i is evaluated with the model fitted on the samples of the other folds (i mod K)"),
		&cli.IntFlag{Name: "dm-depth", Value: policy.DefaultTreeDepth, Usage: "`DEPTH` of DM's regression tree"},
		&cli.Float64Flag{Name: "dm-l1", Value: policy.DefaultLassoL1, Usage: "L1 weight `W` of DM's lasso"},
		&cli.StringFlag{Name: "policy-data", Usage: "labelled `FILE` the tree:/lasso: rankers are fitted on (default: --data)"},
		&cli.IntFlag{Name: "threads", Usage: "`N` threads; results do not depend on it", DefaultText: "all cores"},
	}
}

// targetFlags are evaluate's flags: the shared ones, whose --target is
// one of three ways to give the target, and the two others.
func targetFlags(shared []cli.Flag) []cli.Flag {
	out := make([]cli.Flag, 0, len(shared)+2)
	for _, f := range shared {
		if f.Names()[0] == "target" {
			f = &cli.StringFlag{Name: "target", Usage: "target policy `SPEC`: its top L candidates (feature:K, model:PATH, tree:SUBSET[@DEPTH], lasso:SUBSET[@L1]), or a TREC run's ranking (run:FILE); or give --target-policy or --target-scores"}
			out = append(out, f,
				&cli.StringFlag{Name: "target-policy", Usage: "target policy per context from a policy `FILE` (the logging policy file's format, plus rank · d1,d2,…; a QID line serves every QID@TAG without one)"},
				&cli.StringFlag{Name: "target-scores", Usage: "target from a scores `FILE` of context·doc·score lines: each context's top L candidates by score, ties by document id"})
			continue
		}
		out = append(out, f)
	}
	return out
}

// targetSpec reads the target from --target, --target-policy or
// --target-scores: exactly one of them.
func targetSpec(c *cli.Context) (string, error) {
	var given []string
	for _, f := range []struct{ flag, prefix string }{{"target", ""}, {"target-policy", policy.PolicyTargetKind + ":"}, {"target-scores", policy.ScoresTargetKind + ":"}} {
		if v := c.String(f.flag); v != "" {
			given = append(given, f.prefix+v)
		}
	}
	if len(given) == 0 && data.IsRowLog(c.String("logs")) {
		return "", nil // the rows' own targets, when they carry them
	}
	if len(given) != 1 {
		return "", fmt.Errorf("give one target: --target SPEC, --target-policy FILE or --target-scores FILE (a target is %s)", policy.TargetKinds)
	}
	return given[0], nil
}

// checkOPEFlags checks the DM flags evaluate and evaluate-sweep share,
// before any work: XGBoost would refuse them only after the log is read.
// (--threads is checked for every command by checkBeforeWork.)
func checkOPEFlags(c *cli.Context) error {
	if c.Int("cv-folds") < 1 {
		return fmt.Errorf("--cv-folds %d: must be ≥ 1", c.Int("cv-folds"))
	}
	if err := checkBaselineFlags(c); err != nil {
		return err
	}
	switch l1 := c.Float64("dm-l1"); {
	case c.Int("dm-depth") < 1:
		return fmt.Errorf("--dm-depth %d: must be ≥ 1", c.Int("dm-depth"))
	case !(l1 >= 0) || math.IsInf(l1, 0):
		return fmt.Errorf("--dm-l1 %g: must be a finite number ≥ 0", l1)
	}
	return nil
}

// baselineFlag is --baseline, the reward model φ̄ of dr and wdr
// (evaluate) and of doubly-robust targets (impute): what names its user.
func baselineFlag(what string) cli.Flag {
	return &cli.StringFlag{Name: "baseline", Value: policy.Crossfit, Usage: what + " `SPEC`: crossfit (PI-OPT's regression fitted on the log itself, each fold evaluated with the model of the others) or model:PATH (a PI-OPT model trained on other data)"}
}

// baselineFoldsFlag is --baseline-folds, defaulting to k; split says how
// the log is split into folds.
func baselineFoldsFlag(k int, split string) cli.Flag {
	return &cli.IntFlag{Name: "baseline-folds", Value: k, Usage: "cross-fitting folds `K` of --baseline crossfit: " + split}
}

// checkBaselineFlags checks --baseline-folds and --baseline before any
// work.
func checkBaselineFlags(c *cli.Context) error {
	switch {
	case c.Int("baseline-folds") < 2:
		return fmt.Errorf("--baseline-folds %d: cross-fitting needs at least 2 folds", c.Int("baseline-folds"))
	case c.String("baseline") != policy.Crossfit && !strings.HasPrefix(c.String("baseline"), "model:"):
		return fmt.Errorf("--baseline %q: want %s or model:PATH", c.String("baseline"), policy.Crossfit)
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

// intervals reads --delta, --reward-range and --bootstrap, and between the
// last two the fraction flag share when not "" (evaluate's --dm-train).
func intervals(c *cli.Context, share string) (ope.Intervals, error) {
	delta := c.Float64("delta")
	if !(delta > 0 && delta < 1) {
		return ope.Intervals{}, fmt.Errorf("--delta %g: must lie in (0, 1)", delta)
	}
	lo, hi, err := parseRange(c.String("reward-range"))
	if err != nil {
		return ope.Intervals{}, err
	}
	if frac := c.Float64(share); share != "" && !(frac > 0 && frac < 1) {
		return ope.Intervals{}, fmt.Errorf("--%s %g: must lie in (0, 1)", share, frac)
	}
	if c.Int("bootstrap") < 0 {
		return ope.Intervals{}, fmt.Errorf("--bootstrap %d: must be ≥ 0", c.Int("bootstrap"))
	}
	return ope.Intervals{Delta: delta, Bootstrap: c.Int("bootstrap"), Seed: c.Uint64("seed"), RewardLo: lo, RewardHi: hi}, nil
}

// parseRange reads --reward-range LO,HI.
func parseRange(s string) (lo, hi float64, err error) {
	a, b, ok := strings.Cut(s, ",")
	if ok {
		lo, err = strconv.ParseFloat(strings.TrimSpace(a), 64)
		if err == nil {
			hi, err = strconv.ParseFloat(strings.TrimSpace(b), 64)
		}
	}
	if !ok || err != nil || !(lo < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return 0, 0, fmt.Errorf("--reward-range %q: want LO,HI with LO < HI", s)
	}
	return lo, hi, nil
}

// dmOptions reads --dm-depth and --dm-l1.
func dmOptions(c *cli.Context) policy.DMOptions {
	return policy.DMOptions{Depth: c.Int("dm-depth"), L1: c.Float64("dm-l1")}
}

// statedConventions are the metric-convention flags given explicitly.
func statedConventions(c *cli.Context) []pipeline.StatedFlag {
	var out []pipeline.StatedFlag
	for _, f := range []string{"discount", "empty-ndcg", "maxrel"} {
		if c.IsSet(f) {
			out = append(out, pipeline.StatedFlag{Flag: f, Value: c.String(f)})
		}
	}
	return out
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
