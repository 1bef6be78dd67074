package report

import (
	"math"
	"strconv"
	"strings"
)

// Number writes a tick label, a count or a sample size in the one notation
// every report uses: at most four significant digits, thousands as k, M,
// G and T (100, 1k, 10k, 100k, 1M; 17783 → 17.78k) and smaller numbers as
// plain decimals (0.001, 0.35), never in exponent form, so that no axis or
// table mixes 1e+05 with 100000. NaN is "-" (not available).
func Number(x float64) string {
	switch {
	case math.IsNaN(x):
		return "-"
	case math.IsInf(x, 1):
		return "∞"
	case math.IsInf(x, -1):
		return "-∞"
	case x == 0:
		return "0"
	}
	// Round to four significant digits first, so that 999950 becomes 1M
	// rather than 1000k.
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	a := math.Abs(r)
	for i, suffix := range []string{"T", "G", "M", "k"} {
		if p := math.Pow(10, float64(12-3*i)); a >= p {
			return trimZeros(strconv.FormatFloat(r/p, 'f', 3, 64)) + suffix
		}
	}
	// Decimals that keep four significant digits of r (at most 12: smaller
	// values are not drawn by piopt's reports anyway).
	d := min(max(3-int(math.Floor(math.Log10(a))), 0), 12)
	return trimZeros(strconv.FormatFloat(r, 'f', d, 64))
}

// trimZeros drops the trailing zeros of a decimal and a dangling point.
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// Decimals is the number of decimals a table column (or a whole table of
// the same kind of number) is printed with, so that all its entries line up
// and the smallest nonzero magnitude among vals still shows sig significant
// digits; it lies in [lo, hi] (lo when vals has no finite nonzero value).
func Decimals(vals []float64, sig, lo, hi int) int {
	m := math.Inf(1)
	for _, v := range vals {
		if a := math.Abs(v); a > 0 && !math.IsInf(a, 0) && !math.IsNaN(a) {
			m = min(m, a)
		}
	}
	if math.IsInf(m, 1) {
		return lo
	}
	// A value that rounds up a decade at sig digits (0.00996 at 2 → 0.010)
	// needs one decimal fewer; floor(log10) errs on the side of one more.
	d := sig - 1 - int(math.Floor(math.Log10(m)))
	return min(max(d, lo), hi)
}

// Fixed prints x with d decimals, "-" for NaN (not available); a value
// that rounds to zero loses its minus sign.
func Fixed(x float64, d int) string {
	if math.IsNaN(x) {
		return "-"
	}
	s := strconv.FormatFloat(x, 'f', d, 64)
	if strings.HasPrefix(s, "-") && strings.Trim(s, "-0.") == "" {
		s = s[1:]
	}
	return s
}

// FixedColumn prints vals with the common decimals Decimals(vals, sig, lo,
// hi).
func FixedColumn(vals []float64, sig, lo, hi int) []string {
	d := Decimals(vals, sig, lo, hi)
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = Fixed(v, d)
	}
	return out
}
