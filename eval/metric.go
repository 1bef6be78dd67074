package eval

import (
	"fmt"
	"math"
	"strings"
)

// Discount selects the positional discount of DCG.
type Discount int

const (
	// DiscountLog2 is 1/log2(j+1): the paper's text and every library.
	DiscountLog2 Discount = iota
	// DiscountLog2Max2 is 1/log2(max(j,2)): what the paper's authors' scripts
	// computed (slots 1 and 2 both get discount 1).
	DiscountLog2Max2
)

// At returns the discount of 1-based slot j.
func (d Discount) At(j int) float64 {
	if d == DiscountLog2Max2 {
		return 1 / math.Log2(float64(max(j, 2)))
	}
	return 1 / math.Log2(float64(j+1))
}

// String returns the formula, as printed with results.
func (d Discount) String() string {
	if d == DiscountLog2Max2 {
		return "1/log2(max(j,2))"
	}
	return "1/log2(j+1)"
}

// ParseDiscount reads "log2" (1/log2(j+1)) or "max2" (1/log2(max(j,2))).
func ParseDiscount(s string) (Discount, error) {
	switch s {
	case "log2", "", "1/log2(j+1)":
		return DiscountLog2, nil
	case "max2", "1/log2(max(j,2))":
		return DiscountLog2Max2, nil
	}
	return 0, fmt.Errorf("eval: unknown discount %q (want log2 or max2)", s)
}

// Conventions are the choices on which ranking tools disagree. They are
// printed with every result so that numbers can be compared across tools.
type Conventions struct {
	Discount Discount
	// EmptyOne scores a query whose ideal DCG is 0 (no relevant document) as
	// NDCG 1, as LightGBM and XGBoost do; false scores it 0, as scikit-learn
	// and the paper's scripts do. ERR is 0 for such a query either way.
	EmptyOne bool
	// MaxRel is ERR's maxrel: R(a) = (2^rel − 1)/2^MaxRel. One value for a
	// whole experiment; usually the data's highest grade.
	MaxRel int
}

// maxMaxRel is the highest maxrel accepted: the highest grade a LETOR file
// can hold (grades are bytes).
const maxMaxRel = 255

// CheckMaxRel reports whether maxRel is a usable ERR maxrel for data whose
// highest grade is highest: a non-negative integer no larger than
// maxMaxRel, and not below highest (else R(a) exceeds 1 and ERR, or a
// simulated reward, leaves [0, 1]).
func CheckMaxRel(maxRel, highest int) error {
	switch {
	case maxRel < 0:
		return fmt.Errorf("maxrel %d is not a non-negative integer", maxRel)
	case maxRel > maxMaxRel:
		return fmt.Errorf("maxrel %d is above %d, the highest grade a file can hold", maxRel, maxMaxRel)
	case maxRel < highest:
		return fmt.Errorf("maxrel %d is below the data's highest grade %d", maxRel, highest)
	}
	return nil
}

// EmptyQueryNDCG returns the NDCG of a query without relevant documents, 0
// or 1: EmptyOne as results, file headers and JSON summaries print it.
func (c Conventions) EmptyQueryNDCG() int {
	if c.EmptyOne {
		return 1
	}
	return 0
}

// String renders the conventions in the form printed with results.
func (c Conventions) String() string {
	return fmt.Sprintf("discount=%s empty-query-ndcg=%d err-maxrel=%d", c.Discount, c.EmptyQueryNDCG(), c.MaxRel)
}

// Gain returns the DCG gain 2^rel − 1 of a grade.
func Gain(rel uint8) float64 { return math.Ldexp(1, int(rel)) - 1 }

// errProb returns ERR's stopping probability R = (2^rel − 1)/2^maxrel.
func errProb(rel uint8, maxRel int) float64 {
	return Gain(rel) / math.Ldexp(1, maxRel)
}

// dcg returns Σ_j (2^rel(s_j) − 1)·discount(j) over the slate.
func dcg(labels []uint8, slate []int32, d Discount) float64 {
	s := 0.0
	for j, a := range slate {
		s += Gain(labels[a]) * d.At(j+1)
	}
	return s
}

// IdealDCG returns the DCG of the min(k, len(labels)) most relevant documents.
func IdealDCG(labels []uint8, k int, d Discount) float64 {
	var hist [256]int
	for _, l := range labels {
		hist[l]++
	}
	s := 0.0
	j := 1
	for g := 255; g > 0 && j <= k; g-- {
		for n := hist[g]; n > 0 && j <= k; n-- {
			s += Gain(uint8(g)) * d.At(j)
			j++
		}
	}
	return s
}

// NDCG returns NDCG@k of the slate: its DCG over the ideal DCG of the
// query's min(k, m) best documents. A query without relevant documents scores
// 0 or 1 according to c.EmptyOne.
func NDCG(labels []uint8, slate []int32, k int, c Conventions) float64 {
	if len(slate) > k {
		slate = slate[:k]
	}
	ideal := IdealDCG(labels, k, c.Discount)
	if ideal == 0 {
		return float64(c.EmptyQueryNDCG())
	}
	return dcg(labels, slate, c.Discount) / ideal
}

// ERR returns the expected reciprocal rank of the slate (first k slots):
// Σ_r (1/r)·R(s_r)·Π_{i<r}(1 − R(s_i)), with R from c.MaxRel.
func ERR(labels []uint8, slate []int32, k int, c Conventions) float64 {
	if len(slate) > k {
		slate = slate[:k]
	}
	e, p := 0.0, 1.0
	for r, a := range slate {
		R := errProb(labels[a], c.MaxRel)
		e += p * R / float64(r+1)
		p *= 1 - R
	}
	return e
}

// RandomNDCG returns the exact expected NDCG@k of a uniformly random slate
// of min(k, m) distinct documents: every slot is marginally uniform over the
// query's documents, so E[DCG] = mean gain × Σ_j discount(j).
func RandomNDCG(labels []uint8, k int, c Conventions) float64 {
	ideal := IdealDCG(labels, k, c.Discount)
	if ideal == 0 {
		return float64(c.EmptyQueryNDCG())
	}
	mean := 0.0
	for _, l := range labels {
		mean += Gain(l)
	}
	mean /= float64(len(labels))
	disc := 0.0
	for j := 1; j <= min(k, len(labels)); j++ {
		disc += c.Discount.At(j)
	}
	return mean * disc / ideal
}

// Kind names a slate metric.
type Kind int

const (
	KindNDCG Kind = iota
	KindERR
)

// Metric is a slate metric at a cut-off with its conventions.
type Metric struct {
	Kind Kind
	K    int
	Conventions
}

// ParseKind reads "ndcg" or "err" (case-insensitive).
func ParseKind(s string) (Kind, error) {
	switch strings.ToLower(s) {
	case "ndcg":
		return KindNDCG, nil
	case "err":
		return KindERR, nil
	}
	return 0, fmt.Errorf("eval: unknown metric %q (want ndcg or err)", s)
}

// String returns "ndcg" or "err".
func (k Kind) String() string {
	if k == KindERR {
		return "err"
	}
	return "ndcg"
}

// Name returns the metric's name with its cut-off, e.g. "ndcg@3".
func (m Metric) Name() string { return fmt.Sprintf("%s@%d", m.Kind, m.K) }

// Scorer scores slates of one dataset fast: per-document gains (or ERR
// probabilities) and per-query normalisers are computed once, so scoring a
// slate costs ℓ loads and no allocation. It is what simulation loops use.
type Scorer struct {
	kind    Kind
	k       int
	offsets []int
	val     []float64 // per document: gain (NDCG) or R (ERR)
	norm    []float64 // per query: 1/DCG* (NDCG); < 0 means "score is 1"
	disc    []float64 // discount of slot j+1
}

// NewScorer prepares m for the dataset given by its labels and query offsets.
func NewScorer(m Metric, labels []uint8, offsets []int) *Scorer {
	s := &Scorer{kind: m.Kind, k: m.K, offsets: offsets, val: make([]float64, len(labels))}
	s.disc = make([]float64, m.K)
	for j := range s.disc {
		s.disc[j] = m.Discount.At(j + 1)
	}
	for i, l := range labels {
		if m.Kind == KindERR {
			s.val[i] = errProb(l, m.MaxRel)
		} else {
			s.val[i] = Gain(l)
		}
	}
	if m.Kind == KindNDCG {
		s.norm = make([]float64, len(offsets)-1)
		for q := range s.norm {
			ideal := IdealDCG(labels[offsets[q]:offsets[q+1]], m.K, m.Discount)
			switch {
			case ideal > 0:
				s.norm[q] = 1 / ideal
			case m.EmptyOne:
				s.norm[q] = -1
			}
		}
	}
	return s
}

// Score returns the metric of the slate (document positions inside query q).
// It gives the same value as Metric.score up to floating-point rounding of
// the division by DCG*.
func (s *Scorer) Score(q int, slate []int32) float64 {
	base := s.offsets[q]
	if len(slate) > s.k {
		slate = slate[:s.k]
	}
	if s.kind == KindERR {
		e, p := 0.0, 1.0
		for r, a := range slate {
			R := s.val[base+int(a)]
			e += p * R / float64(r+1)
			p *= 1 - R
		}
		return e
	}
	n := s.norm[q]
	if n < 0 {
		return 1
	}
	d := 0.0
	for j, a := range slate {
		d += s.val[base+int(a)] * s.disc[j]
	}
	return d * n
}

// MeanStd returns the mean and the sample standard deviation (n−1) of xs.
func MeanStd(xs []float64) (mean, std float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) > 1 {
		v := 0.0
		for _, x := range xs {
			v += (x - mean) * (x - mean)
		}
		std = math.Sqrt(v / float64(len(xs)-1))
	}
	return mean, std
}
