package ope

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
)

// drCheck is what testdata/drcheck/gen.py wrote.
type drCheck struct {
	Setup struct {
		Slots   int     `json:"slots"`
		Logging string  `json:"logging"`
		Folds   int     `json:"folds"`
		Delta   float64 `json:"delta"`
		Queries []struct {
			M      int       `json:"m"`
			Target []int32   `json:"target"`
			Phi    []float64 `json:"phi"`
		} `json:"queries"`
	}
	Expected struct {
		PI          float64    `json:"pi"`
		WPI         float64    `json:"wpi"`
		Beta        float64    `json:"beta"`
		FoldBetas   []float64  `json:"fold_betas"`
		PICV        float64    `json:"pi_cv"`
		PICVEB      [2]float64 `json:"pi_cv_eb"`
		DR          float64    `json:"dr"`
		DREB        [2]float64 `json:"dr_eb"`
		WDR         float64    `json:"wdr"`
		WeightRange [2]float64 `json:"weight_range"`
		ModelRange  [2]float64 `json:"model_range"`
	}
	Log []struct {
		q int
		s []int32
		r float64
	}
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// readDRCheck reads setup.json, expected.json and log.tsv (query index,
// slate of candidate indices, reward) from dir.
func readDRCheck(t testing.TB, dir string) *drCheck {
	t.Helper()
	var c drCheck
	readJSON(t, filepath.Join(dir, "setup.json"), &c.Setup)
	readJSON(t, filepath.Join(dir, "expected.json"), &c.Expected)
	b, err := os.ReadFile(filepath.Join(dir, "log.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("log.tsv:%d: %d fields", i+1, len(f))
		}
		q, err1 := strconv.Atoi(f[0])
		r, err2 := strconv.ParseFloat(f[2], 64)
		var s []int32
		for _, a := range strings.Split(f[1], ",") {
			x, err := strconv.Atoi(a)
			if err != nil {
				t.Fatalf("log.tsv:%d: %v", i+1, err)
			}
			s = append(s, int32(x))
		}
		if err1 != nil || err2 != nil {
			t.Fatalf("log.tsv:%d: %v %v", i+1, err1, err2)
		}
		c.Log = append(c.Log, struct {
			q int
			s []int32
			r float64
		}{q, s, r})
	}
	return &c
}

// plan builds the check's plan: one query per entry, candidates in
// document order (the logging ranker's feature decreases with position, so
// candidate a has rank a+1, as gen.py's p_α assumes), its deterministic
// target and its reward model.
func (c *drCheck) plan(t testing.TB) (*Plan, PhiTable) {
	t.Helper()
	ds := &data.Dataset{NumFeatures: 2, QueryOffsets: []int{0}, Source: "drcheck"}
	for q, x := range c.Setup.Queries {
		for a := range x.M {
			ds.Features = append(ds.Features, float32(100-a), 0)
			ds.Labels = append(ds.Labels, 0)
		}
		ds.QueryOffsets = append(ds.QueryOffsets, len(ds.Labels))
		ds.QIDs = append(ds.QIDs, fmt.Sprint(q))
	}
	s := setup(t, ds, 0, c.Setup.Slots, c.Setup.Logging)
	for q := range c.Setup.Queries {
		docs := s.Candidates.Docs(q)
		for a, d := range docs {
			if d != int32(a) {
				t.Fatalf("query %d: candidates %v not in document order", q, docs)
			}
		}
	}
	tg, err := NewDeterministicTarget("drcheck", s.Candidates, c.Setup.Slots, func(q int) []int32 { return c.Setup.Queries[q].Target })
	if err != nil {
		t.Fatal(err)
	}
	s.Target, s.Scorer = tg, nil
	p, err := Prepare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	model := make(PhiTable, len(c.Setup.Queries))
	for q, x := range c.Setup.Queries {
		model[q] = x.Phi
	}
	return p, model
}
