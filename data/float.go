package data

import (
	"math"
	"strconv"
	"unsafe"
)

// pow10 holds the powers of ten that are exact in float64 and used by the
// fast path of scanFloat32.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8}

// fastLimit[k] = 2^24·10^k: the fast path requires m/10^k < 2^24.
var fastLimit = [...]uint64{
	1 << 24, 10 << 24, 100 << 24, 1000 << 24, 10000 << 24, 100000 << 24,
	1000000 << 24, 10000000 << 24, 100000000 << 24,
}

// scanFloat32 parses the field of line that starts at p, up to the next
// separator or the end, and returns the value, the field's end and whether
// the value is a finite number. The value is exactly what
// strconv.ParseFloat(field, 32) returns, without allocating.
//
// Most values in LETOR files are plain decimals such as "0.007477" or
// "-18.567793". For s = ±m/10^k with m < 2^53, k ≤ 8 and |x| < 2^24 the
// value is computed as float32(float64(m)/10^k). That rounds twice, which is
// exact here: m and 10^k are exact in float64, so the division is the
// float64 nearest x = m/10^k, and the float32 rounding can only differ from
// rounding x directly when float64(x) lands exactly on a float32 midpoint
// M = n·2^E (n < 2^25, E < 0 since x < 2^24) while x ≠ M. But x − M is a
// nonzero multiple of 1/(10^k·2^−E), so |x − M|/M ≥ 1/(10^k·n) > 2^−53
// (10^8·2^25 < 2^53), more than float64's half-ulp, so float64(x) ≠ M.
// For k = 0 the only rounding is the float32 one. Anything else (exponents,
// more digits, inf, nan) goes to strconv.ParseFloat, except the Go-only
// spellings no other LETOR reader accepts: hexadecimal ("0x1p-2") and
// underscores ("1_000") are not finite numbers here (see valueError).
func scanFloat32(line []byte, p int) (float32, int, bool) {
	i, neg := p, false
	if i < len(line) && (line[i] == '-' || line[i] == '+') {
		neg = line[i] == '-'
		i++
	}
	var m uint64
	nd, k := 0, 0
	for ; i < len(line) && line[i]-'0' < 10; i++ {
		m = m*10 + uint64(line[i]-'0')
		nd++
	}
	if i < len(line) && line[i] == '.' {
		for i++; i < len(line) && line[i]-'0' < 10; i++ {
			m = m*10 + uint64(line[i]-'0')
			nd++
			k++
		}
	}
	if (i == len(line) || separator[line[i]]) && nd > 0 && nd <= 15 && k < len(pow10) && (k == 0 || m < fastLimit[k]) {
		// k = 0: an integer below 10^15 is exact in float64; one rounding.
		f := float64(m)
		if k > 0 {
			f /= pow10[k]
		}
		if neg {
			f = -f
		}
		return float32(f), i, true
	}
	end := tokenEnd(line, i)
	v, ok := parseFloat32Slow(line[p:end])
	return v, end, ok
}

func parseFloat32Slow(s []byte) (float32, bool) {
	if !decimalSyntax(s) {
		return 0, false
	}
	// ParseFloat copies s into its error, so the string may alias s.
	f, err := strconv.ParseFloat(unsafe.String(&s[0], len(s)), 32)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return float32(f), false
	}
	return float32(f), true
}
