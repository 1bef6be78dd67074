//go:build cgo

package trainer

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/piopt/piopt/data/xgbmodel"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/internal/xgboosttest"
	"github.com/piopt/piopt/trainer/xgboost"
)

var supMeta = features.Meta{Kind: features.KindSUP, Features: 2, Metric: "gain"}

// grid returns the n×n grid on [0,1)² with y = f(x0, x1), unweighted.
func grid(n int, f func(a, b float64) float64) *features.Matrix {
	m := &features.Matrix{Rows: n * n, Cols: 2, Meta: supMeta}
	for i := range n {
		for j := range n {
			a, b := (float64(i)+0.5)/float64(n), (float64(j)+0.5)/float64(n)
			m.X = append(m.X, float32(a), float32(b))
			m.Labels = append(m.Labels, float32(f(a, b)))
		}
	}
	return m
}

func TestLearnsKnownFunction(t *testing.T) {
	f := func(a, b float64) float64 { return 3*a - 2*b + math.Sin(6*a) }
	p := small()
	p.Trees, p.TrainMetric = 300, true
	m, err := Train(context.Background(), grid(60, f), nil, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	test := grid(37, f) // points between the training points
	pred, err := m.Predict(test)
	if err != nil {
		t.Fatal(err)
	}
	var se float64
	for i, y := range test.Labels {
		se += math.Pow(float64(pred[i]-y), 2)
	}
	// The function spans [-2.3, 3.9]; a tree ensemble on a 60-step grid
	// should be within a few hundredths.
	if rmse := math.Sqrt(se / float64(len(pred))); rmse > 0.05 {
		t.Fatalf("test rmse %g", rmse)
	}
	if m.Rounds != 300 || m.BestIteration != 299 || !math.IsNaN(m.BestScore) || len(m.History) != 300 {
		t.Fatalf("rounds %d best %d %g history %d", m.Rounds, m.BestIteration, m.BestScore, len(m.History))
	}
	if h := m.History; !(h[299].Train < h[0].Train/10) {
		t.Fatalf("train rmse %g -> %g", h[0].Train, h[299].Train)
	}
}

// The training metric is computed on request only; without it Round.Train
// is NaN and the model is the same bits.
func TestTrainMetricOnRequest(t *testing.T) {
	f := func(a, b float64) float64 { return 3*a - 2*b + math.Sin(6*a) }
	var models [2][]byte
	for i, want := range []bool{false, true} {
		p := small()
		p.Trees, p.TrainMetric = 20, want
		var shown []float64
		m, err := Train(context.Background(), grid(60, f), nil, p, func(r Round) { shown = append(shown, r.Train) })
		if err != nil {
			t.Fatal(err)
		}
		for k, r := range m.History {
			if math.IsNaN(r.Train) == want || !sameFloat(shown[k], r.Train) {
				t.Fatalf("TrainMetric %v: round %d train metric %g, progress saw %g", want, r.Iter, r.Train, shown[k])
			}
		}
		if want && !(shown[p.Trees-1] < shown[0]/2) {
			t.Fatalf("train rmse %g -> %g", shown[0], shown[p.Trees-1])
		}
		if models[i], err = m.booster.Save(xgboost.FormatJSON); err != nil {
			t.Fatal(err)
		}
		m.Close()
	}
	if !bytes.Equal(models[0], models[1]) {
		t.Fatal("the training metric changed the model")
	}
}

// sameFloat is a == b, NaN equal to NaN.
func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// Rows that only a heavier weight tells apart: at x = 0 targets 0 (weight 1)
// and 1 (weight 3) must give 0.75 (0.5 unweighted); at x = 1 targets 2 and
// 0, equally weighted, give 1.
func TestWeightsPullTowardTheHeavierTarget(t *testing.T) {
	for _, weighted := range []bool{false, true} {
		x := &features.Matrix{Cols: 1, Meta: features.Meta{Kind: features.KindSUP, Features: 1}}
		for i := range 400 {
			side := float32(i / 200)
			y := float32(i % 2) // x = 0: targets 0, 1
			w := float32(1)
			if side == 1 {
				y *= 2 // x = 1: targets 0, 2
			} else if y == 1 && weighted {
				w = 3
			}
			x.X = append(x.X, side)
			x.Labels = append(x.Labels, y)
			x.Weights = append(x.Weights, w)
		}
		x.Rows = 400
		p := small()
		p.Lambda, p.MinChildWeight = 0, 0
		m, err := Train(context.Background(), x, nil, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		pred, err := m.booster.PredictDense([]float32{0, 1}, 2, 1, xgboost.PredictOptions{})
		m.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := []float64{0.5, 1}
		if weighted {
			want[0] = 0.75
		}
		for i := range want {
			if math.Abs(float64(pred[i])-want[i]) > 1e-3 {
				t.Errorf("weighted=%v: prediction at x=%d is %g, want %g", weighted, i, pred[i], want[i])
			}
		}
	}
}

func TestSaveLoad(t *testing.T) {
	dir := t.TempDir()
	tr := grid(30, func(a, b float64) float64 { return a * b })
	tr.Meta = features.Meta{Kind: features.KindPIOPT, Slots: 1, Features: 1, Metric: "ndcg", Targets: "logging=uniform seed=3"}
	m, err := Train(context.Background(), tr, nil, small(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	want, err := m.Predict(tr)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"m.json", "m.model", "m.JSON", "m"} {
		path := filepath.Join(dir, name)
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		isJSON := bytes.HasPrefix(b, []byte("{"))
		if isJSON != strings.EqualFold(filepath.Ext(name), ".json") || (!isJSON && !bytes.HasPrefix(b, []byte("binf"))) {
			t.Fatalf("%s starts with %q", name, b[:4])
		}
		l, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := l.Predict(tr)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s row %d: reloaded %g, trained %g", name, i, got[i], want[i])
			}
		}
		if l.Meta != tr.Meta || l.Rounds != 100 || l.Trained != 100 || l.BestIteration != 99 || l.Metric != "rmse" {
			t.Fatalf("%s: loaded %+v", name, l)
		}
		l.Close()
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 4 {
		t.Fatalf("%d files in the output folder: temporary files left", len(ents))
	}
	// The legacy binary carries the metadata where a pure-Go reader finds it.
	b, _ := os.ReadFile(filepath.Join(dir, "m.model"))
	xm, err := xgbmodel.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	attrs := xm.Attrs
	if meta, err := features.MetaFromAttrs(attrs); err != nil || meta != tr.Meta {
		t.Fatalf("metadata from the binary file: %+v %v", meta, err)
	}
	if !strings.Contains(attrs[attrParams], "trees=100 leaves=16 learning_rate=0.1") {
		t.Fatalf("params attribute %q", attrs[attrParams])
	}
}

func TestLoadRefusesForeignModels(t *testing.T) {
	dir := t.TempDir()
	m, err := Train(context.Background(), grid(10, func(a, b float64) float64 { return a }), nil, small(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.booster.DeleteAttr("piopt_kind"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "foreign.model")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "no piopt metadata") {
		t.Fatalf("foreign model: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "junk"), []byte("junk"), 0o644)
	if _, err := Load(filepath.Join(dir, "junk")); err == nil {
		t.Fatal("junk loaded")
	}
	if _, err := Load(filepath.Join(dir, "absent")); err == nil {
		t.Fatal("absent file loaded")
	}
}

func noisy(n int, seed uint64) *features.Matrix {
	r := rand.New(rand.NewPCG(seed, 9))
	m := &features.Matrix{Rows: n, Cols: 4, Meta: features.Meta{Kind: features.KindSUP, Features: 4}}
	for range n {
		x := []float32{r.Float32(), r.Float32(), float32(r.IntN(5)), r.Float32()}
		m.X = append(m.X, x...)
		m.Labels = append(m.Labels, x[0]+0.5*x[2]+float32(r.NormFloat64()))
		m.Weights = append(m.Weights, 1+float32(r.IntN(3)))
	}
	return m
}

func TestSameSeedSameBytes(t *testing.T) {
	tr, va := noisy(3000, 1), noisy(1000, 2)
	model := func(seed int64, threads int) []byte {
		p := small()
		p.Trees, p.Subsample, p.Seed, p.Threads, p.EarlyStopping = 30, 0.7, seed, threads, 5
		m, err := Train(context.Background(), tr, va, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		b, err := m.bytes(xgboost.FormatBinary)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// Trees, best round and best score (stored in the file) do not
	// depend on the thread count either.
	xgboosttest.CheckSeedDeterminesBytes(t, 7, 1, model)
}

// Pure-noise labels: the validation loss bottoms out early, training stops
// EarlyStopping rounds later and the model keeps the best round's trees.
func TestEarlyStopping(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	mk := func() *features.Matrix {
		m := noisy(3000, r.Uint64())
		for i := range m.Labels {
			m.Labels[i] = m.X[4*i] + 3*float32(r.NormFloat64())
		}
		return m
	}
	tr, va := mk(), mk()
	p := small()
	p.Trees, p.Leaves, p.LearningRate, p.EarlyStopping = 500, 70, 0.3, 10
	var rounds []Round
	m, err := Train(context.Background(), tr, va, p, func(r Round) { rounds = append(rounds, r) })
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	best := 0
	for i, r := range rounds {
		if r.Valid < rounds[best].Valid {
			best = i
		}
		if r.Iter != i || r.trees != 500 || r.Metric != "rmse" || math.IsNaN(r.Valid) || r.Best != best {
			t.Fatalf("round %d reported %+v (best %d)", i, r, best)
		}
	}
	if m.Trained >= 500 || m.Trained != best+1+10 || m.BestIteration != best || m.Rounds != best+1 {
		t.Fatalf("trained %d, best %d (want %d), kept %d", m.Trained, m.BestIteration, best, m.Rounds)
	}
	if got, _ := m.booster.Rounds(); got != best+1 {
		t.Fatalf("booster has %d rounds, want %d", got, best+1)
	}
	if m.BestScore != rounds[best].Valid {
		t.Fatalf("best score %g, round %g", m.BestScore, rounds[best].Valid)
	}
	// The truncated model scores the validation set at the best loss.
	pred, err := m.Predict(va)
	if err != nil {
		t.Fatal(err)
	}
	var se, w float64
	for i, y := range va.Labels {
		se += float64(va.Weights[i]) * math.Pow(float64(pred[i]-y), 2)
		w += float64(va.Weights[i])
	}
	if got := math.Sqrt(se / w); math.Abs(got-m.BestScore) > 1e-5 {
		t.Fatalf("truncated model's validation rmse %g, best %g", got, m.BestScore)
	}
	if v, _, _ := m.booster.Attr(attrBestIteration); v != strconv.Itoa(best) {
		t.Fatalf("best_iteration attribute %q", v)
	}
}

func TestLambdaMART(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	mk := func(queries int) *features.Matrix {
		m := &features.Matrix{Cols: 3, Meta: features.Meta{Kind: features.KindLambdaMART, Features: 3}}
		for range queries {
			n := 5 + r.IntN(20)
			for range n {
				x := []float32{r.Float32(), r.Float32(), r.Float32()}
				m.X = append(m.X, x...)
				m.Labels = append(m.Labels, float32(min(4, int(5*x[1]*x[1]+r.Float32()))))
			}
			m.Groups = append(m.Groups, uint32(n))
			m.Rows += n
		}
		return m
	}
	tr, va := mk(200), mk(100)
	p := small()
	p.Objective, p.EvalMetric, p.EarlyStopping = ObjectiveRankNDCG, "ndcg@3", 20
	m, err := Train(context.Background(), tr, va, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	h := m.History
	for _, r := range h {
		if r.Valid > m.BestScore {
			t.Fatalf("ndcg is maximised: round %d has %g > best %g", r.Iter, r.Valid, m.BestScore)
		}
	}
	if !(m.BestScore > 0.8 && m.BestScore > h[0].Valid) {
		t.Fatalf("validation ndcg@3 %g -> best %g", h[0].Valid, m.BestScore)
	}
	// Regression on grouped data, or ranking without groups, is refused.
	p.Objective = ObjectiveRegression
	if _, err := Train(context.Background(), tr, va, p, nil); err == nil {
		t.Fatal("regression on a matrix with query groups accepted")
	}
}

func TestBadInput(t *testing.T) {
	tr := noisy(100, 2)
	ctx := context.Background()
	set := func(f func(*Params)) Params { p := small(); f(&p); return p }
	for _, c := range []struct {
		p    Params
		want string
	}{
		{set(func(p *Params) { p.Trees = 0 }), "--trees 0"},
		{set(func(p *Params) { p.Leaves = 1 }), "--leaves 1"},
		{set(func(p *Params) { p.LearningRate = 0 }), "--learning-rate 0"},
		{set(func(p *Params) { p.LearningRate = math.NaN() }), "--learning-rate NaN"},
		{set(func(p *Params) { p.Subsample = 1.5 }), "--subsample 1.5"},
		{set(func(p *Params) { p.MaxBin = 1 }), "--max-bin 1"},
		{set(func(p *Params) { p.Threads = -1 }), "--threads -1"},
		{set(func(p *Params) { p.Objective = "reg:gamma" }), "--objective"},
		{set(func(p *Params) { p.EarlyStopping = 5 }), "needs a validation set"},
	} {
		if _, err := Train(ctx, tr, nil, c.p, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	va := grid(5, func(a, b float64) float64 { return a })
	va.Meta = tr.Meta
	if _, err := Train(ctx, tr, va, small(), nil); err == nil || !strings.Contains(err.Error(), "2 columns") {
		t.Errorf("validation with other columns: %v", err)
	}
	bad := noisy(10, 4)
	bad.Labels[3] = float32(math.Inf(1))
	if _, err := Train(ctx, bad, nil, small(), nil); err == nil || !strings.Contains(err.Error(), "row 3") {
		t.Errorf("infinite label: %v", err)
	}
	bad = noisy(10, 4)
	bad.Labels = bad.Labels[:9]
	if _, err := Train(ctx, bad, nil, small(), nil); err == nil || !strings.Contains(err.Error(), "9 labels for 10 rows") {
		t.Errorf("short labels: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	n := 0
	_, err := Train(cctx, tr, nil, small(), func(Round) {
		if n++; n == 3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || n != 3 {
		t.Fatalf("cancelled after %d rounds: %v", n, err)
	}
}

func TestPresets(t *testing.T) {
	p, err := Preset("paper")
	if err != nil || p.Trees != 1000 || p.Leaves != 70 || p.LearningRate != 0.1 || p.Subsample != 1 {
		t.Fatalf("paper preset %+v %v", p, err)
	}
	if d, _ := Preset("default"); d != Defaults() {
		t.Fatal("default preset differs from Defaults")
	}
	if _, err := Preset("fast"); err == nil {
		t.Fatal("unknown preset accepted")
	}
	if err := Defaults().Validate(); err != nil {
		t.Fatal(err)
	}
}

// Without early stopping the model keeps every round; the file's
// best_iteration is its last round (what XGBoost's tools then predict with,
// like leaves), while Model reports the best validation round.
func TestValidationWithoutEarlyStopping(t *testing.T) {
	tr, va := noisy(2000, 21), noisy(500, 22)
	for i := range tr.Labels {
		tr.Labels[i] += 3 * float32(math.Sin(float64(i)))
	}
	p := small()
	p.Trees, p.Leaves, p.LearningRate = 60, 70, 0.5
	m, err := Train(context.Background(), tr, va, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.Rounds != 60 || m.BestIteration >= 59 {
		t.Fatalf("rounds %d, best %d: the noise should be overfit before round 60", m.Rounds, m.BestIteration)
	}
	a, err := m.booster.Attrs()
	if err != nil {
		t.Fatal(err)
	}
	if a[attrBestIteration] != "59" || a[attrBestScore] != ftoa(m.History[59].Valid) || a[attrRounds] != "60" {
		t.Fatalf("attributes %v", a)
	}
}
