package eval

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteRandomERR averages ERR@k over every ordered slate of min(k, m)
// distinct documents (one empty slate for an empty query).
func bruteRandomERR(labels []uint8, k int, c Conventions) float64 {
	sum, n := 0.0, 0
	slates(len(labels), max(min(k, len(labels)), 0), func(s []int32) { sum += ERR(labels, s, k, c); n++ })
	return sum / float64(n)
}

func TestRandomERREqualsEnumeration(t *testing.T) {
	tests := []struct {
		labels  []uint8
		maxRels []int
	}{
		{nil, []int{0, 4}},
		{[]uint8{}, []int{4}},
		{[]uint8{0}, []int{0, 4}},
		{[]uint8{3}, []int{3, 4, 8}},
		{[]uint8{0, 0, 0, 0}, []int{0, 4}},
		{[]uint8{1, 0}, []int{1, 4}},
		{[]uint8{0, 0, 4}, []int{4, 5}},
		{[]uint8{2, 0, 1, 3, 0}, []int{3, 4, 8}},
		{[]uint8{4, 4, 4, 4, 4, 4}, []int{4, 6}},
		{[]uint8{2, 0, 1, 3, 0, 4, 1}, []int{4, 5, 10}},
		{[]uint8{1, 1, 2, 2, 3, 3, 4}, []int{4}},
		{[]uint8{0, 0, 0, 0, 0, 0, 1}, []int{1, 4}},
	}
	for _, tc := range tests {
		for _, maxRel := range tc.maxRels {
			for k := 0; k <= len(tc.labels)+2; k++ {
				t.Run(fmt.Sprintf("%v/maxrel%d/k%d", tc.labels, maxRel, k), func(t *testing.T) {
					c := Conventions{MaxRel: maxRel}
					want := bruteRandomERR(tc.labels, k, c)
					if got := RandomERR(tc.labels, k, c); math.Abs(got-want) > 1e-12 {
						t.Fatalf("RandomERR = %.17g, enumeration %.17g", got, want)
					}
				})
			}
		}
	}
}

// Conventions other than MaxRel do not enter ERR.
func TestRandomERRIgnoresNDCGConventions(t *testing.T) {
	labels := []uint8{2, 0, 1, 3, 0, 4, 1}
	want := RandomERR(labels, 3, Conventions{MaxRel: 4})
	for _, c := range []Conventions{{MaxRel: 4, EmptyOne: true}, {MaxRel: 4, Discount: DiscountLog2Max2}} {
		if got := RandomERR(labels, 3, c); got != want {
			t.Errorf("%v: %v, want %v", c, got, want)
		}
	}
	if got := RandomERR([]uint8{0, 0, 0}, 3, Conventions{MaxRel: 4, EmptyOne: true}); got != 0 {
		t.Errorf("no relevant document, EmptyOne: %v, want 0", got)
	}
}

// monteCarloERR is the Monte Carlo estimate RandomERR used to return: the
// mean ERR@k of n uniform slates from rng (partial Fisher–Yates) and its
// standard error.
func monteCarloERR(labels []uint8, k int, c Conventions, n int, rng *rand.Rand) (mean, stderr float64) {
	m := len(labels)
	l := min(k, m)
	perm := make([]int32, m)
	for i := range perm {
		perm[i] = int32(i)
	}
	var sum, sum2 float64
	for range n {
		for j := 0; j < l; j++ {
			t := j + rng.IntN(m-j)
			perm[j], perm[t] = perm[t], perm[j]
		}
		e := ERR(labels, perm[:l], k, c)
		sum += e
		sum2 += e * e
	}
	mean = sum / float64(n)
	v := (sum2 - float64(n)*mean*mean) / float64(n-1)
	return mean, math.Sqrt(math.Max(v, 0) / float64(n))
}

func randomGrades(rng *rand.Rand, n, top int) []uint8 {
	labels := make([]uint8, n)
	for i := range labels {
		// Mostly irrelevant documents, as in LETOR data.
		if rng.IntN(3) == 0 {
			labels[i] = uint8(1 + rng.IntN(top))
		}
	}
	return labels
}

func TestRandomERRAgreesWithMonteCarlo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	labels := randomGrades(rng, 200, 4)
	c := Conventions{MaxRel: 4}
	got := RandomERR(labels, 10, c)
	mc, se := monteCarloERR(labels, 10, c, 200000, rng)
	if se <= 0 || se > 1e-3 {
		t.Fatalf("standard error %g out of range", se)
	}
	if math.Abs(got-mc) > 4*se {
		t.Fatalf("RandomERR = %.6g, Monte Carlo %.6g ± %.2g", got, mc, se)
	}
}

// ratRandomERR computes the expected ERR@k of a uniform slate exactly in
// rationals, without RandomERR's telescoping: slot j's term is
// E[R(s_j)·Π_{i<j} q(s_i)] = h_{j−1} / (C(m, j−1)·(m−j+1)), where
// h_t = Σ_{|S|=t} Π_{a∈S} q_a · Σ_{b∉S} R_b (the first j−1 slots are a
// uniform (j−1)-subset S, slot j uniform over the rest). With R = G/2^M and
// q = Q/2^M (G = 2^g − 1, Q = 2^M − G integers), H_t = 2^{M(t+1)}·h_t and
// E_t = 2^{Mt}·e_t(q) are integers, and adding document a updates
// H_t += G_a·E_t + Q_a·H_{t−1}, E_t += Q_a·E_{t−1}.
func ratRandomERR(labels []uint8, k, maxRel int) *big.Rat {
	m := len(labels)
	l := min(k, m)
	sum := new(big.Rat)
	if l <= 0 {
		return sum
	}
	E := make([]*big.Int, l) // E_0 … E_{l−1}
	H := make([]*big.Int, l)
	for t := range E {
		E[t], H[t] = new(big.Int), new(big.Int)
	}
	E[0].SetInt64(1)
	one := big.NewInt(1)
	scale := new(big.Int).Lsh(one, uint(maxRel))
	tmp := new(big.Int)
	for i, g := range labels {
		G := new(big.Int).Sub(new(big.Int).Lsh(one, uint(g)), one)
		Q := new(big.Int).Sub(scale, G)
		for t := min(i+1, l-1); t >= 0; t-- {
			H[t].Add(H[t], tmp.Mul(G, E[t]))
			if t > 0 {
				H[t].Add(H[t], tmp.Mul(Q, H[t-1]))
				E[t].Add(E[t], tmp.Mul(Q, E[t-1]))
			}
		}
	}
	for j := 1; j <= l; j++ {
		// den = j · 2^{Mj} · C(m, j−1) · (m−j+1)
		den := new(big.Int).Binomial(int64(m), int64(j-1))
		den.Mul(den, big.NewInt(int64(j*(m-j+1))))
		den.Lsh(den, uint(maxRel*j))
		sum.Add(sum, new(big.Rat).SetFrac(H[j-1], den))
	}
	return sum
}

func TestRandomERRExactRational(t *testing.T) {
	// The rational reference agrees with enumeration on small queries.
	for _, labels := range [][]uint8{{2, 0, 1, 3, 0, 4, 1}, {0, 0, 0}, {4}, {1, 0, 2}} {
		for k := 0; k <= len(labels)+1; k++ {
			want := bruteRandomERR(labels, k, Conventions{MaxRel: 4})
			if got, _ := ratRandomERR(labels, k, 4).Float64(); math.Abs(got-want) > 1e-12 {
				t.Fatalf("%v k=%d: rational reference %.17g, enumeration %.17g", labels, k, got, want)
			}
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	tests := []struct {
		name      string
		n, k, top int
		maxRel    int
	}{
		{"n200 k10", 200, 10, 4, 4},
		{"n908 k10", 908, 10, 4, 4},
		{"n908 k10 maxrel 5", 908, 10, 4, 5},
		{"n908 k10 grade 1 only", 908, 10, 1, 1},
		// R ≈ 2^-251: the terms are tiny and must keep their relative digits.
		{"n908 k10 maxrel 255", 908, 10, 4, 255},
		{"n908 k32", 908, 32, 4, 4},
		{"n1000 k40 maxrel 2", 1000, 40, 2, 2},
		{"n12 k12", 12, 12, 4, 4},
		{"n40 k40", 40, 40, 3, 3},
		{"n40 k50", 40, 50, 3, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			labels := randomGrades(rng, tc.n, tc.top)
			want, _ := ratRandomERR(labels, tc.k, tc.maxRel).Float64()
			got := RandomERR(labels, tc.k, Conventions{MaxRel: tc.maxRel})
			if want <= 0 || math.Abs(got-want) > 1e-13*want {
				t.Fatalf("RandomERR = %.17g, exact %.17g (relative error %.2g)", got, want, math.Abs(got-want)/want)
			}
		})
	}
}

// The result does not depend on the documents' order, and adding
// irrelevant documents beyond ℓ lowers it.
func TestRandomERRSymmetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	labels := randomGrades(rng, 300, 4)
	c := Conventions{MaxRel: 4}
	want := RandomERR(labels, 10, c)
	shuffled := slices.Clone(labels)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	if got := RandomERR(shuffled, 10, c); math.Abs(got-want) > 1e-14 {
		t.Errorf("shuffled: %.17g, want %.17g", got, want)
	}
	if got := RandomERR(append(shuffled, make([]uint8, 100)...), 10, c); got >= want {
		t.Errorf("with 100 more irrelevant documents: %.17g, not below %.17g", got, want)
	}
}

func TestRandomERRNoAllocs(t *testing.T) {
	labels := randomGrades(rand.New(rand.NewPCG(9, 10)), 908, 4)
	c := Conventions{MaxRel: 4}
	if a := testing.AllocsPerRun(20, func() { RandomERR(labels, 10, c) }); a != 0 {
		t.Errorf("ℓ = 10: %v allocations per call", a)
	}
	if a := testing.AllocsPerRun(20, func() { RandomERR(labels, 100, c) }); a > 1 {
		t.Errorf("ℓ = 100: %v allocations per call, want one scratch buffer", a)
	}
}

func BenchmarkRandomERR(b *testing.B) {
	labels := randomGrades(rand.New(rand.NewPCG(9, 10)), 908, 4)
	c := Conventions{MaxRel: 4}
	for b.Loop() {
		RandomERR(labels, 10, c)
	}
}
