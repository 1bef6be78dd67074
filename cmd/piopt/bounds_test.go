package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/piopt/piopt/internal/atomicfile"
)

// Issue 30, class 3: a large count given by a flag is refused, naming its
// limit, before anything is allocated for it (the input files do not even
// exist: the refusal comes first).
func TestCrashesInsteadOfRefusals_FlagCounts(t *testing.T) {
	dir := t.TempDir()
	none := filepath.Join(dir, "none")
	ev := []string{"evaluate", "--data", none, "--logs", none, "--target", "feature:1"}
	sw := []string{"evaluate-sweep", "--data", none, "--target", "feature:1"}
	gr := []string{"evaluate-grid", "--data", none, "--out", filepath.Join(dir, "grid")}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(ev, "--bootstrap", "1000000000000"), "--bootstrap 1000000000000: at most "},
		{append(ev, "--cv-folds", "1000000000000"), "--cv-folds 1000000000000: at most "},
		{append(ev, "--baseline-folds", "1000000000"), "--baseline-folds 1000000000: at most 100 "},
		{append(ev, "--dm-depth", "1000000000"), "--dm-depth 1000000000: at most 30 "},
		{append(ev, "--threads", "100000"), "--threads 100000: at most "},
		{append(sw, "--runs", "1000000000000"), "--runs 1000000000000: at most "},
		{append(sw, "--points-per-decade", "1000000000"), "--points-per-decade 1000000000: at most 1000 "},
		{append(gr, "--runs", "1000000000000"), "--runs 1000000000000: at most "},
		{append(gr, "--baseline-folds", "1000000000"), "--baseline-folds 1000000000: at most 100 "},
		{[]string{"select", "--data", none, "--logs", none, "--models", none, "--bootstrap", "1000000000000"}, "--bootstrap 1000000000000: at most "},
		{[]string{"synth", "--threads", "100000", "--out", filepath.Join(dir, "s")}, "--threads 100000: at most "},
		{[]string{"train", "--data", none, "--targets", none, "--threads", "100000", "--out", none + ".model"}, "--threads 100000: at most "},
	} {
		_, err := runCapture(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", strings.Join(tc.args, " "), err, tc.want)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: the refusal is not one line: %q", strings.Join(tc.args, " "), err)
		}
	}
}

// Issue 30, class 4: evaluate with a large bootstrap stops within a second
// of a cancellation (it checked the context every 65,536 records, which
// took tens of seconds).
func TestSlowToStop_Bootstrap(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates and evaluates a log")
	}
	dir, common := letorCommand(t, opeLETOR)
	log := filepath.Join(dir, "x.log")
	if err := runPiopt(t, append([]string{"simulate", "--slots", "3", "--metric", "ndcg", "--logging", "uniform",
		"--candidates", "8", "--samples", "30000", "--seed", "5", "--out", log}, common...)...); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res := make(chan error, 1)
	go func() {
		args := append([]string{"piopt", "evaluate", "--logs", log, "--target", "feature:3", "--estimators", "pi,ips",
			"--bootstrap", "100000", "--json", filepath.Join(dir, "est.json")}, common...)
		res <- run(ctx, newApp(), args)
	}()
	time.Sleep(500 * time.Millisecond)
	cancel()
	start := time.Now()
	select {
	case err := <-res:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("after the cancel evaluate returned %v, want context.Canceled (a log too small to outlast 0.5 s?)", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Fatalf("evaluate took %v to honour the cancel, want ≤ 1 s", d)
		}
	case <-time.After(time.Second):
		t.Fatal("evaluate did not stop within 1 s of the cancel")
	}
}

// Issue 30, class 5: --max-label 0 was read as 4 without a word; the help
// promises the highest grade accepted, so 0 is refused.
func TestLesser_MaxLabelZero(t *testing.T) {
	dir := t.TempDir()
	file := writeLETOR(t, dir, letorSpec{file: "d.txt", seed: 7, queries: 3, minDocs: 2, maxDocs: 4})
	for _, g := range []string{"0", "-1", "256"} {
		_, err := runCapture(t, "stats", "--no-cache", "--max-label", g, file)
		want := "--max-label " + g + ": must lie in 1..255"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("stats --max-label %s: got %v, want an error containing %q", g, err, want)
		}
	}
	if _, err := runCapture(t, "stats", "--no-cache", "--max-label", "2", file); err != nil {
		t.Errorf("stats --max-label 2: %v", err)
	}
}

// Issue 30, class 5: --out on a FIFO that no process reads blocked for
// ever; it is an error once the FIFO has had atomicfile.FIFOWait to find a
// reader. (A FIFO with a reader: TestOutputSpecialFiles.)
func TestLesser_FIFOWithoutReader(t *testing.T) {
	_, common := letorCommand(t, letorSpec{file: "d.txt", seed: 7, queries: 5, minDocs: 2, maxDocs: 6})
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo %s: %v", fifo, err)
	}
	res := make(chan error, 1)
	go func() { res <- simulateTo(t, common, fifo) }()
	select {
	case err := <-res:
		if !errors.Is(err, atomicfile.ErrNoReader) {
			t.Fatalf("simulate --out FIFO without a reader: got %v, want %v", err, atomicfile.ErrNoReader)
		}
	case <-time.After(atomicfile.FIFOWait + 10*time.Second):
		// Release the writer blocked in its open.
		if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			defer r.Close()
		}
		t.Fatal("simulate --out FIFO without a reader blocked")
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s is now %v (%v), want the FIFO", fifo, st.Mode(), err)
	}
}
