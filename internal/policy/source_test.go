package policy

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/trainer"
)

func needXGBoost(t *testing.T) {
	t.Helper()
	if !trainer.Available {
		t.Skip("needs cgo and libxgboost")
	}
}

// mslrLike returns queries of random MSLR-shaped rows (136 features) whose
// grade depends on feature 1 (body) and feature 2 (anchor).
func mslrLike(queries, docs int, seed uint64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, 3))
	ds := &data.Dataset{NumFeatures: 136, QueryOffsets: []int{0}, Source: "mslr-like"}
	for q := range queries {
		for range docs {
			row := make([]float32, 136)
			for k := range row {
				row[k] = float32(rng.IntN(100)) / 10
			}
			ds.Features = append(ds.Features, row...)
			g := 0
			if row[0] > 5 {
				g += 2
			}
			if row[1] > 5 {
				g++
			}
			ds.Labels = append(ds.Labels, uint8(g))
		}
		ds.QueryOffsets = append(ds.QueryOffsets, len(ds.Labels))
		ds.QIDs = append(ds.QIDs, fmt.Sprint(q))
	}
	return ds
}

// TestMaskedModelsIgnoreOtherColumns trains on the url-side subset (masked
// copy) and checks that full rows and masked rows get identical scores: the
// model never uses a column outside the subset.
func TestMaskedModelsIgnoreOtherColumns(t *testing.T) {
	needXGBoost(t)
	ds := mslrLike(20, 30, 1)
	for _, spec := range []string{"tree:url-side@4", "lasso:body-side@0.001", "tree:body@3"} {
		src, err := Resolve(spec, Options{Threads: 1, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		l := src.(*SubsetSource)
		full, err := l.Scores(context.Background(), ds)
		if err != nil {
			t.Fatal(err)
		}
		masked := *ds
		masked.Features = Masked(ds, l.Features())
		part, err := l.Scores(context.Background(), &masked)
		if err != nil {
			t.Fatal(err)
		}
		varies := false
		for i := range full {
			if full[i] != part[i] {
				t.Fatalf("%s: doc %d scores %g on full rows, %g on masked rows", spec, i, full[i], part[i])
			}
			varies = varies || full[i] != full[0]
		}
		if !varies {
			t.Fatalf("%s: constant scores; the test proves nothing", spec)
		}
	}
}

// TestTreeFitsStepFunction: grades are 2·1{f1 > 5} + 1{f2 > 5}; a depth-2
// tree on features 1-2 recovers them exactly, a depth-1 tree only the
// f1 split (means 0.5 and 2.5).
func TestTreeFitsStepFunction(t *testing.T) {
	needXGBoost(t)
	ds := mslrLike(30, 40, 2)
	for _, tc := range []struct {
		spec string
		want func(f1, f2 float32) float64
		tol  float64
	}{
		{"tree:1-2@2", func(f1, f2 float32) float64 { return 2*b(f1 > 5) + b(f2 > 5) }, 1e-5},
		{"tree:1-2@1", func(f1, f2 float32) float64 { return 2*b(f1 > 5) + 0.5 }, 0.1},
	} {
		src, _ := Resolve(tc.spec, Options{Threads: 1})
		s, err := src.Scores(context.Background(), ds)
		if err != nil {
			t.Fatal(err)
		}
		for d := range ds.NumDocs() {
			r := ds.Row(d)
			if got, want := s[d], tc.want(r[0], r[1]); math.Abs(got-want) > tc.tol {
				t.Fatalf("%s: doc %d (f1 %g, f2 %g) predicted %g, want %g", tc.spec, d, r[0], r[1], got, want)
			}
		}
	}
}

func b(c bool) float64 {
	if c {
		return 1
	}
	return 0
}

func TestResolve(t *testing.T) {
	for spec, want := range map[string]string{
		"tree:url-side":      "tree:url-side@6",
		"tree:body+1-3@9":    "tree:body+1-3@9",
		"lasso:body-side":    "lasso:body-side@0.01",
		"lasso:title@0.5":    "lasso:title@0.5",
		"feature:7":          "feature:7",
		"model:/tmp/x.model": "model:/tmp/x.model",
	} {
		src, err := Resolve(spec, Options{})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if src.String() != want {
			t.Errorf("Resolve(%q).String() = %q, want %q", spec, src.String(), want)
		}
	}
	for _, bad := range []string{"tree:", "tree:url@0", "tree:url@x", "lasso:url@-1", "forest:url", "feature:0"} {
		if _, err := Resolve(bad, Options{}); err == nil {
			t.Errorf("Resolve(%q) accepted", bad)
		}
	}
	// A subset the data's layout does not know is reported at scoring time.
	src, _ := Resolve("tree:body", Options{})
	ds := &data.Dataset{NumFeatures: 3, Features: make([]float32, 3), Labels: []uint8{0}, QueryOffsets: []int{0, 1}, QIDs: []string{"q"}}
	if _, err := src.Scores(context.Background(), ds); err == nil {
		t.Error("stream subset accepted on a 3-feature dataset")
	}
}
