//go:build cgo

package experiment

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/data/synth"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/pipeline"
	"github.com/piopt/piopt/trainer"
)

// synthFolds generates a synthetic dataset of the given queries (seed 3)
// and returns the given folds of it.
func synthFolds(t *testing.T, queries int, only ...int) []Fold {
	t.Helper()
	dir := t.TempDir()
	if _, err := synth.Generate(context.Background(), dir, synth.Config{Queries: queries, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	folds, err := FindFolds(dir, only, FoldOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return folds
}

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
	folds := synthFolds(t, 150, 1, 2)
	out := filepath.Join(t.TempDir(), "out")
	var log bytes.Buffer
	cfg := smallConfig(t, folds, out)
	cfg.Log = &log
	cfg.Command, cfg.PioptVersion, cfg.XGBoostVersion = "piopt experiment --out x", "v9.9.9 abc", "1.7.6"
	s1, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkProvenance(t, s1, folds, log.String())
	for _, f := range s1.Folds {
		for _, m := range []string{"ndcg@3", "err@3"} {
			v := f.Values[m]
			for _, p := range []string{PIOPT, SUP, LambdaMART} {
				if !(v[p] > v[pipeline.PolicyRandom]+0.1) {
					t.Errorf("fold %d %s: %s = %.4f, not clearly above random %.4f", f.Fold, m, p, v[p], v[pipeline.PolicyRandom])
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
	// Every run hashes its inputs once: their contents key the stages.
	if !strings.Contains(log.String(), "hashed 6 input files in ") {
		t.Errorf("second run did not hash its inputs:\n%s", log.String())
	}
	checkRunFiles(t, s1, s2)
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

// checkProvenance: the summary records the command, the versions and the
// fold files in fold order with their SHA-256 (as sha256sum gives it) and
// sizes, hashed once each.
func checkProvenance(t *testing.T, s *Summary, folds []Fold, log string) {
	t.Helper()
	p := s.Provenance
	if p.Command != "piopt experiment --out x" || p.PioptVersion != "v9.9.9 abc" || p.XGBoostVersion != "1.7.6" {
		t.Errorf("provenance %+v", p)
	}
	var paths []string
	for _, f := range folds {
		paths = append(paths, f.Train, f.Vali, f.Test)
	}
	if len(p.Inputs) != len(paths) {
		t.Fatalf("inputs %+v, want %v", p.Inputs, paths)
	}
	for i, in := range p.Inputs {
		b, err := os.ReadFile(paths[i])
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if in.Path != paths[i] || in.SHA256 != hex.EncodeToString(sum[:]) || in.Bytes != int64(len(b)) {
			t.Errorf("input %d: %+v, want %s %x %d", i, in, paths[i], sum, len(b))
		}
	}
	if tool, err := exec.LookPath("sha256sum"); err == nil {
		out, err := exec.Command(tool, paths[0]).Output()
		if err != nil || strings.Fields(string(out))[0] != p.Inputs[0].SHA256 {
			t.Errorf("sha256sum %s (%v), provenance %s", out, err, p.Inputs[0].SHA256)
		}
	}
	if !strings.Contains(log, "hashed 6 input files in ") {
		t.Errorf("first run log lacks the hashing:\n%s", log)
	}
	b, _ := s.MarshalJSON()
	var sum struct {
		Provenance map[string]json.RawMessage `json:"provenance"`
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(maps.Keys(sum.Provenance)); !slices.Equal(got, []string{"command", "inputs", "piopt_version", "xgboost_version"}) {
		t.Errorf("summary.json provenance keys %v", got)
	}
}

// checkRunFiles: a fresh run (s1) and a resumed one (s2) write the same
// summary.json and report.html bytes; their run.json have the same keys,
// say which folds were reused, and hold what varies.
func checkRunFiles(t *testing.T, s1, s2 *Summary) {
	t.Helper()
	d1, d2 := t.TempDir(), t.TempDir()
	p1, err := s1.WriteFiles(d1)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := s2.WriteFiles(d2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(d1, "summary.json"), filepath.Join(d1, "report.html"), filepath.Join(d1, "run.json")}; !slices.Equal(p1, want) {
		t.Errorf("wrote %v, want %v", p1, want)
	}
	for i := range 2 {
		a, b := mustReadFile(t, p1[i]), mustReadFile(t, p2[i])
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between a fresh and a resumed run", filepath.Base(p1[i]))
		}
		// (SVG text may anchor at "start": the keys are checked in the
		// JSON only.)
		for _, varying := range []string{"hostname", "gomaxprocs", `"start"`, `"seconds"`, s1.Run.Start} {
			if bytes.Contains(a, []byte(varying)) && (i == 0 || !strings.HasPrefix(varying, `"`)) {
				t.Errorf("%s contains %q", filepath.Base(p1[i]), varying)
			}
		}
	}
	var r1, r2 struct {
		Start    string             `json:"start"`
		Hostname string             `json:"hostname"`
		Cores    int                `json:"cores"`
		Seconds  map[string]float64 `json:"seconds"`
		Folds    []FoldRun          `json:"folds"`
	}
	if err := json.Unmarshal(mustReadFile(t, p1[2]), &r1); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(mustReadFile(t, p2[2]), &r2); err != nil {
		t.Fatal(err)
	}
	var keys map[string]any
	_ = json.Unmarshal(mustReadFile(t, p1[2]), &keys)
	if got := slices.Sorted(maps.Keys(keys)); !slices.Equal(got, []string{"cores", "folds", "gomaxprocs", "hostname", "seconds", "start"}) {
		t.Errorf("run.json keys %v", got)
	}
	if r1.Start == "" || r1.Cores < 1 || r1.Seconds["total"] <= 0 || r1.Hostname != r2.Hostname {
		t.Errorf("run records %+v, %+v", r1, r2)
	}
	if len(r1.Folds) != 2 || r1.Folds[0].Reused || r1.Folds[0].Seconds["rank"] <= 0 || r1.Folds[0].Seconds["train sup"] <= 0 {
		t.Errorf("fresh run's folds %+v", r1.Folds)
	}
	if len(r2.Folds) != 2 || !r2.Folds[1].Reused || len(r2.Folds[1].Seconds) != 0 {
		t.Errorf("resumed run's folds %+v", r2.Folds)
	}
}

// A given maxrel below the data's highest grade is refused before any stage
// runs: no targets, models or results are written.
func TestRunRefusesLowMaxRel(t *testing.T) {
	folds := synthFolds(t, 30, 1)
	out := filepath.Join(t.TempDir(), "out")
	cfg := smallConfig(t, folds, out)
	cfg.Conventions.MaxRel = 1
	_, err := Run(context.Background(), cfg)
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

// TestPIOPTLearningRate: Config.LearningRate trains PI-OPT alone at its
// rate (SUP keeps Params'), and the summary and the table say so; at 0
// PI-OPT follows Params' rate.
func TestPIOPTLearningRate(t *testing.T) {
	if testing.Short() {
		t.Skip("trains XGBoost models")
	}
	folds := synthFolds(t, 60, 1)
	for _, rate := range []float64{0, 0.3} {
		out := filepath.Join(t.TempDir(), "out")
		cfg := smallConfig(t, folds, out)
		cfg.LambdaMART, cfg.Metrics, cfg.Params.Trees, cfg.Params.EarlyStopping = false, []eval.Kind{eval.KindNDCG}, 10, 5
		cfg.SelectBy, cfg.BaseScore, cfg.LearningRate = trainer.SelectValue, "0.5", rate
		s, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		wantPI := "learning_rate=0.1 "
		if rate > 0 {
			wantPI = "learning_rate=0.3 "
		}
		for name, want := range map[string]string{"pi-opt-ndcg-*.model": wantPI, "sup-*.model": "learning_rate=0.1 "} {
			models, _ := filepath.Glob(filepath.Join(out, "fold1", name))
			if len(models) != 1 {
				t.Fatalf("rate %v: models %s: %v", rate, name, models)
			}
			b, err := os.ReadFile(models[0])
			if err != nil || !bytes.Contains(b, []byte(want)) {
				t.Errorf("rate %v: %s lacks %q (%v)", rate, models[0], want, err)
			}
		}
		pp, ok := s.Config["pi_opt_params"].(string)
		if !ok || !strings.Contains(pp, wantPI) || !strings.Contains(pp, "select_by=value base_score=0.5") ||
			!strings.Contains(s.Config["params"].(string), "learning_rate=0.1 ") {
			t.Errorf("rate %v: summary config %v", rate, s.Config)
		}
		note := "PI-OPT learns at rate 0.3 (--pi-learning-rate), SUP and LambdaMART at 0.1 (--learning-rate)"
		if got := slices.Contains(s.Notes, note); got != (rate > 0) {
			t.Errorf("rate %v: notes %q", rate, s.Notes)
		}
	}
}
