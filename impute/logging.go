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
)

// MaxAlpha bounds p_α's exponent so that every weight 2^(−α·⌊log2 rank⌋)
// stays a normal float64 for any realistic query size.
const MaxAlpha = 32

// Logging is a logging policy μ: how a slate of ℓ distinct documents is
// drawn from a query's m candidates. It is a small value; the zero value is
// the uniform policy.
//
// The spellings ParseLogging reads and String writes are
//
//	uniform        every ordered slate without repetition equally likely
//	pa:ALPHA       slot by slot without replacement, candidate of rank r
//	               drawn with weight 2^(−ALPHA·⌊log2 r⌋) (rank 1 = best)
//	eps:E,POLICY   (1−E)·POLICY + E·uniform over slates, POLICY being
//	               uniform or pa:ALPHA
type Logging struct {
	base  baseKind
	alpha float64 // p_α exponent (basePA only)
	eps   float64 // probability of the uniform component, in [0, 1]
}

// Uniform returns the uniform logging policy over ordered slates without
// repetition.
func Uniform() Logging { return Logging{} }

// PA returns the rank-based policy p_α: weights 2^(−α·⌊log2 rank⌋), drawn
// slot by slot without replacement. α must lie in [0, MaxAlpha].
func PA(alpha float64) (Logging, error) {
	if !(alpha >= 0 && alpha <= MaxAlpha) {
		return Logging{}, fmt.Errorf("logging pa:%v: α must be in [0, %d]", alpha, MaxAlpha)
	}
	return Logging{base: basePA, alpha: alpha}, nil
}

// Mix returns (1−eps)·base + eps·uniform. base must not itself be a mixture.
func Mix(eps float64, base Logging) (Logging, error) {
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
		return Mix(eps, b)
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
		return PA(alpha)
	}
	return Logging{}, fmt.Errorf("logging %q: want uniform, pa:ALPHA or eps:E,POLICY", spec)
}

// String returns the canonical spelling, which ParseLogging reads back to an
// equal value.
func (lg Logging) String() string {
	b := "uniform"
	if lg.base == basePA {
		b = "pa:" + strconv.FormatFloat(lg.alpha, 'g', -1, 64)
	}
	if lg.eps == 0 {
		return b
	}
	return "eps:" + strconv.FormatFloat(lg.eps, 'g', -1, 64) + "," + b
}

// NeedsRanks reports whether the policy depends on the candidates' ranks,
// i.e. whether it needs a rank source.
func (lg Logging) NeedsRanks() bool { return lg.base == basePA && lg.eps < 1 && lg.alpha != 0 }

// IsUniform reports whether the policy is the uniform distribution over
// slates (uniform itself, p_0, or a mixture of those).
func (lg Logging) IsUniform() bool { return !lg.NeedsRanks() }

// Alpha returns p_α's exponent (0 for the uniform base policy).
func (lg Logging) Alpha() float64 { return lg.alpha }

// Eps returns the weight of the uniform component (0 when not a mixture).
func (lg Logging) Eps() float64 { return lg.eps }

// weightOfClass returns p_α's weight of rank class c (ranks 2^c .. 2^(c+1)−1).
func (lg Logging) weightOfClass(c int) float64 { return math.Exp2(-lg.alpha * float64(c)) }
