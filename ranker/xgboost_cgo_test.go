//go:build cgo

package ranker

// Tests against XGBoost itself (through the cgo binding, a test-only
// dependency: the ranker package never imports cgo). They train models,
// save them as `piopt train` does, and check that the pure-Go inference
// equals XGBoost's own predictions.

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/internal/datatest"
	"github.com/piopt/piopt/internal/xgbmodeltest"
	"github.com/piopt/piopt/trainer/xgboost"
)

var update = flag.Bool("update", false, "regenerate testdata/xgb174-* with XGBoost")

// pairRows builds the rows [f(x,a); onehot(j)] of every (doc, slot ≤ ℓ_x)
// pair in dataset order (slots 0 gives the rows f(x,a) of a SUP model), and
// a target for each: the gain of the doc discounted by its slot.
func pairRows(ds *data.Dataset, L int) (x, y []float32, rows int) {
	eachPair(ds, L, func(d, j int, row []float32) {
		x = append(x, row...)
		y = append(y, float32(eval.Gain(ds.Labels[d])/math.Log2(float64(j+2))))
		rows++
	})
	return x, y, rows
}

type trainSpec struct {
	kind          string
	slots         int
	trees, leaves int
	objective     string
}

// trainModel trains on ds with XGBoost as `piopt train` does (hist,
// lossguide, max_leaves, piopt metadata as attributes) and returns the
// booster and the saved binary and JSON files.
func trainModel(t testing.TB, ds *data.Dataset, s trainSpec) (bst *xgboost.Booster, bin, js []byte) {
	t.Helper()
	x, y, rows := pairRows(ds, s.slots)
	d := xgboost.Dense{Data: x, Rows: rows, Cols: ds.NumFeatures + s.slots, Labels: y}
	if s.objective == "rank:ndcg" {
		// LambdaMART: grades as labels, one group per query (rows = docs).
		for q := range ds.NumQueries() {
			d.Groups = append(d.Groups, uint32(ds.QuerySize(q)))
		}
		for i, l := range ds.Labels {
			d.Labels[i] = float32(l)
		}
	}
	m, err := xgboost.NewDMatrix(d, xgboost.MatrixOptions{Build: xgboost.BuildDense})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	bst, err = xgboost.NewBooster([]xgboost.Param{
		{Name: "objective", Value: s.objective},
		{Name: "tree_method", Value: "hist"}, {Name: "grow_policy", Value: "lossguide"},
		{Name: "max_depth", Value: "0"}, {Name: "max_leaves", Value: strconv.Itoa(s.leaves)},
		{Name: "eta", Value: "0.1"}, {Name: "nthread", Value: "1"}, {Name: "seed", Value: "1"},
	}, m)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bst.Close() })
	for it := range s.trees {
		if err := bst.Update(it, m); err != nil {
			t.Fatal(err)
		}
	}
	meta := features.Meta{Kind: s.kind, Slots: s.slots, Features: ds.NumFeatures, Metric: "ndcg@3", Targets: "test: gain/log2(j+1)"}
	for k, v := range meta.Attrs() {
		if err := bst.SetAttr(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if bin, err = bst.Save(xgboost.FormatBinary); err != nil {
		t.Fatal(err)
	}
	if js, err = bst.Save(xgboost.FormatJSON); err != nil {
		t.Fatal(err)
	}
	return bst, bin, js
}

// compareWithXGBoost scores ds with the saved model in both formats and
// checks every score against XGBoost's prediction of the same row.
func compareWithXGBoost(t *testing.T, ds *data.Dataset, bst *xgboost.Booster, files map[string][]byte, L int) {
	t.Helper()
	x, _, rows := pairRows(ds, L)
	want, err := bst.PredictDense(x, rows, ds.NumFeatures+L, xgboost.PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for format, b := range files {
		m, err := ParseModel(b, format)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		sc, err := m.Score(context.Background(), ds, ScoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		i, maxAbs, maxRel := 0, 0.0, 0.0
		for _, v := range sc.Values {
			if math.IsNaN(v) {
				continue
			}
			w := float64(want[i])
			d := math.Abs(v - w)
			maxAbs = math.Max(maxAbs, d)
			maxRel = math.Max(maxRel, d/math.Max(1, math.Abs(w)))
			if d > 1e-5*math.Max(1, math.Abs(w)) {
				t.Fatalf("%s row %d: pure Go %v, XGBoost %v", format, i, v, w)
			}
			i++
		}
		if i != rows {
			t.Fatalf("%s: %d scores for %d rows", format, i, rows)
		}
		t.Logf("%s, %d trees: %d rows, max |Go − XGBoost| = %.3g (relative %.3g)", format, m.Trees(), rows, maxAbs, maxRel)
	}
}

func TestInferenceEqualsXGBoost(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := make([]int, 300)
	for i := range sizes {
		sizes[i] = 1 + rng.IntN(30)
	}
	ds := testDataset(rng, 8, sizes...)
	for _, s := range []trainSpec{
		{features.KindPIOPT, 3, 200, 31, "reg:squarederror"},
		{features.KindSUP, 0, 200, 31, "reg:squarederror"},
		{features.KindLambdaMART, 0, 100, 15, "rank:ndcg"},
	} {
		t.Run(s.kind, func(t *testing.T) {
			bst, bin, js := trainModel(t, ds, s)
			compareWithXGBoost(t, ds, bst, map[string][]byte{"binary": bin, "json": js}, s.slots)
		})
	}
}

// On real LETOR data (MQ2008 fold 1): a PI-OPT model of 300 trees × 70
// leaves trained on the train fold equals XGBoost on the test fold; also
// logs how often the greedy slate differs from the exact one.
func TestInferenceEqualsXGBoostMQ2008(t *testing.T) {
	if testing.Short() {
		t.Skip("trains 300 trees")
	}
	dir := filepath.Join(datatest.SharedDir(t), "MQ2008", "Fold1")
	opt := data.ReadOptions{MaxLabel: 4, Features: 46, NoCache: true}
	train, err := data.Load(filepath.Join(dir, "train.txt"), opt)
	if err != nil {
		t.Fatal(err)
	}
	test, err := data.Load(filepath.Join(dir, "test.txt"), opt)
	if err != nil {
		t.Fatal(err)
	}
	bst, bin, js := trainModel(t, train, trainSpec{features.KindPIOPT, 3, 300, 70, "reg:squarederror"})
	compareWithXGBoost(t, test, bst, map[string][]byte{"binary": bin, "json": js}, 3)
	m, err := ParseModel(bin, "mq2008")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := m.Score(context.Background(), test, ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := Rank(test, sc, 3, SlateGreedy)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Rank(test, sc, 3, SlateExact)
	if err != nil {
		t.Fatal(err)
	}
	conv := eval.Conventions{MaxRel: 2}
	differ := 0
	var ng, ne float64
	for q := range test.NumQueries() {
		if !slices.Equal(g.Slate(q), e.Slate(q)) {
			differ++
		}
		ng += eval.NDCG(test.QueryLabels(q), g.Slate(q), 3, conv)
		ne += eval.NDCG(test.QueryLabels(q), e.Slate(q), 3, conv)
	}
	n := float64(test.NumQueries())
	t.Logf("MQ2008 fold 1 test: greedy ≠ exact on %d of %d queries; ndcg@3 greedy %.4f exact %.4f", differ, test.NumQueries(), ng/n, ne/n)
}

// TestWriteFixture regenerates the XGBoost 1.7.4 files behind
// TestXGBoostFixture (go test -tags cgo -run TestWriteFixture -update).
func TestWriteFixture(t *testing.T) {
	if !*update {
		t.Skip("run with -update to regenerate testdata/xgb174-*")
	}
	if maj, min, patch := xgboost.Version(); maj != 1 || min != 7 {
		t.Fatalf("fixture must come from XGBoost 1.7, have %d.%d.%d", maj, min, patch)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	sizes := make([]int, 40)
	for i := range sizes {
		sizes[i] = 1 + rng.IntN(8)
	}
	ds := testDataset(rng, 4, sizes...)
	bst, bin, js := trainModel(t, ds, trainSpec{features.KindPIOPT, 3, 20, 8, "reg:squarederror"})
	x, _, rows := pairRows(ds, 3)
	pred, err := bst.PredictDense(x, rows, 7, xgboost.PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var s strings.Builder
	s.WriteString("# rows [f1..f4; onehot(slot)] of a 4-feature, 3-slot PI-OPT model and XGBoost 1.7.4's prediction\n")
	for i := range rows {
		for _, v := range x[i*7 : (i+1)*7] {
			s.WriteString(strconv.FormatFloat(float64(v), 'g', -1, 32))
			s.WriteByte('\t')
		}
		fmt.Fprintf(&s, "%s\n", strconv.FormatFloat(float64(pred[i]), 'g', -1, 32))
	}
	for name, b := range map[string][]byte{"xgb174-pi-opt.model": bin, "xgb174-pi-opt.json": js, "xgb174-rows.tsv": []byte(s.String())} {
		if err := os.WriteFile(filepath.Join("testdata", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The hand-made files of the other tests (helpers_test.go) are what XGBoost
// itself reads, and xgbPredict is XGBoost's rule: both formats load in
// XGBoost and predict exactly xgbPredict, missing values included.
func TestHandMadeFilesLoadInXGBoost(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	values := []float32{0, 1, 2, 3, 4.5, 5, 9}
	for trial := range 10 {
		xm, F, L := randomXGB(rng, 5, 20, 30, values)
		cols := F + L
		kind := features.KindSUP
		if L > 0 {
			kind = features.KindPIOPT
		}
		rows := 300
		x := make([]float32, rows*cols)
		for i := range x {
			x[i] = float32(rng.IntN(10))
			if rng.IntN(20) == 0 {
				x[i] = float32(math.NaN())
			}
		}
		for format, b := range map[string][]byte{"binary": xgbmodeltest.Binary(xm), "json": xgbmodeltest.JSON(xm)} {
			bst, err := xgboost.LoadBooster(b)
			if err != nil {
				t.Fatalf("trial %d %s: XGBoost cannot load the hand-made file: %v", trial, format, err)
			}
			got, err := bst.PredictDense(x, rows, cols, xgboost.PredictOptions{})
			bst.Close()
			if err != nil {
				t.Fatal(err)
			}
			for i := range rows {
				if w := xgbmodeltest.Predict(xm, x[i*cols:(i+1)*cols]); got[i] != w {
					t.Fatalf("trial %d %s row %d: XGBoost %v, xgbPredict %v", trial, format, i, got[i], w)
				}
			}
			attrs, err := func() (map[string]string, error) {
				bst, err := xgboost.LoadBooster(b)
				if err != nil {
					return nil, err
				}
				defer bst.Close()
				return bst.Attrs()
			}()
			if err != nil || attrs["piopt_kind"] != kind {
				t.Fatalf("%s: attributes %v, %v", format, attrs, err)
			}
		}
	}
}

// BenchmarkXGBoostPredictMSLR is BenchmarkScoreMSLR's model and data scored
// by XGBoost itself (XGBoosterPredictFromDense, all cores), for comparison.
func BenchmarkXGBoostPredictMSLR(b *testing.B) {
	ds, xm := mslrFold(rand.New(rand.NewPCG(6, 6)))
	bst, err := xgboost.LoadBooster(xgbmodeltest.Binary(xm))
	if err != nil {
		b.Fatal(err)
	}
	defer bst.Close()
	x, _, rows := pairRows(ds, 3)
	b.ResetTimer()
	for b.Loop() {
		if _, err := bst.PredictDense(x, rows, ds.NumFeatures+3, xgboost.PredictOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
