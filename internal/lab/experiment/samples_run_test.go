//go:build cgo

package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/impute"
)

// A curve of two sizes gives, at each size, exactly the folds, means and
// standard deviations (and their summary.json bytes) of a run with that
// size alone in a fresh folder; SUP is trained once per fold and reused at
// the second size.
func TestCurveEqualsSingleRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("trains XGBoost models")
	}
	folds := synthFolds(t, 60, 1, 2)
	sizes := []int64{3000, 30000}
	cfg := smallConfig(t, folds, filepath.Join(t.TempDir(), "curve"))
	cfg.Params.Trees, cfg.Params.Leaves, cfg.Params.EarlyStopping = 10, 6, 3
	cfg.LambdaMART = false
	cfg.Curve = sizes
	var log bytes.Buffer
	cfg.Log = &log
	curve, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(curve.Curve) != 2 || strings.Count(log.String(), "sup model reused") != 2 {
		t.Fatalf("%d points; log:\n%s", len(curve.Curve), log.String())
	}
	for i, n := range sizes {
		one := cfg
		one.Curve, one.Samples, one.Log = nil, n, nil
		one.Out = filepath.Join(t.TempDir(), "one")
		s, err := Run(context.Background(), one)
		if err != nil {
			t.Fatal(err)
		}
		p := curve.Curve[i]
		if p.Samples != n || p.TargetsKind != TargetsKindPI {
			t.Errorf("point %d: samples %d kind %q", i, p.Samples, p.TargetsKind)
		}
		if !reflect.DeepEqual(p.Mean, s.Mean) || !reflect.DeepEqual(p.Std, s.Std) {
			t.Errorf("%d samples: curve means %v, alone %v", n, p.Mean, s.Mean)
		}
		a, _ := json.Marshal(foldsJSON(p.Folds))
		b, _ := json.Marshal(foldsJSON(s.Folds))
		if !bytes.Equal(a, b) {
			t.Errorf("%d samples: curve folds %s\nalone %s", n, a, b)
		}
	}
	if curve.Curve[0].Mean["ndcg@3"][PIOPT] == curve.Curve[1].Mean["ndcg@3"][PIOPT] {
		t.Error("both sizes give the same PI-OPT: the size did not reach the folds")
	}
	if curve.Curve[0].Mean["ndcg@3"][SUP] != curve.Curve[1].Mean["ndcg@3"][SUP] {
		t.Error("SUP differs between sizes")
	}
}

// The logger's deterministic ranking (a single feature here) is scored
// as an independent sort of that feature gives it: every query's top 3
// documents by feature 7, ties to the lower position, NDCG@3 against the
// test labels; and PI-OPT's gain over it is the per-fold difference.
func TestLoggerFeatureRanking(t *testing.T) {
	if testing.Short() {
		t.Skip("trains XGBoost models")
	}
	folds := synthFolds(t, 60, 1, 2)
	cfg := smallConfig(t, folds, filepath.Join(t.TempDir(), "logger"))
	cfg.Params.Trees, cfg.Params.Leaves, cfg.Params.EarlyStopping = 10, 6, 3
	cfg.LambdaMART, cfg.Samples, cfg.RankBy = false, 20000, "feature:7"
	var err error
	if cfg.Logging, err = impute.ParseLogging("pl:1"); err != nil {
		t.Fatal(err)
	}
	s, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Policies[len(s.Policies)-1] != Logger || s.Logger == nil {
		t.Fatalf("policies %v, logger %v", s.Policies, s.Logger)
	}
	var diffs []float64
	for i, f := range s.Folds {
		want := featureTop3NDCG(t, folds[i].Test, 7)
		if got := f.Values["ndcg@3"][Logger]; got < want-1e-12 || got > want+1e-12 {
			t.Errorf("fold %d: logger NDCG@3 %v, feature 7's top 3 %v", f.Fold, got, want)
		}
		if e := f.Estimates["ndcg@3"]; len(e) != 2 || e[PIOPT] == 0 || e[Logger] == 0 {
			t.Errorf("fold %d: estimates %v", f.Fold, e)
		}
		diffs = append(diffs, f.Values["ndcg@3"][PIOPT]-f.Values["ndcg@3"][Logger])
	}
	g := s.Logger.Metrics["ndcg@3"]
	mean := (diffs[0] + diffs[1]) / 2
	// Two folds: std = |d1 − d2|/√2, SE = std/√2 = |d1 − d2|/2.
	se := (diffs[0] - diffs[1]) / 2
	if se < 0 {
		se = -se
	}
	if !reflect.DeepEqual(g.Test.Folds, diffs) || abs(g.Test.Mean-mean) > 1e-15 || abs(float64(g.Test.SE)-se) > 1e-12 {
		t.Errorf("gain %+v, want folds %v mean %v SE %v", g.Test, diffs, mean, se)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// featureTop3NDCG is the mean NDCG@3 (gains 2^rel − 1, discount
// 1/log2(j+1), a query without a relevant document 0) of every query's top
// 3 documents of the file at path by feature k (1-based), descending, ties
// to the lower position: written out here, apart from eval and ranker.
func featureTop3NDCG(t *testing.T, path string, k int) float64 {
	t.Helper()
	ds, err := data.Load(path, data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dcg := func(labels []uint8) float64 {
		v := 0.0
		for j, l := range labels[:min(3, len(labels))] {
			v += (math.Pow(2, float64(l)) - 1) / math.Log2(float64(j)+2)
		}
		return v
	}
	sum := 0.0
	for q := range ds.NumQueries() {
		lo, hi := ds.Query(q)
		idx := make([]int, hi-lo)
		for i := range idx {
			idx[i] = i
		}
		f := func(i int) float32 { return ds.Features[(lo+i)*ds.NumFeatures+k-1] }
		sort.SliceStable(idx, func(a, b int) bool { return f(idx[a]) > f(idx[b]) })
		top := make([]uint8, len(idx))
		for i, d := range idx {
			top[i] = ds.Labels[lo+d]
		}
		ideal := slices.Clone(ds.Labels[lo:hi])
		slices.SortFunc(ideal, func(a, b uint8) int { return int(b) - int(a) })
		if best := dcg(ideal); best > 0 {
			sum += dcg(top) / best
		}
	}
	return sum / float64(ds.NumQueries())
}

// A curve over the kinds pi and dr (one size) gives each kind's point
// exactly the folds of a run with that kind alone, and its chart draws
// PI-OPT once per kind and SUP once.
func TestCurveKindsEqualSingleRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("trains XGBoost models")
	}
	folds := synthFolds(t, 60, 1)
	cfg := smallConfig(t, folds, filepath.Join(t.TempDir(), "curve"))
	cfg.Params.Trees, cfg.Params.Leaves, cfg.Params.EarlyStopping = 10, 6, 3
	cfg.LambdaMART, cfg.Samples, cfg.Metrics = false, 3000, cfg.Metrics[:1]
	cfg.CurveKinds = []string{"pi", "dr"}
	curve, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(curve.Curve) != 2 {
		t.Fatalf("%d points, want one per kind", len(curve.Curve))
	}
	for i, k := range cfg.CurveKinds {
		one := cfg
		one.CurveKinds, one.TargetsKind = nil, k
		one.Out = filepath.Join(t.TempDir(), "one")
		s, err := Run(context.Background(), one)
		if err != nil {
			t.Fatal(err)
		}
		p := curve.Curve[i]
		a, _ := json.Marshal(foldsJSON(p.Folds))
		b, _ := json.Marshal(foldsJSON(s.Folds))
		if p.TargetsKind != k || p.Samples != 3000 || !bytes.Equal(a, b) {
			t.Errorf("%s: point (%s, %d) folds %s\nalone %s", k, p.TargetsKind, p.Samples, a, b)
		}
	}
	m := "ndcg@3"
	if curve.Curve[0].Mean[m][PIOPT] == curve.Curve[1].Mean[m][PIOPT] {
		t.Error("pi and dr give the same PI-OPT: the kind did not reach the folds")
	}
	var names []string
	for _, sr := range curve.curveSeries() {
		names = append(names, sr.Name)
	}
	if want := []string{"PI-OPT (pi targets) NDCG@3", "PI-OPT (dr targets) NDCG@3", "SUP NDCG@3"}; !slices.Equal(names, want) {
		t.Errorf("chart lines %q, want %q", names, want)
	}
}
