package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/impute"
	"github.com/urfave/cli/v2"
)

func imputeCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "data", Required: true, Usage: "LETOR `FILE` the log was made on"},
		&cli.StringFlag{Name: "logs", Usage: "slate log `FILE` to read (written by simulate or by your own logger)"},
		&cli.StringFlag{Name: "policy", Usage: "with --logs: policy `FILE` giving the logging policy of every context (default: the log header's policy=, relative to the log's folder)"},
		&cli.Int64Flag{Name: "samples", Usage: "instead of --logs, simulate `N` impressions in memory (same result as simulate + impute --logs with the same seed)"},
		&cli.StringFlag{Name: "metric", Value: "ndcg", Usage: "with --samples: reward `METRIC`, ndcg or err at k = L"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "with --samples: random `SEED`"},
		&cli.IntFlag{Name: "slots", Usage: "slate length `L`", DefaultText: "with --logs: the log's header"},
		&cli.StringFlag{Name: "logging", Usage: "logging policy `SPEC` that made the log: uniform, pa:ALPHA, eps:E,POLICY (default with --logs: the log's header)"},
		&cli.StringFlag{Name: "rank-by", Usage: "rank source `SPEC` of the logging policy (default with --logs: the log's header)"},
		&cli.IntFlag{Name: "candidates", Usage: "candidate limit `M` of the logging policy", DefaultText: "with --logs: the log's header"},
		&cli.StringFlag{Name: "candidates-by", Usage: candidatesByUsage + " (default with --logs: the log's header)"},
		&cli.BoolFlag{Name: "per-sample", Usage: "weigh each query's rows by its number of impressions (the regression on one target per impression) instead of 1 per query"},
		&cli.StringFlag{Name: "out", Required: true, Usage: "targets `FILE` to write"},
	}
	return &cli.Command{
		Name:  "impute",
		Usage: "turn logged slates with page-level rewards into per-(query, doc, slot) PI targets",
		Description: `impute applies the pseudoinverse estimator to a slate log: for every logged
query x it keeps S_x(j,a) = Σ r·1{s_j = a} and n_x, and writes the targets
φ̄_x = Γ_μ,x† (S_x/n_x), one row per candidate doc and slot:

   qid<TAB>doc<TAB>slot<TAB>target<TAB>weight

after a header line "# piopt-targets v1 key=value ...". Γ† is the paper's closed
form for uniform logging and an exact structured pseudoinverse for pa and eps
mixtures. Rows weigh 1/(L·m) (every query 1 in total) or, with --per-sample, n_x.

A log from your own logger names a policy file (header policy=, or --policy):
the logging policy of every context QID or QID@TAG (uniform, pa:ALPHA,
pl:TAU over scores, an explicit slates distribution, eps: mixtures). Each
logged context gets its own φ̄_x, and a row (qid, doc, slot) averages them over
the impressions whose context lists the doc.

A log's header needs slots= and logging= (or policy=); rank-by= when the
logging ranks documents (pa, pl); candidates= (default 0: all) and
candidates-by= are optional. A log without a header line is read with what
--slots, --logging, --rank-by, --candidates and --candidates-by say.

   piopt impute --data Fold1/train.txt --logs train.log --out train.targets
   piopt impute --data train.txt --doc-ids comment --logs prod.log --policy prod.policy --out prod.targets
   piopt impute --data Fold1/train.txt --samples 10000000 --metric ndcg --seed 1 \
                --slots 3 --logging uniform --out train.targets`,
		Flags:  append(append(flags, dataFlags()...), conventionFlags()...),
		Action: runImpute,
	}
}

func runImpute(c *cli.Context) error {
	logs, simN := c.String("logs"), c.Int64("samples")
	switch {
	case logs != "" && c.IsSet("samples"):
		return fmt.Errorf("give --logs or --samples, not both")
	case logs == "" && !c.IsSet("samples"):
		return fmt.Errorf("give --logs LOG or --samples N")
	case logs == "" && simN < 1:
		return fmt.Errorf("--samples %d: must be ≥ 1", simN)
	}
	if logs == "" {
		if err := checkMetricFlag(c); err != nil {
			return err
		}
	} else if err := setupFlags(c).Check(); err != nil {
		return err
	}
	ds, err := loadData(c, "data")
	if err != nil {
		return err
	}
	var (
		st     *impute.Stats
		gammas *impute.GammaCache
		header data.Header
	)
	if logs != "" {
		st, gammas, header, err = imputeStatsFromLog(c, ds, logs)
	} else {
		st, gammas, header, err = imputeStatsSimulated(c, ds, simN)
	}
	if err != nil {
		return err
	}
	perSample := c.Bool("per-sample")
	header["samples"] = strconv.FormatInt(st.Samples(), 10)
	header["per-sample"] = strconv.FormatBool(perSample)

	tg, err := impute.ComputeTargets(c.Context, st, gammas, impute.TargetOptions{PerSample: perSample, Header: header})
	if err != nil {
		return err
	}
	if ap := gammas.Approximations(); ap.N > 0 {
		// Flag targets from an approximate Γ in the file itself.
		tg.Header["gamma"] = ap.Methods
		if ap.Bound > 0 {
			tg.Header["gamma-error-bound"] = strconv.FormatFloat(ap.Bound, 'g', 3, 64)
		}
		if ap.StdErr > 0 {
			tg.Header["gamma-stderr"] = strconv.FormatFloat(ap.StdErr, 'g', 3, 64)
		}
	}
	out := c.String("out")
	if err := data.SaveTargets(out, tg, ds); err != nil {
		return err
	}
	if st.Candidates().PerContext() {
		fmt.Fprintf(os.Stderr, "impute: %d impressions, %d of %d contexts logged, %d target rows → %s\n",
			st.Samples(), st.LoggedQueries(), st.Candidates().NumQueries(), tg.Len(), out)
	} else {
		fmt.Fprintf(os.Stderr, "impute: %d impressions, %d of %d queries logged, %d target rows → %s\n",
			st.Samples(), st.LoggedQueries(), ds.NumQueries(), tg.Len(), out)
	}
	reportGammas(gammas)
	return nil
}

// reportGammas prints one line on Γ's conditioning, and warns when some Γ
// is not exact (Monte Carlo, or a bounded Plackett–Luce approximation).
func reportGammas(gc *impute.GammaCache) {
	all := gc.All()
	if len(all) == 0 {
		return
	}
	worst := all[0]
	for _, g := range all {
		if g.Spectrum().Condition() > worst.Spectrum().Condition() {
			worst = g
		}
	}
	sp := worst.Spectrum()
	if gc.PerContext() {
		fmt.Fprintf(os.Stderr, "impute: Γ of %d distinct context policies; worst conditioned m=%d ℓ=%d (%s): rank %d, eigenvalues %.3g..%.3g\n",
			len(all), worst.M(), worst.L(), worst.Dist().Logging(), sp.Rank, sp.MinKept, sp.Max)
	} else {
		fmt.Fprintf(os.Stderr, "impute: Γ (%s) over %d query shapes; worst conditioned m=%d ℓ=%d: rank %d, eigenvalues %.3g..%.3g\n",
			gc.Logging(), len(all), worst.M(), worst.L(), sp.Rank, sp.MinKept, sp.Max)
	}
	switch ap := gc.Approximations(); {
	case ap.N > 0 && ap.Methods == "monte-carlo":
		fmt.Fprintf(os.Stderr, "impute: warning: Γ of %d shapes estimated by Monte Carlo (largest standard error %.2g)\n", ap.N, ap.StdErr)
	case ap.N > 0:
		fmt.Fprintf(os.Stderr, "impute: Γ of %d policies approximated (%s): max |error| of an entry ≤ %.2g", ap.N, ap.Methods, ap.Bound)
		if ap.StdErr > 0 {
			fmt.Fprintf(os.Stderr, ", Monte Carlo standard error %.2g", ap.StdErr)
		}
		fmt.Fprintln(os.Stderr)
	}
}
