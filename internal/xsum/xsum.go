// Package xsum sums float64 values exactly, so that a sum does not depend
// on the order of its terms: the sharded runs of piopt (impute and evaluate
// --shard, then merge) add the same terms in another order than one
// process does, and must still give the same bits.
//
// A Sum is a fixed-point integer of 2,176 bits in 68 chunks of 32 bits,
// each held in an int64 so that carries are propagated only once every
// 2²⁹ additions (a "small superaccumulator", after Neal 2015, "Fast exact
// summation using small and large superaccumulators"). Every finite
// float64 is an integer multiple of 2⁻¹⁰⁷⁴ below 2¹⁰²⁴, so it is added
// without rounding; the sum is rounded once, to the nearest float64 (ties
// to even), when it is read. ±Inf and NaN terms are summed apart, as
// floats, which is order-independent too.
package xsum

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

const (
	chunks    = 68
	chunkBits = 32
	chunkMask = 1<<chunkBits - 1
	// carryEvery: each Add puts less than 2³³ into a chunk, so an int64
	// chunk holds 2²⁹ additions with room to spare before a carry pass.
	carryEvery = 1 << 29
)

// Sum is an exact sum of float64 values. The zero value is 0.
type Sum struct {
	chunk   [chunks]int64
	adds    int32
	special float64 // the sum of the ±Inf and NaN terms, 0 when none
}

// Add adds x exactly. It does not allocate.
func (s *Sum) Add(x float64) {
	bits := math.Float64bits(x)
	exp := int(bits>>52) & 0x7ff
	mant := bits & (1<<52 - 1)
	switch exp {
	case 0x7ff:
		s.special += x
		return
	case 0:
		if mant == 0 {
			return
		}
		exp = 1 // subnormal: mant·2⁻¹⁰⁷⁴
	default:
		mant |= 1 << 52
	}
	// x = ±mant·2^(sh−1074): chunk i holds bits 32i..32i+31 above 2⁻¹⁰⁷⁴.
	sh := exp - 1
	i, lo := sh>>5, uint(sh&31)
	p0 := (mant & chunkMask) << lo  // < 2⁶³
	p1 := (mant >> chunkBits) << lo // < 2⁵²
	a := int64(p0 & chunkMask)
	b := int64(p0>>chunkBits) + int64(p1&chunkMask)
	c := int64(p1 >> chunkBits)
	if bits>>63 != 0 {
		a, b, c = -a, -b, -c
	}
	s.chunk[i] += a
	s.chunk[i+1] += b
	s.chunk[i+2] += c
	s.adds++
	if s.adds >= carryEvery {
		s.carry()
	}
}

// carry propagates every chunk's excess into the next: afterwards every
// chunk but the last is in [0, 2³²) and the last carries the sign.
func (s *Sum) carry() {
	for k := 0; k < chunks-1; k++ {
		c := s.chunk[k] >> chunkBits // floor division: arithmetic shift
		s.chunk[k] -= c << chunkBits
		s.chunk[k+1] += c
	}
	s.adds = 0
}

// AddSum adds every term of o to s.
func (s *Sum) AddSum(o *Sum) {
	s.carry()
	oc := *o
	oc.carry()
	for k := range s.chunk {
		s.chunk[k] += oc.chunk[k]
	}
	s.adds = 2
	s.special += oc.special
}

// Reset sets s to 0.
func (s *Sum) Reset() { *s = Sum{} }

// integer returns the sum's finite part in units of 2⁻¹⁰⁷⁴.
func (s *Sum) integer() *big.Int {
	c := *s
	c.carry()
	z := new(big.Int).SetInt64(c.chunk[chunks-1])
	var w big.Int
	for k := chunks - 2; k >= 0; k-- {
		z.Lsh(z, chunkBits)
		z.Add(z, w.SetInt64(c.chunk[k]))
	}
	return z
}

// Float64 returns the sum rounded to the nearest float64 (ties to even; ±Inf
// beyond the largest float64).
func (s *Sum) Float64() float64 {
	if s.special != 0 || math.IsNaN(s.special) {
		return s.special // ±Inf or NaN: the finite terms do not matter
	}
	z := s.integer()
	if z.Sign() == 0 {
		return 0
	}
	f := new(big.Float).SetInt(z) // exact: its precision is z's bit length
	f.SetMantExp(f, -1074)
	x, _ := f.Float64()
	return x
}

// String encodes s exactly: the finite part as a hexadecimal integer in
// units of 2⁻¹⁰⁷⁴, then, when there are ±Inf or NaN terms, "/" and their
// sum. Parse reads it back.
func (s *Sum) String() string {
	out := s.integer().Text(16)
	if s.special != 0 || math.IsNaN(s.special) {
		out += "/" + strconv.FormatFloat(s.special, 'g', -1, 64)
	}
	return out
}

// maxHexDigits bounds an encoded sum: 2,176 bits are 544 hex digits.
const maxHexDigits = chunks * chunkBits / 4

// Parse reads a sum written by String.
func Parse(text string) (Sum, error) {
	var s Sum
	num, special, hasSpecial := strings.Cut(text, "/")
	digits := strings.TrimPrefix(num, "-")
	if len(digits) == 0 || len(digits) > maxHexDigits {
		return s, fmt.Errorf("exact sum %q: want 1 to %d hexadecimal digits", shorten(text), maxHexDigits)
	}
	z, ok := new(big.Int).SetString(num, 16)
	if !ok {
		return s, fmt.Errorf("exact sum %q is not a hexadecimal integer", shorten(text))
	}
	if z.BitLen() > chunks*chunkBits-2 {
		return s, fmt.Errorf("exact sum %q is out of range", shorten(text))
	}
	neg := z.Sign() < 0
	z.Abs(z)
	var mask big.Int
	mask.SetUint64(chunkMask)
	var part big.Int
	for k := range chunks {
		v := int64(part.And(z, &mask).Uint64())
		if neg {
			v = -v
		}
		s.chunk[k] = v
		z.Rsh(z, chunkBits)
	}
	if hasSpecial {
		x, err := strconv.ParseFloat(special, 64)
		if err != nil || !(math.IsInf(x, 0) || math.IsNaN(x)) {
			return Sum{}, fmt.Errorf("exact sum %q: %q after / is not ±Inf or NaN", shorten(text), shorten(special))
		}
		s.special = x
	}
	s.carry()
	return s, nil
}

func shorten(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
