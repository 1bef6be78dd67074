package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/piopt/piopt/data/atomicfile"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/offpolicy"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/internal/progress"
	"github.com/piopt/piopt/internal/report"
	"github.com/piopt/piopt/ranker"
	"github.com/piopt/piopt/trainer/xgboost"
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

func evaluateSweepCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "data", Required: true, Usage: "LETOR `FILE` whose labels give the rewards and the true value"},
		&cli.IntFlag{Name: "slots", Value: 5, Usage: "slate length `L`"},
		&cli.IntFlag{Name: "candidates", Value: 10, Usage: "each query's top `M` docs by --rank-by are its candidates (0: all)"},
		&cli.StringFlag{Name: "logging", Value: "uniform", Usage: "logging policy `SPEC`: uniform, pa:ALPHA or eps:E,POLICY"},
		&cli.StringFlag{Name: "rank-by", Usage: "logging-side ranker `SPEC` (same spellings as --target): candidates and pa ranks"},
		&cli.StringFlag{Name: "metric", Value: "ndcg", Usage: "reward `METRIC`: ndcg or err, at k = L"},
		&cli.Int64Flag{Name: "samples", Value: 1000000, Usage: "largest log size `N`"},
		&cli.IntFlag{Name: "runs", Value: 10, Usage: "independent logs `R`"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "`SEED` of run 1; run k uses SEED+k−1, the log `piopt simulate --seed SEED+k−1` writes"},
		&cli.Int64Flag{Name: "min-samples", Value: 100, Usage: "smallest log size `N` of the grid"},
		&cli.IntFlag{Name: "points-per-decade", Value: 4, Usage: "grid points `K` per factor 10 of log size"},
		&cli.IntFlag{Name: "dm-max-train", Value: 50000, Usage: "DM trains on the first min(n/2, `ROWS`) samples at log size n (0: n/2, as the paper; each fit costs seconds per 10^5 rows)"},
		&cli.StringFlag{Name: "json", Usage: "write the results as JSON to `FILE`"},
		&cli.StringFlag{Name: "html", Usage: "write a self-contained HTML report with the RMSE chart to `FILE`"},
	}
	return &cli.Command{
		Name:  "evaluate-sweep",
		Usage: "the paper's semi-synthetic evaluation: RMSE of every estimator against the true value as the log grows",
		Description: `evaluate-sweep runs the protocol of the paper's Sec. 4.1. Every query's top-M
docs by the logging-side ranker (--rank-by) are its candidates; R independent
logs of N samples are simulated with contexts uniform over the queries, slates
from the logging policy over the candidates and the slate's metric as reward;
every estimator of the target policy's value (its top L candidates) is computed
on the prefixes of each log on a log-spaced grid, and compared with the true
value V(π) = mean over queries of the metric of the target slate, exact from
the labels. The table gives the RMSE over the R runs at every log size.

   piopt evaluate-sweep --data MQ2008/all.txt --candidates 10 --slots 5 \
       --logging pa:1 --rank-by feature:1 --target feature:40 \
       --samples 1000000 --runs 10 --json sweep.json --html sweep.html

PI and wPI need only Σ r·w and Σ w over a prefix and IPS only its matches,
so all grid points come from one pass per run; DM is trained at every grid
point on the first half of the prefix (capped by --dm-max-train) and evaluated
on the second half.`,
		Flags:  append(append(append(flags, opeFlags()...), dataFlags()...), conventionFlags()...),
		Action: runEvaluateSweep,
	}
}

// dropDMWithoutCgo removes the DM estimators from a build without cgo
// (they train on XGBoost) and says so, so the others still run.
func dropDMWithoutCgo(est *offpolicy.Estimators) {
	if xgboost.Available || len(est.DM) == 0 {
		return
	}
	fmt.Fprintf(os.Stderr, "piopt: warning: DM left out: %v\n", xgboost.ErrNoCgo)
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

// sweepJSON is the JSON summary of evaluate-sweep.
type sweepJSON struct {
	Data        string                         `json:"data"`
	Queries     int                            `json:"queries"`
	Conventions ranker.ConventionsJSON         `json:"conventions"`
	Metric      string                         `json:"metric"`
	Slots       int                            `json:"slots"`
	Candidates  int                            `json:"candidates"`
	Logging     string                         `json:"logging"`
	RankBy      string                         `json:"rank_by"`
	Target      string                         `json:"target"`
	Samples     int64                          `json:"samples"`
	Runs        int                            `json:"runs"`
	Seeds       []uint64                       `json:"seeds"`
	TrueValue   offpolicy.Float                `json:"true_value"`
	Sigma2      offpolicy.Float                `json:"sigma2"`
	Rho         offpolicy.Float                `json:"rho"`
	IPSSigma2   offpolicy.Float                `json:"ips_sigma2"`
	IPSRho      offpolicy.Float                `json:"ips_rho"`
	Grid        []int64                        `json:"grid"`
	Estimators  []string                       `json:"estimators"`
	RMSE        map[string][]offpolicy.Float   `json:"rmse"`
	Bias        map[string][]offpolicy.Float   `json:"bias"`
	Std         map[string][]offpolicy.Float   `json:"std"`
	Values      map[string][][]offpolicy.Float `json:"values"`
	DMMaxTrain  int                            `json:"dm_max_train"`
	Gamma       []offpolicy.GammaInfo          `json:"gamma"`
	Command     string                         `json:"command"`
}

func floats(xs []float64) []offpolicy.Float {
	out := make([]offpolicy.Float, len(xs))
	for i, x := range xs {
		out[i] = offpolicy.Float(x)
	}
	return out
}

func runEvaluateSweep(c *cli.Context) error {
	ctx := c.Context
	slots := c.Int("slots")
	if err := checkSlots(slots); err != nil {
		return err
	}
	est, err := offpolicy.ParseEstimators(c.String("estimators"))
	if err != nil {
		return fmt.Errorf("--estimators: %w", err)
	}
	dropDMWithoutCgo(&est)
	n, runs := c.Int64("samples"), c.Int("runs")
	if n < 1 || runs < 1 {
		return fmt.Errorf("--samples %d and --runs %d must be ≥ 1", n, runs)
	}
	method, err := ranker.ParseSlateMethod(c.String("slate"))
	if err != nil {
		return fmt.Errorf("--slate: %w", err)
	}
	lg, err := impute.ParseLogging(c.String("logging"))
	if err != nil {
		return fmt.Errorf("--logging: %w", err)
	}
	rankBy, limit := c.String("rank-by"), c.Int("candidates")
	if rankBy == "" && (lg.NeedsRanks() || limit > 0) {
		return fmt.Errorf("--logging %s with --candidates %d ranks documents: give --rank-by (the logging-side ranker)", lg, limit)
	}
	t0 := time.Now()
	ds, err := loadData(c, "data")
	if err != nil {
		return err
	}
	metric, err := simulationMetric(c, ds, slots)
	if err != nil {
		return err
	}
	popt, err := opePolicyOptions(c)
	if err != nil {
		return err
	}
	tLoad := time.Since(t0)
	t0 = time.Now()
	cands, src, err := policy.Candidates(ctx, ds, rankBy, limit, popt)
	if err != nil {
		return fmt.Errorf("--rank-by: %w", err)
	}
	if src != nil {
		rankBy = src.String()
	}
	target, err := policy.Target(ctx, c.String("target"), cands, slots, method, popt)
	if err != nil {
		return fmt.Errorf("--target: %w", err)
	}
	tPolicies := time.Since(t0)
	t0 = time.Now()
	plan, err := offpolicy.Prepare(ctx, offpolicy.Setup{Candidates: cands, Gammas: impute.NewGammaCache(lg, impute.GammaOptions{Seed: c.Uint64("seed")}),
		Slots: slots, Target: target, Scorer: eval.NewScorer(metric, cands.Labels(), cands.Offsets()), Threads: c.Int("threads")})
	if err != nil {
		return err
	}
	tPrepare := time.Since(t0)
	grid := offpolicy.LogGrid(c.Int64("min-samples"), n, c.Int("points-per-decade"))
	// Runs are simulated and DM-fitted min(threads, runs) at a time; each
	// DM fit gets the threads left over.
	threads := c.Int("threads")
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	fitThreads := max(1, threads/min(threads, runs))
	bar := progress.New(os.Stderr, "evaluate-sweep", n*int64(runs), "samples")
	res, err := plan.Sweep(ctx, offpolicy.SweepConfig{Samples: n, Runs: runs, Seed: c.Uint64("seed"), Grid: grid, Estimators: est,
		Regressors: opeRegressors(c, fitThreads), DMMaxTrain: c.Int("dm-max-train"), Threads: threads, Progress: bar})
	bar.Done()
	if err != nil {
		return err
	}
	out := sweepJSON{
		Data: ds.Source, Queries: ds.NumQueries(), Conventions: ranker.NewConventionsJSON(metric.Conventions), Metric: metric.Name(),
		Slots: slots, Candidates: limit, Logging: lg.String(), RankBy: rankBy, Target: target.Name(), Samples: n, Runs: runs,
		Seeds: res.Seeds, TrueValue: offpolicy.Float(res.TrueValue), Sigma2: offpolicy.Float(plan.Sigma2),
		Rho:       offpolicy.Float(plan.Rho()),
		IPSSigma2: offpolicy.Float(plan.IPSSigma2), IPSRho: offpolicy.Float(plan.IPSMax), Grid: res.Grid, Estimators: res.Names,
		RMSE: map[string][]offpolicy.Float{}, Bias: map[string][]offpolicy.Float{}, Std: map[string][]offpolicy.Float{},
		Values: map[string][][]offpolicy.Float{}, DMMaxTrain: c.Int("dm-max-train"), Gamma: plan.Spectra(),
		Command: commandLine(),
	}
	for _, name := range res.Names {
		out.RMSE[name], out.Bias[name], out.Std[name] = floats(res.RMSE[name]), floats(res.Bias[name]), floats(res.Std[name])
		for _, run := range res.Values[name] {
			out.Values[name] = append(out.Values[name], floats(run))
		}
	}
	writeSweepTable(os.Stdout, &out)
	fmt.Fprintf(os.Stderr, "evaluate-sweep: load %.1fs, policies %.1fs, Γ and plan %.1fs, simulate %.1fs (%d runs × %d samples), DM %.1fs\n",
		tLoad.Seconds(), tPolicies.Seconds(), tPrepare.Seconds(), res.SimulateTime.Seconds(), runs, n, res.DMTime.Seconds())
	if p := c.String("json"); p != "" {
		b, err := json.MarshalIndent(&out, "", "  ")
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(p, append(b, '\n')); err != nil {
			return err
		}
	}
	if p := c.String("html"); p != "" {
		if err := atomicfile.WriteFile(p, sweepHTML(&out)); err != nil {
			return err
		}
	}
	return nil
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

func sweepSetupLines(s *sweepJSON) []string {
	return []string{
		fmt.Sprintf("data %s (%d queries), reward %s (%s)", s.Data, s.Queries, s.Metric, s.Conventions.Text),
		fmt.Sprintf("candidates: top %d by %s; %d slots; logging %s; target %s", s.Candidates, orNone(s.RankBy), s.Slots, s.Logging, s.Target),
		fmt.Sprintf("V(π) = %.6f   PI: σ² = %.4g, ρ = %.4g   IPS: σ² = %.4g, ρ = %.4g", float64(s.TrueValue), float64(s.Sigma2), float64(s.Rho), float64(s.IPSSigma2), float64(s.IPSRho)),
		fmt.Sprintf("%d runs, seeds %d..%d, up to %d samples", s.Runs, s.Seeds[0], s.Seeds[len(s.Seeds)-1], s.Samples),
	}
}

func orNone(s string) string {
	if s == "" {
		return "document order"
	}
	return s
}

func writeSweepTable(w io.Writer, s *sweepJSON) {
	for _, l := range sweepSetupLines(s) {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintf(w, "RMSE against V(π) over %d runs:\n%10s", s.Runs, "n")
	for _, name := range s.Estimators {
		fmt.Fprintf(w, " %11s", name)
	}
	fmt.Fprintln(w)
	for g, n := range s.Grid {
		fmt.Fprintf(w, "%10d", n)
		for _, name := range s.Estimators {
			fmt.Fprintf(w, " %11s", fmtNum(float64(s.RMSE[name][g])))
		}
		fmt.Fprintln(w)
	}
}

func fmtNum(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.4g", x)
}

func sweepHTML(s *sweepJSON) []byte {
	p := report.NewPage(fmt.Sprintf("Off-policy evaluation: %s of %s", s.Metric, s.Target))
	for _, l := range sweepSetupLines(s) {
		p.Paragraph(l)
	}
	var series []report.Series
	xs := make([]float64, len(s.Grid))
	for i, n := range s.Grid {
		xs[i] = float64(n)
	}
	for _, name := range s.Estimators {
		ys := make([]float64, len(s.Grid))
		for g := range ys {
			ys[g] = float64(s.RMSE[name][g])
		}
		series = append(series, report.Series{Name: name, X: xs, Y: ys})
	}
	p.Figure(report.LogLogChart(series, report.Title(fmt.Sprintf("RMSE of the estimates of V(π) = %.4f, %d runs", float64(s.TrueValue), s.Runs)),
		report.XLabel("logged samples n"), report.YLabel("RMSE")),
		fmt.Sprintf("Logging %s on the top %d candidates by %s, target %s, %d slots.", s.Logging, s.Candidates, orNone(s.RankBy), s.Target, s.Slots))
	header := append([]string{"n"}, s.Estimators...)
	var rows [][]string
	for g, n := range s.Grid {
		row := []string{fmt.Sprint(n)}
		for _, name := range s.Estimators {
			row = append(row, fmtNum(float64(s.RMSE[name][g])))
		}
		rows = append(rows, row)
	}
	p.Heading(2, "RMSE")
	p.Table(header, rows)
	p.Heading(2, "Bias (mean estimate − V(π))")
	rows = nil
	for g, n := range s.Grid {
		row := []string{fmt.Sprint(n)}
		for _, name := range s.Estimators {
			row = append(row, fmtNum(float64(s.Bias[name][g])))
		}
		rows = append(rows, row)
	}
	p.Table(header, rows)
	p.Heading(2, "Command")
	p.Pre(s.Command)
	return p.HTML()
}
