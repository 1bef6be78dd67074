package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/data/atomicfile"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/offpolicy"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/internal/progress"
	"github.com/piopt/piopt/ranker"
	"github.com/urfave/cli/v2"
)

func evaluateCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "data", Required: true, Usage: "LETOR `FILE` the log's queries and documents refer to"},
		&cli.StringFlag{Name: "logs", Required: true, Usage: "slate log `FILE` (piopt-log v1; gzip allowed)"},
		&cli.IntFlag{Name: "slots", Usage: "slate length `L`", DefaultText: "the log's header"},
		&cli.StringFlag{Name: "logging", Usage: "logging policy `SPEC` that drew the log (default: the log's header)"},
		&cli.StringFlag{Name: "rank-by", Usage: "rank source `SPEC` of the logging policy (default: the log's header)"},
		&cli.IntFlag{Name: "candidates", Usage: "candidates `M` per query of the logging policy", DefaultText: "the log's header"},
		&cli.StringFlag{Name: "metric", Usage: "reward `METRIC` of the log, ndcg or err, for onpolicy (default: the log's header)"},
		&cli.Float64Flag{Name: "delta", Value: 0.05, Usage: "every interval holds with probability ≥ 1 − `DELTA`"},
		&cli.IntFlag{Name: "bootstrap", Value: 200, Usage: "Poisson-bootstrap `REPLICATES` (0: no bootstrap interval)"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "`SEED` of the bootstrap and of training"},
		&cli.StringFlag{Name: "reward-range", Value: "0,1", Usage: "`LO,HI` bounding every reward (the intervals assume it; NDCG and ERR: 0,1)"},
		&cli.Float64Flag{Name: "dm-train", Value: 0.5, Usage: "`FRACTION` of the log (its first part) DM trains on; it is evaluated on the rest"},
		&cli.StringFlag{Name: "json", Usage: "write the estimates as JSON to `FILE`: one object per estimator keyed by its name (pi, wpi, ips, wips, dm, onpolicy), each with value, n, intervals, weight diagnostics and the setup"},
	}
	return &cli.Command{
		Name:  "evaluate",
		Usage: "estimate a ranking policy's value from a slate log (PI, wPI, IPS, wIPS, DM) with error bars",
		Description: `evaluate answers "what would this ranker score if I deployed it?" from a log
of slates drawn by another policy, each with one page-level reward. The target
policy shows its top L candidates (--target: feature:K, model:PATH — a PI-OPT
model builds its slot-action slates —, tree:SUBSET or lasso:SUBSET fitted to the
labels). The logging policy, its rank source, the candidates and the slots come
from the log's header (flags must agree with it).

   piopt evaluate --data Fold1/test.txt --logs test.log --target model:pi.model \
                  --estimators pi,wpi,ips,wips,dm --delta 0.05 --json est.json

Every estimate comes with the Bernstein interval of the paper's Theorem 1 (σ²
averaged over the log's contexts, ρ exact over the dataset's queries; for wPI
and wIPS its self-normalised form), Maurer and Pontil's empirical-Bernstein
interval and a seeded Poisson-bootstrap percentile interval, each at level
1 − DELTA, and with weight diagnostics: the share of negative PI weights,
the effective sample size (Σw)²/Σw², max |w| and the conditioning of every Γ.
onpolicy is the true value on the log's contexts from the dataset's labels
(semi-synthetic logs). The log is streamed: memory does not grow with it,
except for the part DM trains on.`,
		Flags:  append(append(append(flags, opeFlags()...), dataFlags()...), conventionFlags()...),
		Action: runEvaluate,
	}
}

// logMetric returns the log's reward metric with its conventions: flags
// when set, else the header's, else the defaults. ok is false when the
// log names no metric.
func logMetric(c *cli.Context, h data.Header, name string, slots int, ds *data.Dataset) (eval.Metric, bool, error) {
	if name == "" {
		return eval.Metric{}, false, nil
	}
	kindName, _, _ := strings.Cut(name, "@")
	kind, err := eval.ParseKind(kindName)
	if err != nil {
		return eval.Metric{}, false, fmt.Errorf("log metric: %w", err)
	}
	conv, err := conventions(c, ds)
	if err != nil {
		return eval.Metric{}, false, err
	}
	if v := h["discount"]; v != "" && !c.IsSet("discount") {
		if conv.Discount, err = eval.ParseDiscount(v); err != nil {
			return eval.Metric{}, false, fmt.Errorf("log header: %w", err)
		}
	}
	if v, ok, err := h.Int("empty-query-ndcg"); err == nil && ok && !c.IsSet("empty-ndcg") {
		conv.EmptyOne = v == 1
	}
	if v, ok, err := h.Int("err-maxrel"); err == nil && ok && !c.IsSet("maxrel") {
		conv.MaxRel = v
	}
	return eval.Metric{Kind: kind, K: slots, Conventions: conv}, true, nil
}

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

func runEvaluate(c *cli.Context) error {
	ctx := c.Context
	est, err := offpolicy.ParseEstimators(c.String("estimators"))
	if err != nil {
		return fmt.Errorf("--estimators: %w", err)
	}
	dropDMWithoutCgo(&est)
	delta := c.Float64("delta")
	if !(delta > 0 && delta < 1) {
		return fmt.Errorf("--delta %g: must lie in (0, 1)", delta)
	}
	lo, hi, err := parseRange(c.String("reward-range"))
	if err != nil {
		return err
	}
	frac := c.Float64("dm-train")
	if !(frac > 0 && frac < 1) {
		return fmt.Errorf("--dm-train %g: must lie in (0, 1)", frac)
	}
	if c.Int("bootstrap") < 0 {
		return fmt.Errorf("--bootstrap %d: must be ≥ 0", c.Int("bootstrap"))
	}
	method, err := ranker.ParseSlateMethod(c.String("slate"))
	if err != nil {
		return fmt.Errorf("--slate: %w", err)
	}
	ds, err := loadData(c, "data")
	if err != nil {
		return err
	}
	logPath := c.String("logs")
	lr, err := data.OpenLog(logPath, ds)
	if err != nil {
		return err
	}
	defer lr.Close()
	ls, err := readLogSetup(c, lr)
	if err != nil {
		return err
	}
	metric, haveMetric, err := logMetric(c, lr.Header(), ls.metric, ls.slots, ds)
	if err != nil {
		return err
	}
	popt, err := opePolicyOptions(c)
	if err != nil {
		return err
	}
	cands, _, err := policy.Candidates(ctx, ds, ls.rankBy, ls.limit, popt)
	if err != nil {
		return fmt.Errorf("%s: header rank-by=%s: %w", logPath, ls.rankBy, err)
	}
	target, err := policy.Target(ctx, c.String("target"), cands, ls.slots, method, popt)
	if err != nil {
		return fmt.Errorf("--target: %w", err)
	}
	setup := offpolicy.Setup{Candidates: cands, Gammas: impute.NewGammaCache(ls.logging, impute.GammaOptions{Seed: c.Uint64("seed")}),
		Slots: ls.slots, Target: target, Threads: c.Int("threads")}
	if haveMetric {
		setup.Scorer = eval.NewScorer(metric, cands.Labels(), cands.Offsets())
	}
	plan, err := offpolicy.Prepare(ctx, setup)
	if err != nil {
		return err
	}
	opt := offpolicy.EvalOptions{Estimators: est, Regressors: opeRegressors(c, c.Int("threads")),
		Intervals: offpolicy.Intervals{Delta: delta, Bootstrap: c.Int("bootstrap"), Seed: c.Uint64("seed"), RewardLo: lo, RewardHi: hi}}
	// DM trains on the first share of the log, so it needs the log's length
	// before reading it: the header's samples= (simulate writes it), else
	// a counting pass.
	logged, haveN, _ := lr.Header().Int("samples")
	if len(est.DM) > 0 && !haveN {
		cr, err := data.OpenLog(logPath, ds)
		if err != nil {
			return err
		}
		n, err := offpolicy.CountLog(ctx, cr)
		cr.Close()
		if err != nil {
			return err
		}
		logged = int(n)
	}
	evaluate := func(lr *data.LogReader) (*offpolicy.Evaluator, error) {
		if len(est.DM) > 0 {
			opt.DMTrain = int64(math.Floor(frac * float64(logged)))
		}
		ev, err := plan.NewEvaluator(opt)
		if err != nil {
			return nil, err
		}
		bar := progress.New(os.Stderr, "evaluate", 0, "impressions")
		err = ev.AddLog(ctx, lr, bar)
		bar.Done()
		return ev, err
	}
	ev, err := evaluate(lr)
	if err != nil {
		return err
	}
	if len(est.DM) > 0 && ev.N() != int64(logged) {
		// The header's count was wrong: read again with the true one.
		logged = int(ev.N())
		lr2, err := data.OpenLog(logPath, ds)
		if err != nil {
			return err
		}
		defer lr2.Close()
		if ev, err = evaluate(lr2); err != nil {
			return err
		}
	}
	res, err := ev.Result(ctx)
	if err != nil {
		return err
	}
	if haveMetric && metric.Kind == eval.KindERR {
		for _, name := range []string{offpolicy.PI, offpolicy.WPI} {
			if e := res.Estimates[name]; e != nil {
				e.Warnings = append(e.Warnings, "ERR is not additive over slots: PI is biased for it and its intervals assume additivity")
			}
		}
	}
	info := evaluateSetupJSON{Data: ds.Source, Logs: logPath, Samples: res.N, LoggedQueries: res.Queries, Queries: ds.NumQueries(),
		Slots: ls.slots, Logging: ls.logging.String(), RankBy: ls.rankBy, Candidates: ls.limit, Target: target.Name(),
		Delta: delta, Bootstrap: c.Int("bootstrap"), Seed: c.Uint64("seed"), RewardRange: [2]float64{lo, hi},
		TrueValue: offpolicy.Float(res.TrueValue), Command: commandLine()}
	if haveMetric {
		info.Metric = metric.Name()
		cj := ranker.NewConventionsJSON(metric.Conventions)
		info.Conventions = &cj
	}
	writeEvaluateTable(os.Stdout, &info, res)
	if p := c.String("json"); p != "" {
		// Every top-level key is an estimator, so a reader can take them
		// all; the setup rides along in each, and Γ's conditioning in the
		// estimators that use Γ.
		type estimateJSON struct {
			*offpolicy.Estimate
			Gamma []offpolicy.GammaInfo `json:"gamma,omitempty"`
			Setup *evaluateSetupJSON    `json:"setup"`
		}
		out := make(map[string]estimateJSON, len(res.Names))
		for _, name := range res.Names {
			e := estimateJSON{Estimate: res.Estimates[name], Setup: &info}
			if name == offpolicy.PI || name == offpolicy.WPI {
				e.Gamma = res.Gamma
			}
			out[name] = e
		}
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(p, append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// evaluateSetupJSON describes an evaluation in its JSON output ("setup").
type evaluateSetupJSON struct {
	Data          string                  `json:"data"`
	Logs          string                  `json:"logs"`
	Samples       int64                   `json:"samples"`
	LoggedQueries int                     `json:"logged_queries"`
	Queries       int                     `json:"queries"`
	Slots         int                     `json:"slots"`
	Logging       string                  `json:"logging"`
	RankBy        string                  `json:"rank_by,omitempty"`
	Candidates    int                     `json:"candidates"`
	Target        string                  `json:"target"`
	Metric        string                  `json:"metric,omitempty"`
	Conventions   *ranker.ConventionsJSON `json:"conventions,omitempty"`
	Delta         float64                 `json:"delta"`
	Bootstrap     int                     `json:"bootstrap"`
	Seed          uint64                  `json:"seed"`
	RewardRange   [2]float64              `json:"reward_range"`
	// TrueValue is V(π) with contexts uniform over the dataset's queries
	// (semi-synthetic; null without a metric).
	TrueValue offpolicy.Float `json:"true_value"`
	Command   string          `json:"command"`
}

func fmtInterval(iv *eval.Interval) string {
	if iv == nil {
		return "-"
	}
	return fmt.Sprintf("[%.4f, %.4f]", iv.Lo, iv.Hi)
}

func writeEvaluateTable(w io.Writer, s *evaluateSetupJSON, res *offpolicy.Result) {
	fmt.Fprintf(w, "%s: %d impressions over %d of %d queries; %d slots, logging %s", s.Logs, s.Samples, s.LoggedQueries, s.Queries, s.Slots, s.Logging)
	if s.RankBy != "" {
		fmt.Fprintf(w, " by %s", s.RankBy)
	}
	if s.Candidates > 0 {
		fmt.Fprintf(w, ", top %d candidates", s.Candidates)
	}
	fmt.Fprintf(w, "\ntarget %s", s.Target)
	if s.Metric != "" {
		fmt.Fprintf(w, "; reward %s (%s); true value over all queries %.4f", s.Metric, s.Conventions.Text, float64(s.TrueValue))
	}
	conf := fmt.Sprintf("%g%%", 100*(1-s.Delta))
	fmt.Fprintf(w, "\n%-15s %9s  %-20s %-20s %-20s %10s %8s %10s\n", "estimator", "value",
		"bernstein "+conf, "emp-bernstein "+conf, "bootstrap "+conf, "ess", "neg.w", "max|w|")
	var warnings []string
	for _, name := range res.Names {
		e := res.Estimates[name]
		fmt.Fprintf(w, "%-15s %9s  %-20s %-20s %-20s", name, fmtNum(float64(e.Value)), fmtInterval(e.Bernstein), fmtInterval(e.EmpiricalBernstein), fmtInterval(e.Bootstrap))
		if e.Weights != nil {
			fmt.Fprintf(w, " %10.4g %7.1f%% %10.4g", float64(e.Weights.ESS), 100*float64(e.Weights.NegativeShare), float64(e.Weights.MaxAbs))
		}
		fmt.Fprintln(w)
		for _, m := range e.Warnings {
			warnings = append(warnings, name+": "+m)
		}
	}
	for _, name := range res.Names {
		if e := res.Estimates[name]; e.Weights != nil && (name == offpolicy.PI || name == offpolicy.IPS) {
			fmt.Fprintf(w, "%s weights: σ² %.4g (uniform contexts %.4g), ρ %.4g, range [%.4g, %.4g], mean %.4f\n", strings.ToUpper(name),
				float64(e.Weights.Sigma2), float64(e.Weights.Sigma2Uniform), float64(e.Weights.Rho), float64(e.Weights.RangeLo), float64(e.Weights.RangeHi), float64(e.Weights.Mean))
		}
	}
	if len(res.Gamma) > 0 {
		worst := res.Gamma[0]
		for _, g := range res.Gamma {
			if g.Condition > worst.Condition {
				worst = g
			}
		}
		fmt.Fprintf(w, "Γ: %d query shapes; worst conditioned m=%d ℓ=%d: rank %d, kept eigenvalues %.3g..%.3g\n",
			len(res.Gamma), worst.M, worst.Slots, worst.Rank, worst.MinKeptEigenvalue, worst.MaxEigenvalue)
	}
	for _, m := range warnings {
		fmt.Fprintln(w, "warning:", m)
	}
}
