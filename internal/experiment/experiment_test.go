//go:build cgo

package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/data/synth"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/ranker"
	"github.com/piopt/piopt/trainer"
)

func smallConfig(t *testing.T, folds []Fold, out string) Config {
	t.Helper()
	p := trainer.Defaults()
	p.Trees, p.Leaves, p.Threads, p.Seed = 40, 15, 1, 1
	return Config{
		Folds: folds, Out: out, Slots: 3, Samples: 200_000, Seed: 1,
		Logging: impute.Uniform(), Params: p, LambdaMART: true,
		Metrics: []eval.Kind{eval.KindNDCG, eval.KindERR},
		Read:    data.ReadOptions{MaxLabel: 4, CacheDir: t.TempDir()},
	}
}

// TestRunLearnsAndResumes runs the whole pipeline on two folds of a small
// synthetic dataset: every model must beat random slates clearly, the
// summary must have the documented shape, and a second run must reuse every
// stage and give the same summary bytes.
func TestRunLearnsAndResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("trains XGBoost models")
	}
	dir := t.TempDir()
	if _, err := synth.Generate(context.Background(), dir, synth.Config{Queries: 150, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	folds, err := FindFolds(dir, []int{1, 2}, FoldOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	var log bytes.Buffer
	cfg := smallConfig(t, folds, out)
	cfg.Log = &log
	s1, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range s1.Folds {
		for _, m := range []string{"ndcg@3", "err@3"} {
			v := f.Values[m]
			for _, p := range []string{PIOPT, SUP, LambdaMART} {
				if !(v[p] > v[ranker.PolicyRandom]+0.1) {
					t.Errorf("fold %d %s: %s = %.4f, not clearly above random %.4f", f.Fold, m, p, v[p], v[ranker.PolicyRandom])
				}
			}
		}
	}
	b1, err := s1.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var shape struct {
		Conventions map[string]any `json:"conventions"`
		Folds       []map[string]json.RawMessage
		Mean, Std   map[string]map[string]float64
	}
	if err := json.Unmarshal(b1, &shape); err != nil {
		t.Fatal(err)
	}
	if len(shape.Folds) != 2 || string(shape.Folds[0]["fold"]) != "1" || string(shape.Folds[1]["fold"]) != "2" {
		t.Fatalf("folds in summary: %s", b1)
	}
	for _, m := range []string{"ndcg@3", "err@3"} {
		for _, p := range []string{"pi-opt", "sup", "random", "lambdamart"} {
			if _, ok := shape.Mean[m][p]; !ok {
				t.Errorf("mean has no %s/%s", m, p)
			}
			if _, ok := shape.Std[m][p]; !ok {
				t.Errorf("std has no %s/%s", m, p)
			}
		}
	}
	if shape.Conventions["err-maxrel"] != float64(4) {
		t.Errorf("conventions %v: want err-maxrel 4 from the data", shape.Conventions)
	}

	// Resume: every stage is reused and the bytes are the same.
	log.Reset()
	cfg.Log = &log
	s2, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := s2.MarshalJSON()
	if !bytes.Equal(b1, b2) {
		t.Fatalf("second run gave a different summary:\n%s\n%s", b1, b2)
	}
	if got := strings.Count(log.String(), "results reused"); got != 2 {
		t.Fatalf("second run log:\n%s", log.String())
	}

	// An interrupted run: remove one fold's results; its models and
	// targets are reused, and the results are recomputed identically.
	res, _ := filepath.Glob(filepath.Join(out, "fold2", "result-*.json"))
	if len(res) != 1 {
		t.Fatalf("fold 2 results: %v", res)
	}
	os.Remove(res[0])
	log.Reset()
	s3, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if b3, _ := s3.MarshalJSON(); !bytes.Equal(b1, b3) {
		t.Fatalf("resumed run gave a different summary")
	}
	for _, want := range []string{"fold 2: sup model reused", "fold 2: targets reused", "fold 2: pi-opt ndcg model reused"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("resumed run log lacks %q:\n%s", want, log.String())
		}
	}
	if html := s3.HTML(); !bytes.Contains(html, []byte("<svg")) || bytes.Contains(html, []byte("http://")) && !bytes.Contains(html, []byte("http://www.w3.org/2000/svg")) {
		t.Errorf("report is not a self-contained page with a chart")
	}
}

// A given maxrel below the data's highest grade is refused before any stage
// runs: no targets, models or results are written.
func TestRunRefusesLowMaxRel(t *testing.T) {
	dir := t.TempDir()
	if _, err := synth.Generate(context.Background(), dir, synth.Config{Queries: 30, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	folds, err := FindFolds(dir, []int{1}, FoldOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	cfg := smallConfig(t, folds, out)
	cfg.Conventions.MaxRel = 1
	_, err = Run(context.Background(), cfg)
	if err == nil || err.Error() != "--maxrel 1 is below the data's highest grade 4" {
		t.Fatalf("err = %v", err)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "maxlabel-") {
			t.Errorf("%s written before the maxrel check", e.Name())
		}
	}
}
