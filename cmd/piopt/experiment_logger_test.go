//go:build cgo

package main

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/data/synth"
)

// loggerSummary is the part of summary.json the logger adds.
type loggerSummary struct {
	Config map[string]any `json:"config"`
	Folds  []struct {
		Fold      int                           `json:"fold"`
		NDCG      map[string]float64            `json:"ndcg@3"`
		Estimates map[string]map[string]float64 `json:"estimates"`
	} `json:"folds"`
	Logger struct {
		Logger  string `json:"logger"`
		Metrics map[string]struct {
			Test struct {
				Folds []float64 `json:"folds"`
				Mean  float64   `json:"mean"`
			} `json:"test"`
			Estimate struct {
				Folds []float64 `json:"folds"`
				Mean  float64   `json:"mean"`
			} `json:"estimate"`
			SameOrder bool `json:"same_order"`
		} `json:"metrics"`
	} `json:"logger"`
}

// experiment --logging pl:1 --rank-by model:WEAK learns from a weak SUP
// model's Plackett–Luce log, and every number it reports about the logger
// is checked by other commands: the logger's deterministic NDCG@3 is what
// piopt rank gives the weak model on the test fold, and the PI estimates
// from the fresh log are what piopt evaluate --estimators pi gives PI-OPT's
// and the weak model's slates from that log written by piopt simulate
// (same logger, impressions and seed).
func TestExperimentLoggerAgreesWithRankAndEvaluate(t *testing.T) {
	if testing.Short() {
		t.Skip("trains XGBoost models")
	}
	dir := t.TempDir()
	folds := filepath.Join(dir, "folds")
	if _, err := synth.Generate(context.Background(), folds, synth.Config{Queries: 60, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	f1 := filepath.Join(folds, "Fold1")
	weak := filepath.Join(dir, "weak.model")
	if err := runPiopt(t, "train", "--sup", "--data", filepath.Join(f1, "train.txt"), "--trees", "2", "--leaves", "3",
		"--no-cache", "--out", weak); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "exp")
	const samples = 6000
	if err := runPiopt(t, "experiment", "--folds", folds, "--only-folds", "1", "--samples", "6e3", "--trees", "8", "--leaves", "4",
		"--early-stopping", "0", "--select-by", "rmse", "--metrics", "ndcg", "--logging", "pl:1", "--rank-by", "model:"+weak, "--no-cache", "--out", out); err != nil {
		t.Fatal(err)
	}
	var s loggerSummary
	if err := json.Unmarshal(mustRead(t, filepath.Join(out, "summary.json")), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Folds) != 1 || s.Config["rank_by"] != "model:"+weak || s.Logger.Logger != "model:"+weak {
		t.Fatalf("summary: %+v", s)
	}
	fold := s.Folds[0]
	g := s.Logger.Metrics["ndcg@3"]
	if d := fold.NDCG["pi-opt"] - fold.NDCG["logger"]; g.Test.Folds[0] != d || g.Test.Mean != d {
		t.Errorf("test gain %+v, want fold difference %v", g.Test, d)
	}
	if d := fold.Estimates["ndcg@3"]["pi-opt"] - fold.Estimates["ndcg@3"]["logger"]; g.Estimate.Folds[0] != d {
		t.Errorf("estimated gain %+v, want fold difference %v", g.Estimate, d)
	}
	if g.SameOrder != ((g.Test.Mean > 0) == (g.Estimate.Mean > 0)) {
		t.Errorf("same_order %v for gains %v and %v", g.SameOrder, g.Test.Mean, g.Estimate.Mean)
	}

	// The logger's deterministic ranking is piopt rank's of the weak model.
	test := filepath.Join(f1, "test.txt")
	rk := filepath.Join(dir, "rank.json")
	if err := runPiopt(t, "rank", "--data", test, "--model", weak, "--slots", "3", "--metrics", "ndcg", "--max-label", "4",
		"--no-cache", "--json", rk); err != nil {
		t.Fatal(err)
	}
	var rank struct {
		NDCG map[string]float64 `json:"ndcg@3"`
	}
	if err := json.Unmarshal(mustRead(t, rk), &rank); err != nil {
		t.Fatal(err)
	}
	if got, want := fold.NDCG["logger"], rank.NDCG["sup"]; got != want {
		t.Errorf("logger NDCG@3 %v, piopt rank of the weak model %v (%s)", got, want, mustRead(t, rk))
	}

	// The fresh log: as many impressions as the experiment scales the
	// training log to the test fold, seeded Seed+2.
	train, err := data.Load(filepath.Join(f1, "train.txt"), data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := data.Load(test, data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := max(1, samples*ts.NumQueries()/train.NumQueries())
	fresh := filepath.Join(dir, "fresh.log")
	if err := runPiopt(t, "simulate", "--data", test, "--slots", "3", "--metric", "ndcg", "--logging", "pl:1", "--rank-by", "model:"+weak,
		"--samples", strconv.Itoa(n), "--seed", "3", "--maxrel", "4", "--no-cache", "--out", fresh); err != nil {
		t.Fatal(err)
	}
	piModels, _ := filepath.Glob(filepath.Join(out, "fold1", "pi-opt-ndcg-*.model"))
	if len(piModels) != 1 {
		t.Fatalf("PI-OPT models %v", piModels)
	}
	// PI-OPT's slates as piopt rank builds them (a model: target would
	// break ties among equal pair scores by the logger's candidate order,
	// rank and the experiment by document position).
	piRun := filepath.Join(dir, "pi.run")
	if err := runPiopt(t, "rank", "--data", test, "--model", piModels[0], "--metrics", "ndcg", "--max-label", "4",
		"--no-cache", "--out", piRun); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ policy, target string }{{"logger", "model:" + weak}, {"pi-opt", "run:" + piRun}} {
		js := filepath.Join(dir, c.policy+".json")
		if err := runPiopt(t, "evaluate", "--data", test, "--logs", fresh, "--target", c.target, "--estimators", "pi",
			"--bootstrap", "0", "--no-cache", "--json", js); err != nil {
			t.Fatal(err)
		}
		var ev map[string]struct {
			Value float64 `json:"value"`
		}
		if err := json.Unmarshal(mustRead(t, js), &ev); err != nil {
			t.Fatal(err)
		}
		if got, want := fold.Estimates["ndcg@3"][c.policy], ev["pi"].Value; math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: fresh-log PI estimate %v, piopt evaluate %v", c.policy, got, want)
		}
	}
}
