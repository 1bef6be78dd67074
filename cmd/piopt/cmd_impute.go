package main

import (
	"fmt"
	"os"

	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/internal/pipeline"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/trainer"
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
		&cli.StringFlag{Name: "logging", Usage: "logging policy `SPEC` that made the log: uniform, pa:ALPHA, pl:TAU, eps:E,POLICY; slates only in a policy file (default with --logs: the log's header)"},
		&cli.StringFlag{Name: "rank-by", Usage: "rank source `SPEC` of the logging policy (default with --logs: the log's header)"},
		&cli.IntFlag{Name: "candidates", Usage: "candidate limit `M` of the logging policy", DefaultText: "with --logs: the log's header"},
		&cli.StringFlag{Name: "candidates-by", Usage: candidatesByUsage + " (default with --logs: the log's header)"},
		&cli.BoolFlag{Name: "per-sample", Usage: "weigh each query's rows by its number of impressions (the regression on one target per impression) instead of 1 per query"},
		&cli.StringFlag{Name: "out", Required: true, Usage: "targets `FILE` to write (or --partial)"},
		&cli.StringFlag{Name: "shard", Usage: "with --logs: read only shard `I/N` of the log's contexts (FNV-1a of the qid mod N; docs/distributed.md)"},
		&cli.StringFlag{Name: "partial", Usage: "with --shard: write the shard's targets as a partial `FILE` for piopt merge, instead of --out"},
		&cli.StringFlag{Name: "targets-kind", Value: pipeline.TargetsPI, Usage: "`KIND` of targets: pi (φ̂ = Γ†θ̂) or dr (doubly robust, φ̄ + Γ†1_s(r − 1_sᵀφ̄) averaged per query, from a reward model φ̄; reads the log twice)"},
		baselineFlag("with --targets-kind dr: the reward model φ̄"),
		baselineFoldsFlag(ope.DefaultBaselineFolds, "the queries in K blocks, each block's φ̄ fitted on the PI targets of the others"),
	}
	return &cli.Command{
		Name:  "impute",
		Usage: "turn logged slates with page-level rewards into per-(query, doc, slot) PI targets",
		Description: `impute applies the pseudoinverse estimator to a slate log: for every logged
query x it keeps S_x(j,a) = Σ r·1{s_j = a} and n_x, and writes the targets
φ̄_x = Γ_μ,x† (S_x/n_x), one row per candidate doc and slot:

   qid<TAB>doc<TAB>slot<TAB>target<TAB>weight

after a header line "# piopt-targets v1 key=value ...". Γ† is the paper's closed
form for uniform logging and a structured pseudoinverse of the exact Γ
otherwise: Γ in closed form for uniform, by an exact dynamic programme for
pa and eps mixtures, by quadrature for Plackett–Luce (pl:TAU; exact to a
stated error bound), by summation over the listed slates for an explicit
slates distribution. Rows weigh 1/(L·m) (every query 1 in total) or, with --per-sample, n_x.

A log from your own logger names a policy file (header policy=, or --policy):
the logging policy of every context QID or QID@TAG (uniform, pa:ALPHA,
pl:TAU over scores, an explicit slates distribution, eps: mixtures). Each
logged context gets its own φ̄_x, and a row (qid, doc, slot) averages them over
the impressions whose context lists the doc.

A log's header needs slots= and logging= (or policy=); rank-by= when the
logging ranks documents (pa, pl); candidates= (default 0: all) and
candidates-by= are optional. A log without a header line is read with what
--slots, --logging, --rank-by, --candidates and --candidates-by say.

--targets-kind dr writes doubly-robust targets instead: per query,
φ̄_x + Γ†·mean_i[(r_i − 1_{s_i}ᵀφ̄_x)·1_{s_i}], the PI targets of the residual
rewards with a reward model φ̄ added back. They are unbiased wherever the PI
targets are (they differ only in Γ's null space) and vary less the better φ̄
predicts. φ̄ is PI-OPT's regression cross-fitted over --baseline-folds blocks
of the queries (a block's φ̄ fitted on the other blocks' PI targets), or a
PI-OPT model trained on other data (--baseline model:PATH). The log is read
twice; the header says targets-kind=dr and baseline=.

--logs may name many files: a list (a.log,b.log), a glob or a folder (its
files in name order). --shard I/N --partial P.I imputes shard I of N, and
piopt merge --out TARGETS P.1 ... P.N writes the unsharded targets.

   piopt impute --data Fold1/train.txt --logs train.log --out train.targets
   piopt impute --data train.txt --doc-ids comment --logs prod.log --policy prod.policy --out prod.targets
   piopt impute --data Fold1/train.txt --samples 10000000 --metric ndcg --seed 1 \
                --slots 3 --logging uniform --out train.targets
   piopt impute --data train.txt --logs logs/ --shard 2/8 --partial parts/train.2
   piopt impute --data Fold1/train.txt --logs train.log --targets-kind dr --out train.dr.targets`,
		Flags:  append(append(flags, dataFlags()...), conventionFlags()...),
		Action: runImpute,
	}
}

func runImpute(c *cli.Context) error {
	cfg, err := imputeConfig(c)
	if err != nil {
		return err
	}
	res, err := pipeline.Impute(c.Context, cfg)
	if err != nil {
		return err
	}
	res.WriteSummary(os.Stderr)
	return nil
}

// imputeConfig reads impute's flags and checks that they fit together.
func imputeConfig(c *cli.Context) (pipeline.ImputeConfig, error) {
	cfg := pipeline.ImputeConfig{Data: c.String("data"), Logs: c.String("logs"), Setup: setupFlags(c), Samples: c.Int64("samples"),
		Seed: c.Uint64("seed"), PerSample: c.Bool("per-sample"), Out: c.String("out"), Progress: os.Stderr}
	var err error
	switch {
	case cfg.Logs != "" && c.IsSet("samples"):
		return cfg, fmt.Errorf("give --logs or --samples, not both")
	case cfg.Logs == "" && !c.IsSet("samples"):
		return cfg, fmt.Errorf("give --logs LOG or --samples N")
	case cfg.Logs == "" && cfg.Samples < 1:
		return cfg, fmt.Errorf("--samples %d: must be ≥ 1", cfg.Samples)
	}
	if cfg.Shard, cfg.Partial, err = shardFlags(c, "--out"); err != nil {
		return cfg, err
	}
	if cfg.DR, err = drFlags(c); err != nil {
		return cfg, err
	}
	if cfg.Logs == "" {
		if cfg.Metric, err = eval.ParseKind(c.String("metric")); err != nil {
			return cfg, fmt.Errorf("--metric: %w", err)
		}
	} else if err := cfg.Setup.Check(); err != nil {
		return cfg, err
	}
	if cfg.Read, err = readOptions(c); err != nil {
		return cfg, err
	}
	if cfg.Logs != "" {
		for _, f := range []string{"discount", "empty-ndcg", "maxrel"} {
			if c.IsSet(f) {
				cfg.Stated = append(cfg.Stated, pipeline.StatedFlag{Flag: f, Value: c.String(f)})
			}
		}
		return cfg, nil
	}
	cfg.Conventions, err = conventions(c)
	return cfg, err
}

// drFlags reads --targets-kind, --baseline and --baseline-folds: the last
// two only with dr, which cross-fits with XGBoost unless given a model.
func drFlags(c *cli.Context) (pipeline.DRTargets, error) {
	kind, err := targetsKind(c)
	if err != nil {
		return pipeline.DRTargets{}, err
	}
	if kind == pipeline.TargetsPI {
		for _, f := range []string{"baseline", "baseline-folds"} {
			if c.IsSet(f) {
				return pipeline.DRTargets{}, fmt.Errorf("--%s is the reward model of --targets-kind dr, not of pi targets", f)
			}
		}
		return pipeline.DRTargets{}, nil
	}
	if err := checkBaselineFlags(c); err != nil {
		return pipeline.DRTargets{}, err
	}
	if c.String("baseline") == policy.Crossfit && !trainer.Available {
		return pipeline.DRTargets{}, fmt.Errorf("--targets-kind dr --baseline crossfit fits φ̄ with XGBoost (--baseline model:PATH does not): %w", trainer.ErrNoCgo)
	}
	return pipeline.DRTargets{Baseline: c.String("baseline"), Folds: c.Int("baseline-folds")}, nil
}

// targetsKind reads --targets-kind: pi or dr.
func targetsKind(c *cli.Context) (string, error) {
	switch kind := c.String("targets-kind"); kind {
	case pipeline.TargetsPI, pipeline.TargetsDR:
		return kind, nil
	default:
		return "", fmt.Errorf("--targets-kind %q: want %s or %s", kind, pipeline.TargetsPI, pipeline.TargetsDR)
	}
}
