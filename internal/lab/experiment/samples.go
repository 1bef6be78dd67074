package experiment

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ParseSamples reads a --samples value: one log size or a comma-separated
// list of them, each an integer as strconv.ParseInt reads it in base 0
// (10000000, 10_000_000) or a whole number in scientific notation (1e7,
// 2.5e6). The sizes come back ascending; each must be ≥ 1 and appear once.
func ParseSamples(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		n, err := strconv.ParseInt(f, 0, 64)
		if err != nil {
			x, ferr := strconv.ParseFloat(f, 64)
			// 2^63 is the first float64 above every int64.
			if ferr != nil || x != math.Trunc(x) || math.Abs(x) >= 1<<63 || strings.ContainsAny(f, "xXpP_") {
				return nil, fmt.Errorf("--samples %q: %q is not a whole number of impressions (like 1000000 or 1e6)", s, f)
			}
			n = int64(x)
		}
		if n < 1 {
			return nil, fmt.Errorf("--samples %d: must be ≥ 1", n)
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("--samples %q: %d impressions given twice", s, n)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out, nil
}

// TargetsKindPI names PI-OPT's targets in a curve point: φ̂ = Γ†(r·1_s),
// the paper's and today's only kind. A point is keyed by (samples,
// targets_kind) so that other kinds of targets add points, not keys.
const TargetsKindPI = "pi"

// CurvePoint is one point of the sample-efficiency curve: every fold's
// results at one log size (impressions per fold and metric, Config.Samples)
// and one kind of PI-OPT targets, with their means and standard deviations
// across folds, exactly as a run of that size alone gives them.
type CurvePoint struct {
	Samples     int64
	TargetsKind string
	Folds       []FoldResult
	Mean, Std   map[string]map[string]float64
	Logger      *LoggerGain // PI-OPT's gain over the logger (Config.RankBy)
}

// MarshalJSON writes a point as summary.json's "curve" holds it:
// {"folds": [...], "mean": {...}, "samples": N, "std": {...},
// "targets_kind": "pi"}, the folds as in a run of one size.
func (p *CurvePoint) MarshalJSON() ([]byte, error) {
	m := map[string]any{
		"samples":      p.Samples,
		"targets_kind": p.TargetsKind,
		"folds":        foldsJSON(p.Folds),
		"mean":         p.Mean,
		"std":          p.Std,
	}
	if p.Logger != nil {
		m["logger"] = p.Logger
	}
	return json.Marshal(m)
}

// checkCurve refuses sizes that are not ascending and ≥ 1.
func checkCurve(sizes []int64) error {
	for i, n := range sizes {
		if n < 1 || i > 0 && n <= sizes[i-1] {
			return fmt.Errorf("experiment: curve sizes %v: want distinct sizes ≥ 1, ascending", sizes)
		}
	}
	return nil
}

// runCurve runs every fold at each of cfg.Curve's log sizes. A size's
// results are those of a run with Samples set to it alone, because each
// one is that run's fold (same keys, same cached stages): what does not
// depend on the size is made once and shared, the datasets (loaded once per
// fold), the max-label and hash caches and SUP's and LambdaMART's models
// (keyed without the size, so trained at the first size and read back at
// the others).
//
// The logs of the sizes are not prefixes of one simulation at the largest
// size, though any prefix of a simulated log is an i.i.d. log, and the
// per-query sums at each prefix would equal a separate run's bit for bit
// (impute.Simulation draws each query's slates from its own stream, in
// order). Simulating the sizes below the largest costs at most 11% of
// the largest one's simulation (10^4 + 10^5 + 10^6 against 10^7), itself a
// few seconds of a fold whose training takes minutes, while sharing
// prefixes would need per-size snapshots inside impute's fused simulation
// and targets that no longer stand alone in the stage cache.
func runCurve(ctx context.Context, cfg Config) (*Summary, error) {
	sizes := cfg.Curve
	if len(sizes) == 0 {
		sizes = []int64{cfg.Samples}
	}
	if err := checkCurve(sizes); err != nil {
		return nil, err
	}
	kinds := cfg.CurveKinds
	if len(kinds) == 0 {
		kinds = []string{cmp.Or(cfg.TargetsKind, TargetsKindPI)}
	}
	cfg.Samples = sizes[len(sizes)-1]
	r, s, err := begin(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s.Config["samples"] = sizes
	if len(kinds) > 1 {
		s.Config["targets_kind"] = kinds
	}
	for _, k := range kinds {
		for _, n := range sizes {
			s.Curve = append(s.Curve, &CurvePoint{Samples: n, TargetsKind: k})
		}
	}
	for _, f := range cfg.Folds {
		for _, pt := range s.Curve {
			r.cfg.Samples, r.cfg.TargetsKind = pt.Samples, pt.TargetsKind
			res, err := r.fold(ctx, f)
			if err != nil {
				return nil, fmt.Errorf("fold %d, %d samples, %s targets: %w", f.Number, pt.Samples, pt.TargetsKind, err)
			}
			pt.Folds = append(pt.Folds, *res)
			s.Run.addFold(res, r.reused)
			s.Run.Folds[len(s.Run.Folds)-1].Samples = pt.Samples
			if len(kinds) > 1 {
				s.Run.Folds[len(s.Run.Folds)-1].TargetsKind = pt.TargetsKind
			}
		}
	}
	for _, p := range s.Curve {
		ps := &Summary{Metrics: s.Metrics, Policies: s.Policies, Folds: p.Folds}
		ps.summarize()
		p.Mean, p.Std = ps.Mean, ps.Std
		p.Logger = r.loggerGain(p.Folds)
	}
	// The largest size's results are the summary's own (the table's notes
	// and the logger's differences read them).
	last := s.Curve[len(s.Curve)-1]
	s.Folds, s.Mean, s.Std, s.Logger = last.Folds, last.Mean, last.Std, last.Logger
	s.Run.Seconds["total"] = time.Since(r.start).Seconds()
	return s, nil
}
