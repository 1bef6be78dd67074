package trainer

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/trainer/xgboost"
)

func TestRMSEByHand(t *testing.T) {
	x := &features.Matrix{Rows: 3, Cols: 1, X: make([]float32, 3), Labels: []float32{1, 2, 3}, Weights: []float32{1, 2, 1}}
	e, err := newEvaluator(metric{name: "rmse"}, x)
	if err != nil {
		t.Fatal(err)
	}
	// Errors 1, 0, -2 weighted 1, 2, 1: sqrt((1 + 0 + 4)/4).
	if got := e.eval([]float32{2, 2, 1}); math.Abs(got-math.Sqrt(5.0/4)) > 1e-15 {
		t.Fatalf("weighted rmse %v", got)
	}
	e.weights = nil
	if got := e.eval([]float32{2, 2, 1}); math.Abs(got-math.Sqrt(5.0/3)) > 1e-15 {
		t.Fatalf("unweighted rmse %v", got)
	}
}

func TestNDCGByHand(t *testing.T) {
	// Query 1: grades 2, 0, 1; query 2: grades 0, 0 (no relevant doc: 0).
	x := &features.Matrix{Rows: 5, Cols: 1, X: make([]float32, 5), Labels: []float32{2, 0, 1, 0, 0}, Groups: []uint32{3, 2}}
	e, err := newEvaluator(metric{name: "ndcg@2", k: 2}, x)
	if err != nil {
		t.Fatal(err)
	}
	// Scores put doc 2 (grade 1) first, doc 0 (grade 2) second:
	// DCG = 1/log2(2) + 3/log2(3); ideal = 3 + 1/log2(3).
	got := e.eval([]float32{0.5, 0.1, 0.9, 3, 3})
	want := (1 + 3/math.Log2(3)) / (3 + 1/math.Log2(3)) / 2
	if math.Abs(got-want) > 1e-12 {
		t.Fatalf("ndcg@2 %v, want %v", got, want)
	}
	// Ties keep document order: docs 0 (grade 2) and 1 (grade 0).
	want = 3 / (3 + 1/math.Log2(3)) / 2
	if got := e.eval([]float32{1, 1, 1, 0, 0}); math.Abs(got-want) > 1e-12 {
		t.Fatalf("tied scores: ndcg@2 %v, want %v", got, want)
	}
	x.Labels[1] = 0.5
	if _, err := newEvaluator(metric{name: "ndcg@2", k: 2}, x); err == nil {
		t.Fatal("a fractional grade was accepted")
	}
}

func TestParseMetric(t *testing.T) {
	for _, c := range []struct {
		name, objective string
		ok              bool
	}{
		{"rmse", ObjectiveRegression, true},
		{"mae", ObjectiveRegression, false},
		{"ndcg@3", ObjectiveRegression, false},
		{"ndcg@3", ObjectiveRankNDCG, true},
		{"ndcg@0", ObjectiveRankNDCG, false},
		{"ndcg", ObjectiveRankNDCG, false},
		{"rmse", ObjectiveRankNDCG, false},
	} {
		m, err := parseMetric(c.name, c.objective)
		if (err == nil) != c.ok {
			t.Errorf("parseMetric(%q, %q): %v", c.name, c.objective, err)
		}
		if c.ok && m.maximize() != (c.objective == ObjectiveRankNDCG) {
			t.Errorf("%s: maximize %v", c.name, m.maximize())
		}
	}
	if got := (metric{name: "ndcg@3", k: 3}).xgboostName(); got != "ndcg@3-" {
		t.Errorf("xgboost name %q", got)
	}
}

func TestFormatFor(t *testing.T) {
	for path, want := range map[string]xgboost.Format{
		"a.json": xgboost.FormatJSON, "A.JSON": xgboost.FormatJSON,
		"a.model": xgboost.FormatBinary, "a.ubj": xgboost.FormatBinary, "a": xgboost.FormatBinary,
	} {
		if got := formatFor(path); got != want {
			t.Errorf("FormatFor(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestParamsString(t *testing.T) {
	p := Defaults()
	p.EarlyStopping, p.Threads = 7, 3
	s := p.String()
	if s != "objective=reg:squarederror trees=300 leaves=70 learning_rate=0.1 subsample=1 max_bin=256 min_child_weight=1 lambda=1 seed=1 eval_metric=rmse early_stopping=7" {
		t.Fatalf("String() = %q", s)
	}
	if strings.Contains(s, "thread") {
		t.Fatal("the thread count is stored in the model: bytes would depend on it")
	}
}

func TestTrainWithoutCgo(t *testing.T) {
	if xgboost.Available {
		t.Skip("built with cgo")
	}
	m := &features.Matrix{Rows: 1, Cols: 1, X: []float32{1}, Labels: []float32{1}, Meta: features.Meta{Kind: features.KindSUP, Features: 1}}
	if _, err := Train(context.Background(), m, nil, Defaults(), nil); !errors.Is(err, xgboost.ErrNoCgo) {
		t.Fatalf("Train without cgo: %v", err)
	}
}
