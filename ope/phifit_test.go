package ope

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/impute"
)

// phiSamples is a log in FitPhi's layout.
type phiSamples struct {
	q []int32
	s []int32 // Slots entries per sample, −1 past ℓ_x
	r []float32
}

func (ps *phiSamples) add(slots int, q int, sl []int32, r float64) {
	ps.q = append(ps.q, int32(q))
	ps.s = append(ps.s, sl...)
	for range slots - len(sl) {
		ps.s = append(ps.s, -1)
	}
	ps.r = append(ps.r, float32(r))
}

// TestPhiTargetsMatchImpute checks the targets against impute's own path
// (impute.Stats fed the same samples, then impute.ComputeTargets with
// per-sample weights, as `piopt impute` runs it): every row's target is the
// same bits and its weight is n_x; a query left out of the log has no
// target. The queries of 2 documents have ℓ_x = 2 < ℓ = 3 (padded slates).
func TestPhiTargetsMatchImpute(t *testing.T) {
	ds := testData([]int{4, 5, 2, 6, 3, 2, 7}, 3, 21)
	for _, tc := range []struct {
		logging string
		limit   int
	}{{"uniform", 0}, {"pa:1", 0}, {"pa:2", 5}} {
		s := setup(t, ds, tc.limit, 3, tc.logging)
		p := prepare(t, s)
		const skip = 3 // a query without samples
		var ps phiSamples
		st, err := impute.NewStats(s.Candidates, 3)
		if err != nil {
			t.Fatal(err)
		}
		simulate(t, s, 4000, 8, func(q int, sl []int32, r float64) {
			if q == skip {
				return
			}
			ps.add(3, q, sl, r)
			st.Add(q, sl, float64(float32(r)))
		})
		got, err := p.PhiTargets(context.Background(), ps.q, ps.s, ps.r)
		if err != nil {
			t.Fatal(err)
		}
		want, err := impute.ComputeTargets(context.Background(), st, s.Gammas, impute.TargetOptions{PerSample: true})
		if err != nil {
			t.Fatal(err)
		}
		c := s.Candidates
		rows := 0
		for q := range c.NumQueries() {
			if (got.Phi[q] == nil) != (q == skip) || got.Count[q] != st.Count(q) {
				t.Fatalf("%s: query %d: φ̂ %v, n_x %d, want %d samples", tc.logging, q, got.Phi[q], got.Count[q], st.Count(q))
			}
			rows += len(got.Phi[q])
		}
		if want.Len() != rows {
			t.Fatalf("%s: impute has %d rows, PhiTargets %d values", tc.logging, want.Len(), rows)
		}
		for i := range want.Len() {
			q, j := int(want.Query[i]), int(want.Slot[i])-1
			a := c.Index(q, want.Doc[i])
			v := got.Phi[q][j*c.Size(q)+a]
			if v != want.Target[i] || float64(got.Count[q]) != want.Weight[i] {
				t.Fatalf("%s: row %d (query %d, candidate %d, slot %d): φ̂ %.17g weight %d, impute %.17g weight %g",
					tc.logging, i, q, a, j+1, v, got.Count[q], want.Target[i], want.Weight[i])
			}
		}
	}
}

// TestPhiTargetsUniformClosedForm logs every slate of one query with m = 3
// candidates and ℓ = 2 once, under uniform logging, with the additive
// reward r(s) = 1_sᵀφ. Then θ̂ = Γφ exactly, so φ̂ = Γ†Γφ is φ projected
// onto the range of Γ, whose null space (rank ℓ(m − 1) + 1 = 5 of 6) is
// spanned by u = (1, 1, 1, −1, −1, −1): a constant added to slot 1 and
// taken from slot 2 changes no slate's reward. With φ = (1/8, 1/4, 3/8;
// 1/16, 0, 3/16) (dyadic: the float32 rewards are exact), uᵀφ = 3/4 − 1/4
// and φ̂ = φ − (1/12)·u.
func TestPhiTargetsUniformClosedForm(t *testing.T) {
	ds := &data.Dataset{NumFeatures: 2, Features: []float32{9, 9, 5, 5, 1, 1}, Labels: []uint8{2, 1, 0},
		QueryOffsets: []int{0, 3}, QIDs: []string{"q"}}
	p := prepare(t, setup(t, ds, 0, 2, "uniform"))
	phi := []float64{0.125, 0.25, 0.375, 0.0625, 0, 0.1875}
	var ps phiSamples
	for _, sl := range [][]int32{{0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}, {2, 1}} {
		ps.add(2, 0, sl, impute.SlateSum(phi, 3, sl))
	}
	got, err := p.PhiTargets(context.Background(), ps.q, ps.s, ps.r)
	if err != nil {
		t.Fatal(err)
	}
	const d = 1.0 / 12
	want := []float64{0.125 - d, 0.25 - d, 0.375 - d, 0.0625 + d, d, 0.1875 + d}
	for i, v := range got.Phi[0] {
		if !near(v, want[i], 1e-12) {
			t.Errorf("φ̂[%d] = %.15g, want %.15g", i, v, want[i])
		}
	}
	if got.Count[0] != 6 {
		t.Errorf("n_x = %d, want 6", got.Count[0])
	}
}

// TestPhiTargetsErrors checks that every malformed sample is refused with
// an error naming it (its index and query) and what is wrong.
func TestPhiTargetsErrors(t *testing.T) {
	ds := testData([]int{4, 2}, 3, 3) // query "2" has ℓ_x = 2 < ℓ = 3
	p := prepare(t, setup(t, ds, 0, 3, "uniform"))
	good := func() *phiSamples {
		return &phiSamples{q: []int32{0, 1}, s: []int32{0, 1, 2, 1, 0, -1}, r: []float32{0.5, 1}}
	}
	for _, tc := range []struct {
		name   string
		mangle func(ps *phiSamples)
		want   string
	}{
		{"short slates", func(ps *phiSamples) { ps.s = ps.s[:5] }, "2 queries, 5 slate entries and 2 rewards, want 6 slate entries (3 slots each)"},
		{"rewards", func(ps *phiSamples) { ps.r = ps.r[:1] }, "and 1 rewards, want 6 slate entries (3 slots each) and 2 rewards"},
		{"query", func(ps *phiSamples) { ps.q[1] = 2 }, "sample 1: query index 2 outside the plan's 2 queries"},
		{"negative query", func(ps *phiSamples) { ps.q[0] = -1 }, "sample 0: query index -1"},
		{"NaN reward", func(ps *phiSamples) { ps.r[1] = float32(math.NaN()) }, `sample 1 (query "2"): reward NaN`},
		{"candidate", func(ps *phiSamples) { ps.s[2] = 4 }, `sample 0 (query "1"): slot 3 holds 4, want a candidate index in 0..3`},
		{"short slate", func(ps *phiSamples) { ps.s[4] = -1 }, `sample 1 (query "2"): slot 2 holds -1, want a candidate index in 0..1`},
		{"padding", func(ps *phiSamples) { ps.s[5] = 0 }, `sample 1 (query "2"): slot 3 holds 0 past ℓ_x = 2, want −1`},
		{"repeat", func(ps *phiSamples) { ps.s[2] = 0 }, `sample 0 (query "1"): slots 1 and 3 both hold candidate 0`},
	} {
		ps := good()
		if _, err := p.PhiTargets(context.Background(), ps.q, ps.s, ps.r); err != nil {
			t.Fatalf("valid samples refused: %v", err)
		}
		tc.mangle(ps)
		_, err := p.PhiTargets(context.Background(), ps.q, ps.s, ps.r)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "offpolicy: φ̂ ") {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
