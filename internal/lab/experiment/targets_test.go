//go:build cgo

package experiment

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/internal/pipeline"
)

// experiment with TargetsKind dr learns from doubly-robust targets (their
// header says so), keyed apart from PI targets in the same folder: a pi
// run there reuses none of them and writes its own, whose header has no
// targets-kind, and the summary records targets_kind only for dr.
func TestRunDRTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("trains XGBoost models")
	}
	folds := synthFolds(t, 100, 1)
	out := filepath.Join(t.TempDir(), "out")
	cfg := smallConfig(t, folds, out)
	cfg.LambdaMART, cfg.Metrics, cfg.Samples, cfg.Params.EarlyStopping = false, []eval.Kind{eval.KindNDCG}, 100_000, 5
	headers := func() map[string]string {
		files, err := filepath.Glob(filepath.Join(out, "fold1", "*targets-*.tsv"))
		if err != nil {
			t.Fatal(err)
		}
		h := map[string]string{}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			h[filepath.Base(f)] = strings.SplitN(string(b), "\n", 2)[0]
		}
		return h
	}
	for i, kind := range []string{pipeline.TargetsDR, pipeline.TargetsPI} {
		cfg.TargetsKind = kind
		s, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		v := s.Folds[0].Values["ndcg@3"]
		if !(v[PIOPT] > v[pipeline.PolicyRandom]+0.1) {
			t.Errorf("%s: pi-opt %.4f, not clearly above random %.4f", kind, v[PIOPT], v[pipeline.PolicyRandom])
		}
		if got, _ := s.Config["targets_kind"].(string); (kind == pipeline.TargetsDR) != (got == pipeline.TargetsDR) {
			t.Errorf("%s: summary targets_kind %q", kind, got)
		}
		dr := 0
		h := headers()
		for name, line := range h {
			if strings.Contains(line, " targets-kind=dr") {
				dr++
			}
			if !strings.Contains(line, " targets-kind=dr") && strings.Contains(line, "baseline") {
				t.Errorf("%s: %s header %q", kind, name, line)
			}
		}
		// The training targets, and the validation targets with early
		// stopping: 2 of dr, then 2 more of pi.
		if want := 2 * (i + 1); len(h) != want || dr != 2 {
			t.Errorf("after %s: %d targets files, %d of them dr: %v", kind, len(h), dr, h)
		}
	}
}
