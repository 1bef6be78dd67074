package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/internal/policy"
)

// letorFile writes a small LETOR file: 8 queries of 3..6 documents with 3
// features each.
func letorFile(t *testing.T, dir string) string {
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for q := range 8 {
		for range 3 + q%4 {
			fmt.Fprintf(&b, "%d qid:%d 1:%d 2:%d 3:%d\n", rng.IntN(3), q+1, rng.IntN(9), rng.IntN(9), rng.IntN(9))
		}
	}
	path := filepath.Join(dir, "train.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Imputing a simulated log and imputing the same simulation in memory give
// the same targets file, byte for byte: both paths through Impute share
// SimulationSpec and Targets.
func TestImputeSimulatedEqualsLog(t *testing.T) {
	dir := t.TempDir()
	train := letorFile(t, dir)
	read := data.ReadOptions{MaxLabel: 4, NoCache: true}
	ctx := context.Background()
	setup, err := policy.ParseSetup(policy.Flags{Slots: 2, Logging: "uniform", SlotsSet: true, LoggingSet: true})
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "train.log")
	sim, err := Simulate(ctx, SimulateConfig{Data: train, Read: read, Setup: setup, Metric: eval.KindNDCG, Samples: 3000, Seed: 5, Out: logPath})
	if err != nil {
		t.Fatal(err)
	}
	if sim.Impressions != 3000 || sim.Queries != 8 || !(sim.Mean > 0 && sim.Mean <= 1) {
		t.Errorf("simulate: %+v", sim)
	}
	fromLog, err := Impute(ctx, ImputeConfig{Data: train, Read: read, Logs: logPath, Out: filepath.Join(dir, "a.targets")})
	if err != nil {
		t.Fatal(err)
	}
	fused, err := Impute(ctx, ImputeConfig{Data: train, Read: read, Setup: policy.Flags{Slots: 2, Logging: "uniform", SlotsSet: true, LoggingSet: true},
		Samples: 3000, Metric: eval.KindNDCG, Seed: 5, Out: filepath.Join(dir, "b.targets")})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(fromLog.Out)
	b, _ := os.ReadFile(fused.Out)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("targets differ:\n%.300s\n---\n%.300s", a, b)
	}
	if fromLog.Impressions != 3000 || fromLog.Logged != 8 || fromLog.Units != 8 || fromLog.Rows != fused.Rows {
		t.Errorf("impute: %+v", fromLog)
	}
	var sum bytes.Buffer
	fromLog.WriteSummary(&sum)
	if !strings.HasPrefix(sum.String(), "impute: 3000 impressions, 8 of 8 queries logged, ") || !strings.Contains(sum.String(), "Γ (uniform) over 4 query shapes") {
		t.Errorf("summary:\n%s", sum.String())
	}
}

// A log's rewards were scored by its logger: a convention flag its header
// contradicts is refused, and one it states is accepted.
func TestCheckStated(t *testing.T) {
	h := data.Header{"discount": "1/log2(j+1)", "err-maxrel": "2"}
	if err := checkStated([]StatedFlag{{"discount", "log2"}, {"maxrel", "2"}}, "x.log", h); err != nil {
		t.Errorf("stated as in the header: %v", err)
	}
	if err := checkStated([]StatedFlag{{"maxrel", "3"}}, "x.log", h); err == nil || !strings.Contains(err.Error(), "header err-maxrel=2 but --maxrel 3") {
		t.Errorf("contradicted: %v", err)
	}
	if err := checkStated([]StatedFlag{{"empty-ndcg", "1"}}, "x.log", h); err == nil || !strings.Contains(err.Error(), "has no empty-query-ndcg=") {
		t.Errorf("not stated: %v", err)
	}
}
