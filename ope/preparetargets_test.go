package ope

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/piopt/piopt/impute"
)

// PrepareTargets computes each context's Γ once for every target and
// releases it, and gives every target the plan Prepare gives it alone on
// a fresh cache, to the last bit, Spectra included; contexts of equal
// content share one Γ. An error names the target it belongs to.
func TestPrepareTargetsEqualsPrepare(t *testing.T) {
	sizes, slots := []int{6, 7, 6, 6}, 3
	src := rand.New(rand.NewPCG(5, 6))
	dists := func() []*impute.Dist {
		out := make([]*impute.Dist, len(sizes))
		scores := make([][]float64, len(sizes))
		s := rand.New(rand.NewPCG(9, 9)) // the same scores on every call
		for q, m := range sizes {
			for i := range m {
				scores[q] = append(scores[q], float64(m-i)+s.Float64()/2)
			}
		}
		scores[2] = slices.Clone(scores[0]) // context 2 logs as context 0
		for q := range sizes {
			d, err := mustLogging(t, "pl:1").ScoredDist(scores[q], slots)
			if err != nil {
				t.Fatal(err)
			}
			out[q] = d
		}
		return out
	}
	var slateSets [2][][]int32
	for k := range slateSets {
		for _, m := range sizes {
			perm := src.Perm(m)[:slots]
			s := make([]int32, slots)
			for j, a := range perm {
				s[j] = int32(a)
			}
			slateSets[k] = append(slateSets[k], s)
		}
	}
	base := coverageSetup(t, sizes, slots, dists(), slateSets[0])
	var targets []*Target
	for k := range slateSets {
		tg, err := NewDeterministicTarget("t", base.Candidates, slots, func(q int) []int32 { return slateSets[k][q] })
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, tg)
	}
	plans, _, err := PrepareTargets(context.Background(), base, targets)
	if err != nil {
		t.Fatal(err)
	}
	if n := base.Gammas.Count(); n != 3 {
		t.Errorf("%d distinct Γ, want 3 (contexts 0 and 2 share one)", n)
	}
	for k, tg := range targets {
		alone := base
		alone.Gammas, alone.Target = impute.NewContextGammas(dists(), impute.GammaOptions{}), tg
		want := prepare(t, alone)
		got := plans[k]
		if got.Sigma2 != want.Sigma2 || got.WeightLo != want.WeightLo || got.WeightHi != want.WeightHi || got.IPSSigma2 != want.IPSSigma2 {
			t.Errorf("target %d: σ² %v ρ [%v, %v] IPS σ² %v; alone %v [%v, %v] %v", k, got.Sigma2, got.WeightLo, got.WeightHi, got.IPSSigma2,
				want.Sigma2, want.WeightLo, want.WeightHi, want.IPSSigma2)
		}
		for q := range sizes {
			s := slateSets[1-k][q]
			if g, w := got.Weight(q, s), want.Weight(q, s); g != w || g == 0 {
				t.Errorf("target %d query %d: weight %v, alone %v", k, q, g, w)
			}
		}
		if g, w := got.Spectra(), want.Spectra(); !reflect.DeepEqual(g, w) || len(g) != 1 {
			t.Errorf("target %d: Spectra %+v, alone %+v", k, g, w)
		}
	}
	bad, err := NewDeterministicTarget("short", base.Candidates, 2, func(q int) []int32 { return slateSets[0][q][:2] })
	if err != nil {
		t.Fatal(err)
	}
	if _, failed, err := PrepareTargets(context.Background(), base, []*Target{targets[0], bad}); err == nil || failed != 1 || !strings.Contains(err.Error(), "2 slots") {
		t.Errorf("a target of 2 slots: failed %d, %v", failed, err)
	}
}
