package impute

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

type baseKind uint8

const (
	baseUniform baseKind = iota
	basePA
	basePL     // Plackett–Luce on per-candidate scores
	baseSlates // an explicit distribution over slates
)

// maxAlpha bounds p_α's exponent so that every weight 2^(−α·⌊log2 rank⌋)
// stays a normal float64 for any realistic query size.
const maxAlpha = 32

// Logging is a logging policy μ: how a slate of ℓ distinct documents is
// drawn from a query's m candidates. It is a small value; the zero value is
// the uniform policy.
//
// The spellings ParseLogging reads and String writes are
//
//	uniform        every ordered slate without repetition equally likely
//	pa:ALPHA       slot by slot without replacement, candidate of rank r
//	               drawn with weight 2^(−ALPHA·⌊log2 r⌋) (rank 1 = best)
//	pl:TAU         Plackett–Luce on the candidates' scores: slot by slot
//	               without replacement, candidate a drawn with weight
//	               exp(s_a/TAU); the scores come with each context
//	               (ScoredDist)
//	slates         an explicit distribution over slates, given with each
//	               context (SlateDist)
//	eps:E,POLICY   (1−E)·POLICY + E·uniform over slates, POLICY being any
//	               of the above but a mixture
type Logging struct {
	base  baseKind
	alpha float64 // p_α exponent (basePA) or Plackett–Luce temperature τ (basePL)
	eps   float64 // probability of the uniform component, in [0, 1]
}

// Uniform returns the uniform logging policy over ordered slates without
// repetition.
func Uniform() Logging { return Logging{} }

// pa returns the rank-based policy p_α: weights 2^(−α·⌊log2 rank⌋), drawn
// slot by slot without replacement. α must lie in [0, maxAlpha].
func pa(alpha float64) (Logging, error) {
	if !(alpha >= 0 && alpha <= maxAlpha) {
		return Logging{}, fmt.Errorf("logging pa:%v: α must be in [0, %d]", alpha, maxAlpha)
	}
	return Logging{base: basePA, alpha: alpha}, nil
}

// pl returns Plackett–Luce sampling at temperature τ > 0 (finite): a
// candidate of score s is drawn with weight exp(s/τ).
func pl(tau float64) (Logging, error) {
	if !(tau > 0 && !math.IsInf(tau, 1)) {
		return Logging{}, fmt.Errorf("logging pl:%v: τ must be a positive finite number", tau)
	}
	return Logging{base: basePL, alpha: tau}, nil
}

// slates returns the policy of an explicit distribution over slates.
func slates() Logging { return Logging{base: baseSlates} }

// mix returns (1−eps)·base + eps·uniform. base must not itself be a mixture.
func mix(eps float64, base Logging) (Logging, error) {
	if !(eps >= 0 && eps <= 1) {
		return Logging{}, fmt.Errorf("logging eps:%v: E must be in [0, 1]", eps)
	}
	if base.eps != 0 {
		return Logging{}, fmt.Errorf("logging eps:%v,%s: nested mixtures are not supported", eps, base)
	}
	base.eps = eps
	return base, nil
}

// ParseLogging reads a logging policy spelled as documented on Logging.
func ParseLogging(spec string) (Logging, error) {
	spec = strings.TrimSpace(spec)
	if rest, ok := strings.CutPrefix(spec, "eps:"); ok {
		e, base, ok := strings.Cut(rest, ",")
		if !ok {
			return Logging{}, fmt.Errorf("logging %q: want eps:E,POLICY", spec)
		}
		eps, err := strconv.ParseFloat(e, 64)
		if err != nil {
			return Logging{}, fmt.Errorf("logging %q: E: %w", spec, err)
		}
		b, err := parseBase(base)
		if err != nil {
			return Logging{}, fmt.Errorf("logging %q: %w", spec, err)
		}
		return mix(eps, b)
	}
	return parseBase(spec)
}

func parseBase(spec string) (Logging, error) {
	if spec == "uniform" {
		return Uniform(), nil
	}
	if a, ok := strings.CutPrefix(spec, "pa:"); ok {
		alpha, err := strconv.ParseFloat(a, 64)
		if err != nil {
			return Logging{}, fmt.Errorf("logging %q: ALPHA: %w", spec, err)
		}
		return pa(alpha)
	}
	if t, ok := strings.CutPrefix(spec, "pl:"); ok {
		tau, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return Logging{}, fmt.Errorf("logging %q: TAU: %w", spec, err)
		}
		return pl(tau)
	}
	if spec == "slates" {
		return slates(), nil
	}
	return Logging{}, fmt.Errorf("logging %q: want uniform, pa:ALPHA, pl:TAU, slates or eps:E,POLICY", spec)
}

// String returns the canonical spelling, which ParseLogging reads back to an
// equal value.
func (lg Logging) String() string {
	b := "uniform"
	switch lg.base {
	case basePA:
		b = "pa:" + strconv.FormatFloat(lg.alpha, 'g', -1, 64)
	case basePL:
		b = "pl:" + strconv.FormatFloat(lg.alpha, 'g', -1, 64)
	case baseSlates:
		b = "slates"
	}
	if lg.eps == 0 {
		return b
	}
	return "eps:" + strconv.FormatFloat(lg.eps, 'g', -1, 64) + "," + b
}

// NeedsRanks reports whether the policy depends on the candidates' ranks
// (pa) or scores (pl), i.e. whether it needs a rank source.
func (lg Logging) NeedsRanks() bool {
	return lg.eps < 1 && (lg.base == basePA && lg.alpha != 0 || lg.base == basePL)
}

// NeedsScores reports whether the policy draws by the candidates' scores
// (pl): its distributions come from ScoredDist.
func (lg Logging) NeedsScores() bool { return lg.base == basePL }

// NeedsSlates reports whether the policy is an explicit slate distribution:
// its distributions come from SlateDist.
func (lg Logging) NeedsSlates() bool { return lg.base == baseSlates }

// isUniform reports whether the policy is the uniform distribution over
// slates (uniform itself, p_0, or a mixture of those).
func (lg Logging) isUniform() bool {
	return lg.eps == 1 || lg.base == baseUniform || lg.base == basePA && lg.alpha == 0
}

// weightOfClass returns p_α's weight of rank class c (ranks 2^c .. 2^(c+1)−1).
func (lg Logging) weightOfClass(c int) float64 { return math.Exp2(-lg.alpha * float64(c)) }
