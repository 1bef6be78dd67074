//go:build cgo

package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/trainer"
)

// trainFixture writes a LETOR file of 40 queries (3..30 docs, 5 features,
// grades 0..2 from feature 1) and a PI-OPT targets file for it at ℓ = 3.
func trainFixture(t *testing.T, dir, name string, seed uint64) (letor, targets string) {
	t.Helper()
	return trainFixtureN(t, dir, name, seed, 40)
}

// trainFixtureN is trainFixture with the given number of queries.
func trainFixtureN(t *testing.T, dir, name string, seed uint64, queries int) (letor, targets string) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 11))
	var b strings.Builder
	for q := range queries {
		for range 3 + r.IntN(28) {
			x := r.Float64()
			fmt.Fprintf(&b, "%d qid:%d", min(2, int(3*x*x+0.3*r.Float64())), 100+q)
			fmt.Fprintf(&b, " 1:%.4f", x)
			for f := 2; f <= 5; f++ {
				fmt.Fprintf(&b, " %d:%.4f", f, r.Float64())
			}
			b.WriteString("\n")
		}
	}
	letor = writeText(t, dir, name+".txt", b.String())
	ds, err := data.Load(letor, data.ReadOptions{MaxLabel: 2, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	tg := &data.Targets{Slots: 3, Header: map[string]string{"slots": "3", "metric": "ndcg@3", "logging": "uniform", "data": filepath.Base(letor)}}
	for q := range ds.NumQueries() {
		lo, hi := ds.Query(q)
		lx := min(3, hi-lo)
		for a := range hi - lo {
			for j := 1; j <= lx; j++ {
				tg.Query = append(tg.Query, int32(q))
				tg.Doc = append(tg.Doc, int32(a))
				tg.Slot = append(tg.Slot, uint8(j))
				tg.Target = append(tg.Target, float64(ds.Labels[lo+a])/float64(j)+r.NormFloat64())
				tg.Weight = append(tg.Weight, 1/float64(lx*(hi-lo)))
			}
		}
	}
	targets = filepath.Join(dir, name+".targets")
	if err := data.SaveTargets(targets, tg, ds); err != nil {
		t.Fatal(err)
	}
	return letor, targets
}

func runTrainCLI(t *testing.T, args ...string) error {
	t.Helper()
	// One thread unless a test says otherwise: XGBoost's OpenMP threads
	// spin at barriers and crawl when go test keeps the other cores busy.
	// A flag is given once (a repeated flag is refused): the defaults below
	// yield to the test's own.
	cmd := []string{"train"}
	for _, d := range [][]string{{"--no-cache"}, {"--max-label", "2"}, {"--trees", "20"}, {"--leaves", "8"}, {"--threads", "1"}} {
		if !slices.Contains(args, d[0]) {
			cmd = append(cmd, d...)
		}
	}
	return runPiopt(t, append(cmd, args...)...)
}

func TestTrainCommand(t *testing.T) {
	dir := t.TempDir()
	tr, trT := trainFixture(t, dir, "train", 1)
	va, vaT := trainFixture(t, dir, "vali", 2)
	out := func(name string) string { return filepath.Join(dir, name) }

	if err := runTrainCLI(t, "--data", tr, "--targets", trT, "--valid-data", va, "--valid-targets", vaT, "--out", out("pi.model")); err != nil {
		t.Fatal(err)
	}
	m, err := trainer.Load(out("pi.model"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Meta.Kind != features.KindPIOPT || m.Meta.Slots != 3 || m.Meta.Features != 5 || m.Meta.Metric != "ndcg@3" ||
		!strings.Contains(m.Meta.Targets, "logging=uniform") || m.Rounds != 20 || m.Metric != "rmse" || !(m.BestScore > 0) {
		t.Fatalf("PI-OPT model %+v", m)
	}
	m.Close()

	// Same seed, other thread count: same bytes.
	if err := runTrainCLI(t, "--data", tr, "--targets", trT, "--valid-data", va, "--valid-targets", vaT, "--threads", "2", "--out", out("pi1.model")); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mustRead(t, out("pi.model")), mustRead(t, out("pi1.model"))) {
		t.Fatal("--threads 1 and 2 gave different model bytes")
	}

	if err := runTrainCLI(t, "--sup", "--data", tr, "--valid-data", va, "--early-stopping", "3", "--learning-rate", "0.5", "--out", out("sup.json")); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(mustRead(t, out("sup.json")), []byte("{")) {
		t.Fatal("sup.json is not JSON")
	}
	m, err = trainer.Load(out("sup.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Meta.Kind != features.KindSUP || m.Meta.Metric != "gain" || m.Meta.Slots != 0 || m.Rounds != m.BestIteration+1 {
		t.Fatalf("SUP model %+v", m)
	}
	m.Close()

	if err := runTrainCLI(t, "--sup", "--sup-target", "relevance", "--data", tr, "--out", out("suprel.model")); err != nil {
		t.Fatal(err)
	}
	if err := runTrainCLI(t, "--objective", "rank:ndcg", "--data", tr, "--valid-data", va, "--eval-metric", "ndcg@3", "--out", out("lm.model")); err != nil {
		t.Fatal(err)
	}
	m, err = trainer.Load(out("lm.model"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Meta.Kind != features.KindLambdaMART || m.Metric != "ndcg@3" || !(m.BestScore > 0.5) {
		t.Fatalf("LambdaMART model %+v", m)
	}
	m.Close()
}

func TestTrainCommandErrors(t *testing.T) {
	dir := t.TempDir()
	tr, trT := trainFixture(t, dir, "train", 1)
	va, vaT := trainFixture(t, dir, "vali", 2)
	o := filepath.Join(dir, "m.model")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", tr, "--out", o}, "PI-OPT needs --targets"},
		{[]string{"--sup", "--data", tr, "--targets", trT, "--out", o}, "--targets and --valid-targets are for PI-OPT"},
		{[]string{"--data", tr, "--targets", trT, "--valid-data", va, "--out", o}, "both --valid-data and --valid-targets"},
		{[]string{"--sup", "--data", tr, "--early-stopping", "5", "--out", o}, "--early-stopping needs --valid-data"},
		{[]string{"--sup", "--objective", "rank:ndcg", "--data", tr, "--out", o}, "drop --objective"},
		{[]string{"--sup", "--sup-target", "grade", "--data", tr, "--out", o}, "--sup-target"},
		{[]string{"--sup-target", "relevance", "--data", tr, "--targets", trT, "--out", o}, "--sup-target needs --sup"},
		{[]string{"--sup", "--data", tr, "--leaves", "1", "--out", o}, "--leaves 1"},
		{[]string{"--sup", "--data", tr, "--preset", "fast", "--out", o}, "--preset"},
		{[]string{"--objective", "reg:gamma", "--data", tr, "--out", o}, "--objective"},
		{[]string{"--data", tr, "--targets", vaT, "--out", o}, "vali.targets"},
		{[]string{"--data", tr, "--targets", trT, "--valid-data", va, "--valid-targets", trT, "--out", o}, "train.targets"},
	} {
		err := runTrainCLI(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
	if _, err := os.Stat(o); !os.IsNotExist(err) {
		t.Fatal("a failed run left a model file")
	}
}
