package policy

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/ope"
)

// scaledReward is an additive reward multiplied by scale on the queries
// below cut: a log that differs from another only there.
type scaledReward struct {
	r     additiveReward
	cut   int
	scale float64
}

func (s scaledReward) Score(q int, sl []int32) float64 {
	v := s.r.Score(q, sl)
	if q < s.cut {
		v *= s.scale
	}
	return v
}

// drStats simulates n uniformly logged impressions of reward over p's
// queries into statistics.
func drStats(t *testing.T, p *ope.Plan, reward impute.Rewarder, n int64) *impute.Stats {
	t.Helper()
	sim := impute.Simulation{Candidates: p.Candidates, Logging: p.Gammas.Logging(), Slots: p.Slots, Reward: reward, Seed: 3}
	st, err := sim.Stats(context.Background(), n, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// The cross-fitted φ̄ of doubly-robust targets: every logged query gets
// one; a query's φ̄ does not depend on its own fold's impressions (a log
// changed only on fold 1's queries leaves fold 1's φ̄ bit for bit and
// changes the others'); and it has learnt the reward (slate-value RMSE
// well under the best constant's spread).
func TestTargetBaselineCrossFit(t *testing.T) {
	needXGBoost(t)
	ctx := context.Background()
	ds := mslrLike(80, 10, 7)
	p := phiPlan(t, ds, 8, 3, "uniform")
	phi := dcgPhi(p)
	b, err := ResolveBaseline(ctx, Crossfit, 4, p.Candidates, p.Slots, PhiFitOptions{Trees: 300, EarlyStopping: 10, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	st := drStats(t, p, phi, 200000)
	base, info, err := TargetBaseline(ctx, b, st, p.Gammas)
	if err != nil {
		t.Fatal(err)
	}
	if info.Folds != 4 || len(info.Trees) != 4 {
		t.Fatalf("info %+v, want 4 folds with a model each", info)
	}
	for x := range base {
		if (st.Count(x) > 0) != (base[x] != nil) {
			t.Fatalf("query %d: %d impressions, baseline %v", x, st.Count(x), base[x])
		}
	}
	rmse, spread := slateRMSE(p, ope.PhiTable(base), phi, func(int) bool { return true })
	t.Logf("slate-value RMSE %.4f, spread %.4f, trees %v", rmse, spread, info.Trees)
	if !(rmse < 0.5*spread) {
		t.Errorf("slate-value RMSE %.4g, spread %.4g: want RMSE < spread/2", rmse, spread)
	}
	changed := drStats(t, p, scaledReward{phi, 20, 3}, 200000) // fold 1: queries 0..19
	base2, _, err := TargetBaseline(ctx, b, changed, p.Gammas)
	if err != nil {
		t.Fatal(err)
	}
	differ := 0
	for x := range base {
		same := slices.Equal(base[x], base2[x])
		if x < 20 && !same {
			t.Fatalf("query %d of fold 1: φ̄ changed with fold 1's own impressions", x)
		}
		if x >= 20 && !same {
			differ++
		}
	}
	if differ == 0 {
		t.Fatal("no other fold's φ̄ changed: the folds do not see fold 1")
	}
}

// A fixed model is φ̄ as it is, for the queries with impressions.
func TestTargetBaselineModel(t *testing.T) {
	p := phiPlan(t, mslrLike(30, 6, 3), 5, 2, "pa:1")
	st := drStats(t, p, dcgPhi(p), 40)
	model := ope.ConstantModel(p.Candidates, p.Slots, 0.25)
	base, info, err := TargetBaseline(context.Background(), ope.Baseline{Model: model, Name: "model:m"}, st, p.Gammas)
	if err != nil {
		t.Fatal(err)
	}
	unlogged := 0
	for x := range base {
		want := model[x]
		if st.Count(x) == 0 {
			want = nil
			unlogged++
		}
		if !slices.Equal(base[x], want) {
			t.Fatalf("query %d: φ̄ %v, want %v", x, base[x], want)
		}
	}
	if unlogged == 0 || info.Folds != 0 {
		t.Fatalf("%d unlogged queries, info %+v: want some, and no folds", unlogged, info)
	}
}

// Cross-fitting needs logged queries outside every fold that has some.
func TestTargetBaselineOneFold(t *testing.T) {
	p := phiPlan(t, mslrLike(30, 6, 3), 5, 2, "uniform")
	st := drStats(t, p, dcgPhi(p), 1)
	b, err := ResolveBaseline(context.Background(), Crossfit, 3, p.Candidates, p.Slots, PhiFitOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = TargetBaseline(context.Background(), b, st, p.Gammas)
	if err == nil || !strings.Contains(err.Error(), "of 3 holds every logged query: no other to fit φ̄ on") {
		t.Fatalf("error %v", err)
	}
}
