package eval

import (
	"fmt"
	"math"
	"testing"
)

const log2of3 = 1.584962500721156

func TestNDCGHandComputed(t *testing.T) {
	log2 := Conventions{Discount: DiscountLog2}
	max2 := Conventions{Discount: DiscountLog2Max2}
	one := Conventions{Discount: DiscountLog2, EmptyOne: true}
	labels := []uint8{2, 0, 1, 3} // gains 3, 0, 1, 7
	tests := []struct {
		name   string
		labels []uint8
		slate  []int32
		k      int
		c      Conventions
		want   float64
	}{
		{"ideal order", labels, []int32{3, 0, 2}, 3, log2, 1},
		{"poor order", labels, []int32{0, 1, 2}, 3, log2, (3 + 0.5) / (7 + 3/log2of3 + 0.5)},
		{"max2 discount", labels, []int32{0, 1, 2}, 3, max2, (3 + 1/log2of3) / (7 + 3 + 1/log2of3)},
		{"max2 slot 2 undiscounted", labels, []int32{0, 3}, 2, max2, (3 + 7) / (7 + 3.0)},
		{"fewer docs than slots", []uint8{1, 0}, []int32{1, 0}, 3, log2, 1 / log2of3},
		{"empty query scores 0", []uint8{0, 0, 0}, []int32{0, 1, 2}, 3, log2, 0},
		{"empty query scores 1", []uint8{0, 0, 0}, []int32{0, 1, 2}, 3, one, 1},
		{"cut at k", labels, []int32{1, 3}, 1, log2, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := NDCG(tc.labels, tc.slate, tc.k, tc.c)
			if math.Abs(got-tc.want) > 1e-12 {
				t.Fatalf("NDCG = %.15g, want %.15g", got, tc.want)
			}
			m := Metric{Kind: KindNDCG, K: tc.k, Conventions: tc.c}
			offsets := []int{0, len(tc.labels)}
			if fast := NewScorer(m, tc.labels, offsets).Score(0, tc.slate); math.Abs(fast-tc.want) > 1e-12 {
				t.Fatalf("Scorer.Score = %.15g, want %.15g", fast, tc.want)
			}
		})
	}
}

func TestERRHandComputed(t *testing.T) {
	tests := []struct {
		name   string
		labels []uint8
		slate  []int32
		maxRel int
		want   float64
	}{
		{"maxrel 2", []uint8{2, 1, 0}, []int32{0, 1, 2}, 2, 0.75 + 0.5*0.25*0.25},
		{"maxrel 4", []uint8{2, 1, 0}, []int32{0, 1, 2}, 4, 3.0/16 + 0.5*(13.0/16)*(1.0/16)},
		{"maxrel 4 top grade", []uint8{4, 4}, []int32{1, 0}, 4, 15.0/16 + 0.5*(1.0/16)*(15.0/16)},
		{"no relevant doc", []uint8{0, 0}, []int32{0, 1}, 4, 0},
		{"third slot", []uint8{0, 0, 1}, []int32{0, 1, 2}, 2, (1.0 / 3) * 0.25},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Conventions{MaxRel: tc.maxRel}
			got := ERR(tc.labels, tc.slate, 3, c)
			if math.Abs(got-tc.want) > 1e-15 {
				t.Fatalf("ERR = %.17g, want %.17g", got, tc.want)
			}
			m := Metric{Kind: KindERR, K: 3, Conventions: c}
			if fast := NewScorer(m, tc.labels, []int{0, len(tc.labels)}).Score(0, tc.slate); math.Abs(fast-tc.want) > 1e-15 {
				t.Fatalf("Scorer.Score = %.17g, want %.17g", fast, tc.want)
			}
		})
	}
}

// slates calls f with every ordered slate of l distinct documents out of m.
func slates(m, l int, f func([]int32)) {
	s := make([]int32, 0, l)
	used := make([]bool, m)
	var rec func()
	rec = func() {
		if len(s) == l {
			f(s)
			return
		}
		for a := range m {
			if !used[a] {
				used[a] = true
				s = append(s, int32(a))
				rec()
				s = s[:len(s)-1]
				used[a] = false
			}
		}
	}
	rec()
}

func TestRandomNDCGIsExactExpectation(t *testing.T) {
	for _, labels := range [][]uint8{{2, 0, 1, 3, 0}, {1, 0}, {0, 0, 4}, {0, 0}} {
		for _, disc := range []Discount{DiscountLog2, DiscountLog2Max2} {
			c := Conventions{Discount: disc}
			k := 3
			l := min(k, len(labels))
			sum, n := 0.0, 0
			slates(len(labels), l, func(s []int32) { sum += NDCG(labels, s, k, c); n++ })
			want := sum / float64(n)
			if got := RandomNDCG(labels, k, c); math.Abs(got-want) > 1e-12 {
				t.Errorf("labels %v %v: RandomNDCG = %.15g, brute force %.15g", labels, disc, got, want)
			}
		}
	}
}

func TestParse(t *testing.T) {
	if k, err := ParseKind("ERR"); err != nil || k != KindERR {
		t.Fatalf("ParseKind(ERR) = %v, %v", k, err)
	}
	if _, err := ParseKind("map"); err == nil {
		t.Fatal("ParseKind(map) accepted")
	}
	if d, err := ParseDiscount("max2"); err != nil || d != DiscountLog2Max2 {
		t.Fatalf("ParseDiscount(max2) = %v, %v", d, err)
	}
	if got := (Metric{Kind: KindERR, K: 3}).Name(); got != "err@3" {
		t.Fatalf("Name = %q", got)
	}
}

func TestCheckMaxRel(t *testing.T) {
	for _, tt := range []struct {
		maxRel, highest int
		want            string
	}{
		{4, 2, ""},
		{2, 2, ""},
		{0, 0, ""},
		{255, 4, ""},
		{1, 2, "maxrel 1 is below the data's highest grade 2"},
		{-3, 0, "maxrel -3 is not a non-negative integer"},
		{256, 4, "maxrel 256 is above 255, the highest grade a file can hold"},
	} {
		err := CheckMaxRel(tt.maxRel, tt.highest)
		if got := fmt.Sprint(err); (tt.want == "" && err != nil) || (tt.want != "" && got != tt.want) {
			t.Errorf("CheckMaxRel(%d, %d) = %v, want %q", tt.maxRel, tt.highest, err, tt.want)
		}
	}
}
