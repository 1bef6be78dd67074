package pipeline

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/internal/progress"
)

// ImputeConfig is one run of piopt impute: a log read from Logs, or
// Samples impressions simulated in memory.
type ImputeConfig struct {
	Data string           // LETOR file the log was made on
	Read data.ReadOptions // how Data is read
	// Logs is the slate log to read; "" simulates Samples impressions.
	Logs string
	// Setup is the logging setup as given: with Logs, what the log's header
	// does not say (and a check of what it says); else the setup simulated.
	Setup policy.Flags
	// Stated are the metric-convention flags given with Logs: the log's
	// rewards were scored by its logger, so one its header contradicts or
	// does not state is refused.
	Stated []StatedFlag
	// Samples, Metric, Conventions (MaxRel 0: the data's highest grade)
	// and Seed are the simulated log's, without Logs.
	Samples     int64
	Metric      eval.Kind
	Conventions eval.Conventions
	Seed        uint64
	// PerSample weighs each query's rows by its number of impressions n_x
	// instead of 1 per query.
	PerSample bool
	Out       string    // targets file to write
	Progress  io.Writer // progress bars (shown only on a terminal)
	// Shard, when on, reads only the shard's contexts of Logs; Partial,
	// when not "", receives the shard's targets as a partial file for
	// piopt merge (imputepartial.go) instead of Out.
	Shard   Shard
	Partial string
	// DR, when on, makes the targets doubly robust (DoublyRobustTargets):
	// the log is read twice.
	DR DRTargets
}

// StatedFlag is a metric-convention flag given explicitly: discount,
// empty-ndcg or maxrel, and its value as given.
type StatedFlag struct{ Flag, Value string }

// ImputeResult summarises an imputation.
type ImputeResult struct {
	Impressions int64
	Logged      int  // queries (or contexts) logged
	Units       int  // queries of the data, or contexts of the policy file
	PerContext  bool // units are a policy file's contexts
	Rows        int  // target rows written
	Out         string
	Gammas      *impute.GammaCache // the logging policy's Γ
	// DR is where doubly-robust targets got φ̄ (nil for PI targets), and
	// Baseline the spec it was given as.
	DR       *policy.TargetBaselineInfo
	Baseline string
}

// WriteSummary writes what piopt impute prints on standard error: the
// counts, one line on Γ's conditioning, and a warning when some Γ is not
// exact (Monte Carlo, or a bounded Plackett–Luce approximation).
func (r *ImputeResult) WriteSummary(w io.Writer) {
	unit := "queries"
	if r.PerContext {
		unit = "contexts"
	}
	fmt.Fprintf(w, "impute: %d impressions, %d of %d %s logged, %d target rows → %s\n", r.Impressions, r.Logged, r.Units, unit, r.Rows, r.Out)
	writeGammas(w, r.Gammas)
	switch {
	case r.DR == nil:
	case r.DR.Folds == 0:
		fmt.Fprintf(w, "impute: doubly-robust targets, φ̄ from %s\n", r.Baseline)
	default:
		fmt.Fprintf(w, "impute: doubly-robust targets, φ̄ cross-fitted over %d query folds (%s trees)\n", r.DR.Folds, rangeText(r.DR.Trees))
	}
}

// rangeText is "lo–hi" of v, or its one value.
func rangeText(v []int) string {
	if len(v) == 0 {
		return "no"
	}
	lo, hi := slices.Min(v), slices.Max(v)
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}

// Impute applies the pseudoinverse estimator to a slate log: it keeps, for
// every logged context x, S_x(j,a) = Σ r·1{s_j = a} and n_x, and writes the
// targets φ̄_x = Γ_μ,x† (S_x/n_x), one row per candidate doc and slot.
func Impute(ctx context.Context, cfg ImputeConfig) (*ImputeResult, error) {
	if cfg.Data == "" {
		return nil, fmt.Errorf("--data is required")
	}
	if cfg.DR.On() && (cfg.Shard.On() || cfg.Partial != "") {
		return nil, fmt.Errorf("--targets-kind dr cross-fits φ̄ over the whole log's queries: not with --shard or --partial")
	}
	ds, err := load(ctx, cfg.Data, cfg.Read, cfg.Progress)
	if err != nil {
		return nil, err
	}
	var (
		st     *impute.Stats
		gammas *impute.GammaCache
		header data.Header
	)
	var policyHash string
	var replay Replay
	if cfg.Logs != "" {
		st, gammas, header, policyHash, err = statsFromLog(ctx, cfg, ds)
		replay = logReplay(cfg, ds, st)
	} else if cfg.Shard.On() || cfg.Partial != "" {
		return nil, fmt.Errorf("--shard and --partial read a log: give --logs, not --samples")
	} else {
		st, gammas, header, replay, err = statsSimulated(ctx, cfg, ds)
	}
	if err != nil {
		return nil, err
	}
	res := &ImputeResult{Impressions: st.Samples(), Logged: st.LoggedQueries(), Units: ds.NumQueries(),
		PerContext: st.Candidates().PerContext(), Out: cfg.Out, Gammas: gammas}
	var tg *data.Targets
	if cfg.DR.On() {
		var info policy.TargetBaselineInfo
		tg, info, err = DoublyRobustTargets(ctx, st, gammas, header, cfg.PerSample, cfg.DR, replay)
		res.DR, res.Baseline = &info, cfg.DR.Baseline
	} else {
		tg, err = Targets(ctx, st, gammas, header, cfg.PerSample)
	}
	if err != nil {
		return nil, err
	}
	res.Rows = tg.Len()
	if res.PerContext {
		res.Units = st.Candidates().NumQueries()
	}
	if cfg.Partial != "" {
		res.Out = cfg.Partial
		return res, writeImputePartial(cfg, tg, ds, res, policyHash)
	}
	if err := data.SaveTargets(cfg.Out, tg, ds); err != nil {
		return nil, err
	}
	return res, nil
}

// Targets imputes the per-(query, doc, slot) targets φ̄_x = Γ_μ,x† (S_x/n_x)
// from st, with header (which it completes with samples=, per-sample= and,
// when some Γ is approximate, gamma= and its error bounds, so that targets
// from an approximate Γ say so in the file itself).
func Targets(ctx context.Context, st *impute.Stats, gammas *impute.GammaCache, header data.Header, perSample bool) (*data.Targets, error) {
	return targets(ctx, st, gammas, header, impute.TargetOptions{PerSample: perSample})
}

// targets is Targets with impute's options (PI or doubly-robust targets);
// opt.Header is header.
func targets(ctx context.Context, st *impute.Stats, gammas *impute.GammaCache, header data.Header, opt impute.TargetOptions) (*data.Targets, error) {
	header["samples"] = strconv.FormatInt(st.Samples(), 10)
	header["per-sample"] = strconv.FormatBool(opt.PerSample)
	opt.Header = header
	tg, err := impute.ComputeTargets(ctx, st, gammas, opt)
	if err != nil {
		return nil, err
	}
	if ap := gammas.Approximations(); ap.N > 0 {
		tg.Header["gamma"] = ap.Methods
		if ap.Bound > 0 {
			tg.Header["gamma-error-bound"] = strconv.FormatFloat(ap.Bound, 'g', 3, 64)
		}
		if ap.StdErr > 0 {
			tg.Header["gamma-stderr"] = strconv.FormatFloat(ap.StdErr, 'g', 3, 64)
		}
	}
	return tg, nil
}

// statsFromLog reads the log cfg.Logs into per-query (or per-context)
// statistics, checking its header against cfg.Setup (which defaults to the
// header's values), and returns them with the logging policy's Γ cache.
// The policy file's hash is returned too ("" without one). A shard
// (cfg.Shard) reads only its contexts' records.
func statsFromLog(ctx context.Context, cfg ImputeConfig, ds *data.Dataset) (*impute.Stats, *impute.GammaCache, data.Header, string, error) {
	lr, setup, err := openImputeLog(cfg, ds)
	if err != nil {
		return nil, nil, nil, "", err
	}
	defer lr.Close()
	cfg.Shard.apply(lr)
	if err := checkStated(cfg.Stated, cfg.Logs, lr.Header()); err != nil {
		return nil, nil, nil, "", err
	}
	cands, gammas, err := setup.Policies(ctx, ds, policy.Options{}, impute.GammaOptions{})
	if err != nil {
		return nil, nil, nil, "", err
	}
	st, err := impute.NewStats(cands, setup.Slots)
	if err != nil {
		return nil, nil, nil, "", err
	}
	bar := progress.New(cfg.Progress, "impute", 0, "impressions")
	err = st.AddLog(ctx, lr, bar.Add)
	bar.Done()
	if err != nil {
		return nil, nil, nil, "", err
	}
	h := lr.Header().Clone()
	var hash string
	if setup.Policy != nil {
		h["policy"] = filepath.Base(setup.Policy.Name)
		hash = setup.Policy.Hash
	}
	return st, gammas, h, hash, nil
}

// openImputeLog opens impute's log on ds: a slate log (policy.OpenLog), or
// a log with a policy per row, whose units (one per context and policy)
// become a policy file's contexts, as evaluate reads it.
func openImputeLog(cfg ImputeConfig, ds *data.Dataset) (*data.LogReader, policy.Setup, error) {
	if !data.IsRowLog(cfg.Logs) {
		lr, setup, _, err := policy.OpenLog(cfg.Logs, ds, cfg.Setup)
		return lr, setup, err
	}
	if err := rowLogFlags(cfg.Setup); err != nil {
		return nil, policy.Setup{}, err
	}
	rl, setup, err := scanRowLog(ds, cfg.Logs, cfg.Setup)
	if err != nil {
		return nil, policy.Setup{}, err
	}
	lr, err := rl.Open()
	return lr, setup, err
}

// checkStated refuses a metric-convention flag given with a log that the
// log's header contradicts (policy.CheckStated, the rule every command
// reading a log applies) or does not state: the rewards were scored by the
// logger, so such a flag could only be ignored.
func checkStated(stated []StatedFlag, path string, h data.Header) error {
	byFlag := make(map[string]string, len(stated))
	for _, s := range stated {
		byFlag[s.Flag] = s.Value
	}
	if err := policy.CheckStated(path, h, byFlag); err != nil {
		return err
	}
	for _, s := range stated {
		if key := policy.StatedKeys[s.Flag]; h[key] == "" {
			return fmt.Errorf("--%s %s: %s's header has no %s=; its rewards were scored by the logger, so --%s would have no effect", s.Flag, s.Value, path, key, s.Flag)
		}
	}
	return nil
}

// statsSimulated simulates cfg.Samples impressions straight into
// statistics, and returns them with their Replay.
func statsSimulated(ctx context.Context, cfg ImputeConfig, ds *data.Dataset) (*impute.Stats, *impute.GammaCache, data.Header, Replay, error) {
	f := cfg.Setup
	if !f.SlotsSet {
		return nil, nil, nil, nil, fmt.Errorf("--samples needs --slots")
	}
	if !f.LoggingSet {
		return nil, nil, nil, nil, fmt.Errorf("--samples needs --logging")
	}
	if f.Policy != "" {
		return nil, nil, nil, nil, fmt.Errorf("--policy reads a log's policy file: give it with --logs, not --samples")
	}
	setup, err := policy.ParseSetup(f)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	conv, err := settleMaxRel(cfg.Conventions, ds)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	spec := SimulationSpec{DataPath: cfg.Data, Setup: setup, Metric: eval.Metric{Kind: cfg.Metric, K: setup.Slots, Conventions: conv},
		Samples: cfg.Samples, Seed: cfg.Seed}
	bar := progress.New(cfg.Progress, "impute --samples", cfg.Samples, "samples")
	defer bar.Done()
	return SimulateReplay(ctx, ds, spec, bar.Add)
}

// writeGammas writes one line on Γ's conditioning, and warns when some Γ
// is not exact.
func writeGammas(w io.Writer, gc *impute.GammaCache) {
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
		fmt.Fprintf(w, "impute: Γ of %d distinct context policies; worst conditioned m=%d ℓ=%d (%s): rank %d, eigenvalues %.3g..%.3g\n",
			len(all), worst.M(), worst.L(), worst.Dist().Logging(), sp.Rank, sp.MinKept, sp.Max)
	} else {
		fmt.Fprintf(w, "impute: Γ (%s) over %d query shapes; worst conditioned m=%d ℓ=%d: rank %d, eigenvalues %.3g..%.3g\n",
			gc.Logging(), len(all), worst.M(), worst.L(), sp.Rank, sp.MinKept, sp.Max)
	}
	switch ap := gc.Approximations(); {
	case ap.N > 0 && ap.Methods == "monte-carlo":
		fmt.Fprintf(w, "impute: warning: Γ of %d shapes estimated by Monte Carlo (largest standard error %.2g)\n", ap.N, ap.StdErr)
	case ap.N > 0:
		fmt.Fprintf(w, "impute: Γ of %d policies approximated (%s): max |error| of an entry ≤ %.2g", ap.N, ap.Methods, ap.Bound)
		if ap.StdErr > 0 {
			fmt.Fprintf(w, ", Monte Carlo standard error %.2g", ap.StdErr)
		}
		fmt.Fprintln(w)
	}
}
