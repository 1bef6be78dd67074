//go:build cgo

package xgboost

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/piopt/piopt/internal/xgboosttest"
)

var builds = []Build{BuildQuantile, BuildDense, BuildMatOMP}

// hist are the tree parameters piopt trains with.
func hist(extra ...Param) []Param {
	return append([]Param{
		{"tree_method", "hist"}, {"grow_policy", "lossguide"}, {"max_depth", "0"},
		{"max_leaves", "8"}, {"max_bin", "256"}, {"nthread", "1"}, {"verbosity", "0"},
	}, extra...)
}

// randomDense returns rows×cols values on a grid of 0.1 in [0, 1] with a
// smooth target, so every feature has fewer distinct values than bins.
func randomDense(rows, cols int, seed uint64) Dense {
	r := rand.New(rand.NewPCG(seed, 1))
	d := Dense{Data: make([]float32, rows*cols), Rows: rows, Cols: cols, Labels: make([]float32, rows)}
	for i := range rows {
		row := d.Data[i*cols : (i+1)*cols]
		for j := range row {
			row[j] = float32(r.IntN(11)) / 10
		}
		d.Labels[i] = 3*row[0] - 2*row[1%cols] + row[0]*row[2%cols]
	}
	return d
}

func train(t testing.TB, d Dense, b Build, params []Param, rounds int) (*Booster, *DMatrix) {
	t.Helper()
	m, err := NewDMatrix(d, MatrixOptions{Build: b, Threads: 1, MaxBin: 256})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	bst, err := NewBooster(params, m)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bst.Close() })
	for i := range rounds {
		if err := bst.Update(i, m); err != nil {
			t.Fatal(err)
		}
	}
	return bst, m
}

func TestVersion(t *testing.T) {
	if maj, min, _ := Version(); maj != 1 || min < 7 {
		t.Fatalf("linked libxgboost %d.%d, want 1.7 or later 1.x", maj, min)
	}
}

// One round of a two-leaf tree with eta 1, no regularisation and base score
// 0 sets each leaf to the mean target of its rows: a step function is
// learnt exactly.
func TestLearnsStepExactly(t *testing.T) {
	for _, b := range builds {
		t.Run(b.String(), func(t *testing.T) {
			d := Dense{Rows: 200, Cols: 2, Data: make([]float32, 400), Labels: make([]float32, 200)}
			for i := range 200 {
				x := float32(i) / 200
				d.Data[2*i], d.Data[2*i+1] = x, float32(i%7)
				d.Labels[i] = -10
				if x >= 0.5 {
					d.Labels[i] = 10
				}
			}
			bst, m := train(t, d, b, hist(Param{"max_leaves", "2"}, Param{"eta", "1"},
				Param{"lambda", "0"}, Param{"min_child_weight", "0"}, Param{"base_score", "0"}), 1)
			p, err := bst.Predict(m, PredictOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range p {
				if v != d.Labels[i] {
					t.Fatalf("row %d (x=%g): predicted %g, want %g", i, d.Data[2*i], v, d.Labels[i])
				}
			}
		})
	}
}

// Rows that cannot be told apart get the weighted mean of their targets:
// weight 3 on target 1 and weight 1 on target 0 give 0.75 (0.5 unweighted).
func TestWeightsMoveTheFit(t *testing.T) {
	for _, b := range builds {
		for _, weighted := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/weighted=%v", b, weighted), func(t *testing.T) {
				n := 100
				d := Dense{Rows: n, Cols: 1, Data: make([]float32, n), Labels: make([]float32, n)}
				if weighted {
					d.Weights = make([]float32, n)
				}
				for i := range n {
					d.Data[i] = 1
					if i%2 == 0 {
						d.Labels[i] = 1
					}
					if weighted {
						d.Weights[i] = 1
						if i%2 == 0 {
							d.Weights[i] = 3
						}
					}
				}
				bst, m := train(t, d, b, hist(Param{"eta", "1"}, Param{"lambda", "0"},
					Param{"base_score", "0"}), 1)
				p, err := bst.Predict(m, PredictOptions{})
				if err != nil {
					t.Fatal(err)
				}
				want := float32(0.5)
				if weighted {
					want = 0.75
				}
				if math.Abs(float64(p[0]-want)) > 1e-6 {
					t.Fatalf("prediction %g, want %g", p[0], want)
				}
				if b == BuildQuantile && weighted {
					w, err := m.floatInfo("weight")
					if err != nil || len(w) != n || w[0] != 3 || w[1] != 1 {
						t.Fatalf("weights of the quantile matrix: %v %v", w[:2], err)
					}
				}
			})
		}
	}
}

// The three ways of building a matrix give the same model when every
// feature has fewer distinct values than bins.
func TestBuildsAgree(t *testing.T) {
	d := randomDense(3000, 5, 1)
	var ref []byte
	for _, b := range builds {
		bst, _ := train(t, d, b, hist(Param{"seed", "3"}, Param{"subsample", "0.8"}), 20)
		buf, err := bst.Save(FormatJSON)
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = buf
		} else if !bytes.Equal(buf, ref) {
			t.Errorf("%v: model differs from %v's", b, builds[0])
		}
	}
}

// NaN is missing; 0 is a value.
func TestNaNIsMissingZeroIsNot(t *testing.T) {
	nan := float32(math.NaN())
	d := Dense{Rows: 4, Cols: 3, Data: []float32{
		0, 0, nan,
		1, 0, 0,
		nan, nan, 0,
		0, 2, 3,
	}, Labels: []float32{1, 2, 3, 4}}
	for _, b := range builds {
		m, err := NewDMatrix(d, MatrixOptions{Build: b})
		if err != nil {
			t.Fatal(err)
		}
		n, err := m.nonMissing()
		m.Close()
		if err != nil || n != 9 {
			t.Errorf("%v: %d non-missing values (%v), want 9", b, n, err)
		}
	}
	// A split between 0 and 1 must see the zeros: targets ±5 learnt exactly.
	z := Dense{Rows: 100, Cols: 1, Data: make([]float32, 100), Labels: make([]float32, 100)}
	for i := range 100 {
		z.Labels[i] = 5
		if i%2 == 1 {
			z.Data[i], z.Labels[i] = 1, -5
		}
	}
	for _, b := range builds {
		bst, m := train(t, z, b, hist(Param{"max_leaves", "2"}, Param{"eta", "1"},
			Param{"lambda", "0"}, Param{"min_child_weight", "0"}, Param{"base_score", "0"}), 1)
		p, err := bst.Predict(m, PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p[0] != 5 || p[1] != -5 {
			t.Errorf("%v: predictions %v for x = 0, 1; want 5, -5", b, p[:2])
		}
	}
}

func TestPredictMatchesInPlaceAndRounds(t *testing.T) {
	d := randomDense(2000, 4, 2)
	bst, m := train(t, d, BuildQuantile, hist(), 30)
	full, err := bst.Predict(m, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	inplace, err := bst.PredictDense(d.Data, d.Rows, d.Cols, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range full {
		if math.Abs(float64(full[i]-inplace[i])) > 1e-5 {
			t.Fatalf("row %d: DMatrix %g, in place %g", i, full[i], inplace[i])
		}
	}
	// A fresh quantile matrix that shares the training cuts predicts the same.
	v, err := NewDMatrix(d, MatrixOptions{Build: BuildQuantile, MaxBin: 256, ref: m})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	pv, err := bst.Predict(v, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range full {
		if math.Abs(float64(full[i]-pv[i])) > 1e-5 {
			t.Fatalf("row %d: training matrix %g, reference-cut matrix %g", i, full[i], pv[i])
		}
	}
	// The first 10 rounds of 30 are the 10-round model.
	part, err := bst.Predict(m, PredictOptions{rounds: 10})
	if err != nil {
		t.Fatal(err)
	}
	s, err := bst.Slice(0, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if r, _ := s.Rounds(); r != 10 {
		t.Fatalf("slice has %d rounds", r)
	}
	sp, err := s.PredictDense(d.Data, d.Rows, d.Cols, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	diff := 0.0
	for i := range part {
		if math.Abs(float64(part[i]-sp[i])) > 1e-5 {
			t.Fatalf("row %d: 10 rounds of 30 %g, slice %g", i, part[i], sp[i])
		}
		diff = max(diff, math.Abs(float64(part[i]-full[i])))
	}
	if diff < 1e-3 {
		t.Fatalf("10 and 30 rounds predict alike (max diff %g): Rounds ignored", diff)
	}
}

func TestEvalParsesMetrics(t *testing.T) {
	d := randomDense(500, 3, 3)
	bst, m := train(t, d, BuildDense, hist(Param{"eval_metric", "rmse"}, Param{"eval_metric", "mae"}), 5)
	res, err := bst.Eval(4, EvalSet{"train", m}, EvalSet{"valid", m})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 4 || res[0].Data != "train" || res[0].Metric != "rmse" || res[1].Metric != "mae" || res[2].Data != "valid" {
		t.Fatalf("eval results %+v", res)
	}
	p, _ := bst.Predict(m, PredictOptions{})
	var se float64
	for i, v := range p {
		se += math.Pow(float64(v-d.Labels[i]), 2)
	}
	if rmse := math.Sqrt(se / float64(len(p))); math.Abs(rmse-res[0].Value) > 1e-5 {
		t.Fatalf("eval rmse %g, computed %g", res[0].Value, rmse)
	}
	if _, err := bst.Eval(4, EvalSet{"va-lid", m}); err == nil {
		t.Fatal("a name with '-' was accepted")
	}
}

func TestRankingGroups(t *testing.T) {
	// 30 queries of 10 docs; the grade is a step function of feature 0 and
	// feature 1 is noise, so a ranker can sort every query perfectly.
	r := rand.New(rand.NewPCG(12, 1))
	q, n := 30, 10
	d := Dense{Rows: q * n, Cols: 2, Data: make([]float32, q*n*2), Labels: make([]float32, q*n), Groups: make([]uint32, q)}
	for i := range q {
		d.Groups[i] = uint32(n)
		for j := range n {
			row := i*n + j
			x := r.Float32()
			d.Data[2*row], d.Data[2*row+1] = x, r.Float32()
			d.Labels[row] = float32(int(x * 4))
		}
	}
	bst, m := train(t, d, BuildDense, hist(Param{"objective", "rank:ndcg"}, Param{"eval_metric", "ndcg@3"}), 1)
	first, err := bst.Eval(0, EvalSet{"train", m})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 30; i++ {
		if err := bst.Update(i, m); err != nil {
			t.Fatal(err)
		}
	}
	last, err := bst.Eval(29, EvalSet{"train", m})
	if err != nil {
		t.Fatal(err)
	}
	if last[0].Metric != "ndcg@3" || last[0].Value < 0.999 {
		t.Fatalf("ndcg@3 after 30 rounds on a separable problem: %+v (first round %+v)", last, first)
	}
	if err := m.setGroups([]uint32{4, 3}); err == nil {
		t.Fatal("groups covering 7 rows were accepted")
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	d := randomDense(2000, 4, 4)
	bst, _ := train(t, d, BuildQuantile, hist(Param{"base_score", "0.25"}), 25)
	attrs := map[string]string{"piopt_kind": "sup", "piopt_features": "4", "note": "tab\there, ünïcode"}
	for k, v := range attrs {
		if err := bst.SetAttr(k, v); err != nil {
			t.Fatal(err)
		}
	}
	want, err := bst.PredictDense(d.Data, d.Rows, d.Cols, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []Format{FormatJSON, FormatUBJ, FormatBinary} {
		t.Run(string(f), func(t *testing.T) {
			buf, err := bst.Save(f)
			if err != nil {
				t.Fatal(err)
			}
			l, err := LoadBooster(buf)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			got, err := l.PredictDense(d.Data, d.Rows, d.Cols, PredictOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("row %d: reloaded %g, original %g", i, got[i], want[i])
				}
			}
			a, err := l.Attrs()
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(a) != fmt.Sprint(attrs) {
				t.Fatalf("attributes after reload %v, want %v", a, attrs)
			}
			if r, _ := l.Rounds(); r != 25 {
				t.Fatalf("%d rounds after reload", r)
			}
			if n, _ := l.numFeatures(); n != 4 {
				t.Fatalf("%d features after reload", n)
			}
			again, err := l.Save(f)
			if err != nil {
				t.Fatal(err)
			}
			if f != FormatBinary && !bytes.Equal(again, buf) {
				t.Fatal("saving a reloaded model changed its bytes")
			}
		})
	}
	v, ok, err := bst.Attr("note")
	if err != nil || !ok || v != attrs["note"] {
		t.Fatalf("Attr(note) = %q %v %v", v, ok, err)
	}
	if _, ok, err := bst.Attr("absent"); ok || err != nil {
		t.Fatalf("Attr(absent) = %v %v", ok, err)
	}
	if err := bst.DeleteAttr("note"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := bst.Attr("note"); ok {
		t.Fatal("deleted attribute still there")
	}
}

func TestSameSeedSameBytes(t *testing.T) {
	d := randomDense(3000, 5, 5)
	// subsample makes the seed matter.
	model := func(seed int64, threads int) []byte {
		bst, _ := train(t, d, BuildQuantile, hist(Param{"subsample", "0.5"},
			Param{"seed", strconv.FormatInt(seed, 10)}, Param{"nthread", strconv.Itoa(threads)}), 15)
		buf, err := bst.Save(FormatBinary)
		if err != nil {
			t.Fatal(err)
		}
		return buf
	}
	xgboosttest.CheckSeedDeterminesBytes(t, 1, 2, model)
}

func TestErrors(t *testing.T) {
	d := randomDense(100, 3, 6)
	cases := []struct {
		name   string
		params []Param
		want   string // in the error of the first Update
	}{
		{"bad number", hist(Param{"eta", "fast"}), "could not be parsed"},
		{"negative leaves", hist(Param{"max_leaves", "-3"}), "max_leaves"},
		{"unknown tree method", hist(Param{"tree_method", "forest"}), "forest"},
		{"unknown objective", hist(Param{"objective", "reg:nothing"}), "reg:nothing"},
		{"subsample above 1", hist(Param{"subsample", "1.5"}), "subsample"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := NewDMatrix(d, MatrixOptions{Build: BuildDense})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			bst, err := NewBooster(c.params, m)
			if err != nil {
				t.Fatalf("parameters are checked at the first round, yet NewBooster failed: %v", err)
			}
			defer bst.Close()
			err = bst.Update(0, m)
			var xe *Error
			if !errors.As(err, &xe) || xe.Func != "XGBoosterUpdateOneIter" || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want an XGBoosterUpdateOneIter error naming %q", err, c.want)
			}
			t.Log(err)
			if strings.Contains(err.Error(), "Stack trace") {
				t.Fatalf("error keeps the C++ stack trace: %v", err)
			}
		})
	}
}

func TestShapeErrors(t *testing.T) {
	d := randomDense(10, 3, 7)
	bad := []struct {
		name string
		d    Dense
	}{
		{"short data", Dense{Data: d.Data[:29], Rows: 10, Cols: 3}},
		{"no rows", Dense{Rows: 0, Cols: 3}},
		{"label length", Dense{Data: d.Data, Rows: 10, Cols: 3, Labels: d.Labels[:9]}},
		{"weight length", Dense{Data: d.Data, Rows: 10, Cols: 3, Weights: make([]float32, 11)}},
		{"groups sum", Dense{Data: d.Data, Rows: 10, Cols: 3, Groups: []uint32{5, 4}}},
		{"empty group", Dense{Data: d.Data, Rows: 10, Cols: 3, Groups: []uint32{10, 0}}},
	}
	for _, c := range bad {
		for _, b := range builds {
			if m, err := NewDMatrix(c.d, MatrixOptions{Build: b}); err == nil {
				m.Close()
				t.Errorf("%s/%v: accepted", c.name, b)
			}
		}
	}
	m, err := NewDMatrix(d, MatrixOptions{Build: BuildDense})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.SetLabels(make([]float32, 11)); err == nil || !strings.Contains(err.Error(), "11 labels for 10 rows") {
		t.Fatalf("wrong label length: %v", err)
	}
	if _, err := NewDMatrix(d, MatrixOptions{Build: BuildQuantile, ref: m}); err == nil {
		t.Fatal("a non-quantile reference was accepted")
	}
	q, err := NewDMatrix(d, MatrixOptions{Build: BuildQuantile, MaxBin: 32})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if _, err := NewDMatrix(d, MatrixOptions{Build: BuildQuantile, ref: q}); err == nil || !strings.Contains(err.Error(), "32 bins") {
		t.Fatalf("a reference cut with other bins: %v", err)
	}
	bst, err := NewBooster(hist(), m)
	if err != nil {
		t.Fatal(err)
	}
	defer bst.Close()
	if err := bst.Update(0, m); err != nil {
		t.Fatal(err)
	}
	_, err = bst.PredictDense(d.Data[:20], 5, 4, PredictOptions{})
	if err == nil || !strings.Contains(err.Error(), "XGBoosterPredictFromDense") {
		t.Fatalf("predicting 4 columns with a 3-column model: %v", err)
	}
	if _, err := LoadBooster([]byte("not a model at all")); err == nil {
		t.Fatal("garbage loaded as a model")
	}
	if _, err := bst.Slice(0, 5); err == nil {
		t.Fatal("slice beyond the model's rounds accepted")
	}
	if _, err := bst.Save("pickle"); err == nil {
		t.Fatal("unknown format accepted")
	}
}

// A quantile matrix is cut with its own max_bin: a booster asking for
// another one must fail instead of training on different bins.
func TestQuantileMaxBinMismatch(t *testing.T) {
	d := randomDense(200, 3, 8)
	m, err := NewDMatrix(d, MatrixOptions{Build: BuildQuantile, MaxBin: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	bst, err := NewBooster(hist(Param{"max_bin", "256"}), m)
	if err != nil {
		t.Fatal(err)
	}
	defer bst.Close()
	if err := bst.Update(0, m); err == nil {
		t.Fatal("max_bin 256 trained on a matrix cut with 64 bins")
	} else {
		t.Log(err)
	}
}

func TestClosedHandles(t *testing.T) {
	d := randomDense(50, 3, 9)
	m, err := NewDMatrix(d, MatrixOptions{Build: BuildDense})
	if err != nil {
		t.Fatal(err)
	}
	bst, err := NewBooster(hist(), m)
	if err != nil {
		t.Fatal(err)
	}
	if err := bst.Update(0, m); err != nil {
		t.Fatal(err)
	}
	if err := bst.Close(); err != nil {
		t.Fatal(err)
	}
	if err := bst.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := bst.Predict(m, PredictOptions{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("predict with a closed booster: %v", err)
	}
	if err := bst.Update(1, m); !errors.Is(err, ErrClosed) {
		t.Fatalf("update with a closed booster: %v", err)
	}
	if _, err := bst.Save(FormatJSON); !errors.Is(err, ErrClosed) {
		t.Fatalf("save with a closed booster: %v", err)
	}
	if _, _, err := bst.Attr("x"); !errors.Is(err, ErrClosed) {
		t.Fatalf("attr of a closed booster: %v", err)
	}
	b2, err := NewBooster(hist(), m)
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	m.Close()
	if err := b2.Update(0, m); !errors.Is(err, ErrClosed) {
		t.Fatalf("update on a closed matrix: %v", err)
	}
	if err := m.SetLabels(d.Labels); !errors.Is(err, ErrClosed) {
		t.Fatalf("labels on a closed matrix: %v", err)
	}
	if _, err := NewBooster(nil, m); !errors.Is(err, ErrClosed) {
		t.Fatalf("booster over a closed matrix: %v", err)
	}
}

// Each goroutine must read its own XGBGetLastError, which lives in the OS
// thread of the failing call.
func TestErrorsPerGoroutine(t *testing.T) {
	d := randomDense(100, 3, 10)
	m, err := NewDMatrix(d, MatrixOptions{Build: BuildDense})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for g := range errs {
		wg.Go(func() {
			for range 20 {
				bst, err := NewBooster(hist(Param{"objective", fmt.Sprintf("reg:bad%d", g)}), m)
				if err != nil {
					errs[g] = err
					return
				}
				err = bst.Update(0, m)
				bst.Close()
				if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("reg:bad%d", g)) {
					errs[g] = fmt.Errorf("goroutine %d got %v", g, err)
					return
				}
				runtime.Gosched()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func rssBytes(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip("no /proc/self/statm")
	}
	f := strings.Fields(string(b))
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// Creating and freeing matrices and boosters in a loop keeps RSS flat. Each
// cycle would leak about 0.8 MB (XGBoost's copy of a 4000×20 matrix, its
// bins and a booster), so 150 cycles without frees grow RSS by >100 MB.
func TestNoLeaks(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	d := randomDense(4000, 20, 11)
	cycle := func(closeAll bool) {
		m, err := NewDMatrix(d, MatrixOptions{Build: BuildDense, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		q, err := NewDMatrix(d, MatrixOptions{Build: BuildQuantile, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		bst, err := NewBooster(hist(), m, q)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			if err := bst.Update(i, m); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := bst.Predict(q, PredictOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := bst.Save(FormatBinary); err != nil {
			t.Fatal(err)
		}
		if _, err := bst.Eval(1, EvalSet{"q", q}); err != nil {
			t.Fatal(err)
		}
		if closeAll {
			bst.Close()
			m.Close()
			q.Close()
		}
	}
	for _, closeAll := range []bool{true, false} {
		for range 30 {
			cycle(closeAll)
		}
		runtime.GC()
		before := rssBytes(t)
		for range 150 {
			cycle(closeAll)
			if !closeAll {
				runtime.GC() // the cleanups free what was not closed
			}
		}
		runtime.GC()
		after := rssBytes(t)
		t.Logf("close=%v: RSS %d MB -> %d MB", closeAll, before>>20, after>>20)
		if after-before > 48<<20 {
			t.Errorf("close=%v: RSS grew by %d MB over 150 cycles", closeAll, (after-before)>>20)
		}
	}
}

// A quantile matrix of more rows than one iterator batch gets every
// batch's labels and weights, in order.
func TestQuantileBatches(t *testing.T) {
	n := 2*quantileBatch + 1234
	d := Dense{Rows: n, Cols: 1, Data: make([]float32, n), Labels: make([]float32, n), Weights: make([]float32, n)}
	var sw, swy float64
	for i := range n {
		d.Data[i] = 1
		d.Labels[i] = float32(i % 7)
		d.Weights[i] = float32(1 + i%3)
		sw += float64(d.Weights[i])
		swy += float64(d.Weights[i] * d.Labels[i])
	}
	bst, m := train(t, d, BuildQuantile, hist(Param{"eta", "1"}, Param{"lambda", "0"}, Param{"base_score", "0"}), 1)
	for field, want := range map[string][]float32{"label": d.Labels, "weight": d.Weights} {
		got, err := m.floatInfo(field)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("%s: %d values, equal %v, %v", field, len(got), slices.Equal(got, want), err)
		}
	}
	p, err := bst.Predict(m, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := swy / sw; math.Abs(float64(p[0])-want) > 1e-5*want {
		t.Fatalf("one leaf predicts %g, weighted mean %g", p[0], want)
	}
}

// XGBoost keeps a booster's prediction cache per OS thread. Creating the
// booster on one OS thread and training it from others must still work
// (without the booster's own thread, the first round fails with "0 feature
// is supplied") and give the model trained from one goroutine.
func TestBoosterAcrossOSThreads(t *testing.T) {
	d := randomDense(2000, 4, 14)
	ref, _ := train(t, d, BuildQuantile, hist(), 6)
	want, err := ref.Save(FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewDMatrix(d, MatrixOptions{Build: BuildQuantile})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	created := make(chan *Booster)
	release := make(chan struct{})
	go func() {
		runtime.LockOSThread() // holds this OS thread until the end
		defer runtime.UnlockOSThread()
		bst, err := NewBooster(hist(), m)
		if err != nil {
			t.Error(err)
		}
		created <- bst
		<-release
	}()
	bst := <-created
	defer close(release)
	if bst == nil {
		t.FailNow()
	}
	defer bst.Close()
	for it := range 6 {
		done := make(chan error)
		go func() {
			runtime.LockOSThread() // another OS thread than the creator's
			defer runtime.UnlockOSThread()
			done <- bst.Update(it, m)
		}()
		if err := <-done; err != nil {
			t.Fatalf("round %d from another OS thread: %v", it, err)
		}
	}
	got, err := bst.Save(FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("training from several OS threads changed the model")
	}
}

// withFill returns d with its rows made by a Fill function (over several
// batches), counting the rows it makes.
func withFill(d Dense, made *int) Dense {
	data := d.Data
	d.Data = nil
	d.Fill = func(dst []float32, lo, hi int) {
		copy(dst[:(hi-lo)*d.Cols], data[lo*d.Cols:hi*d.Cols])
		*made += hi - lo
	}
	return d
}

// A quantile matrix made batch by batch by Fill is the matrix of the same
// rows given at once: same bins, labels and weights, so the same model,
// byte for byte.
func TestQuantileFromFill(t *testing.T) {
	d := randomDense(2*quantileBatch+777, 4, 5)
	d.Weights = make([]float32, d.Rows)
	for i := range d.Weights {
		d.Weights[i] = float32(1 + i%4)
	}
	params := hist(Param{"seed", "3"}, Param{"subsample", "0.8"})
	ref, _ := train(t, d, BuildQuantile, params, 10)
	made := 0
	bst, m := train(t, withFill(d, &made), BuildQuantile, params, 10)
	// XGBoost reads the rows in several passes.
	if made < 2*d.Rows || made%d.Rows != 0 {
		t.Fatalf("Fill made %d rows of %d", made, d.Rows)
	}
	for field, want := range map[string][]float32{"label": d.Labels, "weight": d.Weights} {
		got, err := m.floatInfo(field)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("%s: %d values, equal %v, %v", field, len(got), slices.Equal(got, want), err)
		}
	}
	a, err := ref.Save(FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bst.Save(FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("the model trained on rows made by Fill differs")
	}
}

func TestFillErrors(t *testing.T) {
	made := 0
	d := withFill(randomDense(100, 3, 1), &made)
	for _, b := range []Build{BuildDense, BuildMatOMP} {
		if _, err := NewDMatrix(d, MatrixOptions{Build: b}); err == nil || !strings.Contains(err.Error(), "only be built as a quantile matrix") {
			t.Errorf("%v from Fill: %v", b, err)
		}
	}
	both := d
	both.Data = make([]float32, 300)
	if _, err := NewDMatrix(both, MatrixOptions{Build: BuildQuantile}); err == nil || !strings.Contains(err.Error(), "both values and a Fill") {
		t.Errorf("Data and Fill: %v", err)
	}
	if made != 0 {
		t.Errorf("refused matrices made %d rows", made)
	}
	// A panic in Fill does not unwind through XGBoost: it comes back once
	// XGBoost has returned, and nothing is left half-made.
	boom := d
	boom.Fill = func(dst []float32, lo, hi int) { panic("boom") }
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want the panic of Fill", r)
			}
		}()
		NewDMatrix(boom, MatrixOptions{Build: BuildQuantile, Threads: 1})
		t.Error("no panic")
	}()
	// The binding still works afterwards.
	if m, err := NewDMatrix(d, MatrixOptions{Build: BuildQuantile, Threads: 1}); err != nil {
		t.Fatal(err)
	} else {
		m.Close()
	}
}
