//go:build cgo

package experiment

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piopt/piopt/eval"
)

// tinyRun runs a one-fold, one-metric experiment of few trees into out and
// returns its summary's JSON and log.
func tinyRun(t *testing.T, folds []Fold, out string) ([]byte, string) {
	t.Helper()
	var log bytes.Buffer
	cfg := smallConfig(t, folds, out)
	cfg.Params.Trees, cfg.LambdaMART, cfg.Metrics, cfg.Samples = 5, false, []eval.Kind{eval.KindNDCG}, 20_000
	cfg.Log = &log
	s, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b, log.String()
}

// editInPlace rewrites the file at path with edit applied, keeping its
// size and modification time.
func editInPlace(t *testing.T, path string, edit func([]byte) []byte) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	nb := edit(bytes.Clone(b))
	if len(nb) != len(b) || bytes.Equal(nb, b) {
		t.Fatalf("edit of %s changed its size or nothing", path)
	}
	if err := os.WriteFile(path, nb, st.Mode()); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// Issue 30, class 1: an input edited in place with its size and mtime
// kept had its old fold results reused, and summary.json listed its old
// SHA-256. Stages are keyed by content: the fold is recomputed and the
// summary lists the new hash.
func TestSilentWrongResults_EditedInput(t *testing.T) {
	if testing.Short() {
		t.Skip("trains XGBoost models")
	}
	folds := synthFolds(t, 60, 1)
	out := filepath.Join(t.TempDir(), "out")
	tinyRun(t, folds, out)
	// Swap two grades of the test file: same size, other labels.
	editInPlace(t, folds[0].Test, func(b []byte) []byte {
		i := bytes.IndexByte(b, '\n') + 1
		j := i + bytes.IndexByte(b[i:], '\n') + 1
		for b[0] == b[j] { // find a line with another grade
			j += bytes.IndexByte(b[j:], '\n') + 1
		}
		b[0], b[j] = b[j], b[0]
		return b
	})
	sum, log := tinyRun(t, folds, out)
	if strings.Contains(log, "results reused") {
		t.Errorf("results reused after the test file changed:\n%s", log)
	}
	b, _ := os.ReadFile(folds[0].Test)
	h := sha256.Sum256(b)
	if !bytes.Contains(sum, []byte(hex.EncodeToString(h[:]))) {
		t.Errorf("summary lacks the edited test file's SHA-256 %x", h)
	}
}

// Issue 30, class 1: edited resume files (a fold's results, its targets)
// were trusted. Each carries a seal of its own bytes; an edited one is
// recomputed with a one-line notice, and the summary is the first run's.
func TestSilentWrongResults_EditedResumeFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("trains XGBoost models")
	}
	folds := synthFolds(t, 60, 1)
	out := filepath.Join(t.TempDir(), "out")
	first, _ := tinyRun(t, folds, out)
	glob := func(pattern string) string {
		m, _ := filepath.Glob(filepath.Join(out, "fold1", pattern))
		if len(m) != 1 {
			t.Fatalf("fold1/%s: %v", pattern, m)
		}
		return m[0]
	}
	// A result value edited: "0.5…" → "0.9…" keeps the JSON valid.
	res := glob("result-*.json")
	editInPlace(t, res, func(b []byte) []byte {
		i := bytes.Index(b, []byte(": 0."))
		if b[i+4] == '9' {
			b[i+4] = '1'
		} else {
			b[i+4] = '9'
		}
		return b
	})
	sum, log := tinyRun(t, folds, out)
	if want := "fold 1: recomputing results: " + res + ": its sha256 seal does not match"; !strings.Contains(log, want) {
		t.Errorf("log lacks %q:\n%s", want, log)
	}
	if !bytes.Equal(sum, first) {
		t.Errorf("summary after an edited result file differs from the first run's")
	}

	// Targets edited (and the results gone, so that they are needed).
	if err := os.Remove(res); err != nil {
		t.Fatal(err)
	}
	tg := glob("targets-ndcg-*.tsv")
	editInPlace(t, tg, func(b []byte) []byte {
		i := bytes.LastIndex(b, []byte("\t1\n")) // a weight
		b[i+1] = '2'
		return b
	})
	sum, log = tinyRun(t, folds, out)
	if want := "fold 1: recomputing targets: " + tg + ": its sha256 seal does not match"; !strings.Contains(log, want) {
		t.Errorf("log lacks %q:\n%s", want, log)
	}
	if strings.Contains(log, "targets reused") || !bytes.Equal(sum, first) {
		t.Errorf("edited targets reused, or the summary differs:\n%s", log)
	}
}
