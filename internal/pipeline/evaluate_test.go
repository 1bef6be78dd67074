package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/ope"
)

// paLog simulates a log of 2000 impressions under pa:1 ranked by feature 1
// over the top 4 candidates, 2 slots.
func paLog(t *testing.T) (dir, train, log string, read data.ReadOptions) {
	dir = t.TempDir()
	train = letorFile(t, dir)
	read = data.ReadOptions{MaxLabel: 4, NoCache: true}
	setup, err := policy.ParseSetup(policy.Flags{Slots: 2, Logging: "pa:1", RankBy: "feature:1", Candidates: 4})
	if err != nil {
		t.Fatal(err)
	}
	log = filepath.Join(dir, "pa.log")
	if _, err := Simulate(context.Background(), SimulateConfig{Data: train, Read: read, Setup: setup, Metric: eval.KindNDCG,
		Samples: 2000, Seed: 3, Out: log}); err != nil {
		t.Fatal(err)
	}
	return dir, train, log, read
}

var testIntervals = ope.Intervals{Delta: 0.05, Bootstrap: 10, Seed: 1, RewardLo: 0, RewardHi: 1}

// Select gives every model the estimates Evaluate gives it alone, to the
// last bit, and both write their JSON.
func TestEvaluateEqualsSelect(t *testing.T) {
	dir, train, log, read := paLog(t)
	ctx := context.Background()
	est := ope.Estimators{PI: true, WPI: true, IPS: true, WIPS: true, OnPolicy: true}
	ev, err := Evaluate(ctx, EvaluateConfig{Data: train, Read: read, Logs: log, Target: "feature:2",
		Options: ope.EvalOptions{Estimators: est, Intervals: testIntervals}, DMShare: 0.5, Seed: 1,
		JSON: filepath.Join(dir, "est.json")})
	if err != nil {
		t.Fatal(err)
	}
	if s := ev.Setup; s.Samples != 2000 || s.Slots != 2 || s.Logging != "pa:1" || s.RankBy != "feature:1" || s.Candidates != 4 ||
		s.Target != "feature:2" || s.Metric != "ndcg@2" || s.Conventions == nil {
		t.Errorf("setup %+v", s)
	}
	if v := float64(ev.Result.TrueValue); !(v > 0 && v <= 1) {
		t.Errorf("true value %g", v)
	}
	sel, err := Select(ctx, SelectConfig{Data: train, Read: read, Logs: log, Models: "a=feature:3,b=feature:2",
		Estimator: "wpi", Interval: "bernstein", Intervals: testIntervals, Seed: 1, JSON: filepath.Join(dir, "select.json")})
	if err != nil {
		t.Fatal(err)
	}
	var b *ope.Result
	for _, m := range sel.Models {
		if m.Name == "b" {
			b = m.Result
		}
	}
	if b == nil {
		t.Fatalf("no model b in %+v", sel.Models)
	}
	for _, name := range []string{ope.PI, ope.WPI, ope.IPS, ope.WIPS} {
		if got, want := b.Estimates[name].Value, ev.Result.Estimates[name].Value; got != want {
			t.Errorf("%s: select %v, evaluate %v", name, got, want)
		}
	}
	for _, f := range []string{"est.json", "select.json"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// BuildPlans names a target that fails as its Label says, and prepares
// one plan per target over one set of candidates.
func TestBuildPlans(t *testing.T) {
	_, train, _, read := paLog(t)
	ctx := context.Background()
	ds, err := Load(ctx, train, read, nil)
	if err != nil {
		t.Fatal(err)
	}
	setup, err := policy.ParseSetup(policy.Flags{Slots: 2, Logging: "uniform", Candidates: 3})
	if err != nil {
		t.Fatal(err)
	}
	cfg := PlanConfig{Setup: setup, Targets: []string{"feature:1", "feature:2"}}
	plans, err := BuildPlans(ctx, ds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(plans.Plans) != 2 || plans.Plans[1].Target.Name() != "feature:2" || plans.Plans[0].Candidates != plans.Candidates {
		t.Errorf("plans %+v", plans)
	}
	cfg.Targets = []string{"feature:1", "feature:99"}
	cfg.Label = func(i int) string { return "target " + cfg.Targets[i] }
	if _, err := BuildPlans(ctx, ds, cfg); err == nil || !strings.HasPrefix(err.Error(), "target feature:99: ") {
		t.Errorf("error %v", err)
	}
}

// Sweep computes every estimator on the grid of log sizes and writes its
// report and run record.
func TestSweep(t *testing.T) {
	dir, train, _, read := paLog(t)
	setup, err := policy.ParseSetup(policy.Flags{Slots: 2, Logging: "uniform", Candidates: 4})
	if err != nil {
		t.Fatal(err)
	}
	js := filepath.Join(dir, "sweep.json")
	res, err := Sweep(context.Background(), SweepConfig{Data: train, Read: read, Setup: setup, Metric: eval.KindNDCG,
		Target: "feature:2", Estimators: ope.Estimators{PI: true, WPI: true, OnPolicy: true},
		Samples: 1000, Runs: 2, Seed: 1, MinSamples: 100, PointsPerDecade: 1, JSON: js})
	if err != nil {
		t.Fatal(err)
	}
	rep := res.Report
	if len(rep.Grid) != 2 || rep.Grid[0] != 100 || rep.Grid[1] != 1000 || len(rep.RMSE[ope.PI]) != 2 || rep.Target != "feature:2" {
		t.Errorf("report: grid %v, rmse %v, target %s", rep.Grid, rep.RMSE, rep.Target)
	}
	for _, f := range []string{js, filepath.Join(dir, "sweep.run.json")} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
}
