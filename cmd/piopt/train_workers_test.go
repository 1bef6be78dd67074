//go:build cgo

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/piopt/piopt/internal/pipeline"
	"github.com/piopt/piopt/trainer"
)

// needTracker skips a test without an interpreter that runs XGBoost's
// tracker (Debian's python3-xgboost; make deps installs it).
func needTracker(t *testing.T) {
	t.Helper()
	if _, err := pipeline.FindPython(os.Getenv("PIOPT_PYTHON")); err != nil {
		t.Skipf("skipped: %v", err)
	}
}

// rankNDCG ranks test with model and returns its mean NDCG@3.
func rankNDCG(t *testing.T, dir, test, model string) float64 {
	t.Helper()
	js := filepath.Join(dir, filepath.Base(model)+".json")
	if err := runPiopt(t, "rank", "--no-cache", "--max-label", "2", "--data", test, "--model", model, "--slots", "3",
		"--threads", "1", "--json", js); err != nil {
		t.Fatal(err)
	}
	var v struct {
		NDCG map[string]float64 `json:"ndcg@3"`
	}
	if err := json.Unmarshal(mustRead(t, js), &v); err != nil {
		t.Fatal(err)
	}
	f, ok := v.NDCG["pi-opt"]
	if !ok {
		t.Fatalf("no pi-opt ndcg@3 in %s", mustRead(t, js))
	}
	return f
}

// TestTrainWorkers trains the same PI-OPT model in one process and with
// --workers 2, validated and early-stopped: rank 0 writes a model that
// predict, rank and python-xgboost load, whose test NDCG@3 is within 0.03
// of one process's. The models differ because the two workers' quantile
// sketches are merged (other bin edges than one sketch of every row) and
// their histograms summed in another order; with 300 queries that moves
// NDCG@3 by about a hundredth.
func TestTrainWorkers(t *testing.T) {
	needTracker(t)
	t.Setenv(testAsPiopt, "1")
	dir := t.TempDir()
	tr, trT := trainFixtureN(t, dir, "train", 1, 300)
	va, vaT := trainFixtureN(t, dir, "vali", 2, 80)
	te, _ := trainFixtureN(t, dir, "test", 3, 150)
	out := func(name string) string { return filepath.Join(dir, name) }
	common := []string{"--data", tr, "--targets", trT, "--valid-data", va, "--valid-targets", vaT, "--early-stopping", "5"}
	if err := runTrainCLI(t, append(common, "--out", out("one.model"))...); err != nil {
		t.Fatal(err)
	}
	// No retry: the "Failed to poll." that once failed about one loaded
	// run in a dozen was Go's SIGURG interrupting Rabit's poll, now blocked
	// on the communicator's thread (TestCollectiveSignalled).
	trainWorkersCLI(t, append(common, "--workers", "2", "--out", out("two.model"), "--json", out("two.json"))...)
	if _, err := os.Stat(out("two.json")); err != nil {
		t.Fatalf("rank 0 wrote no --json: %v", err)
	}
	one, two := rankNDCG(t, dir, te, out("one.model")), rankNDCG(t, dir, te, out("two.model"))
	t.Logf("test NDCG@3: one process %.4f, two workers %.4f", one, two)
	if math.Abs(one-two) > 0.03 {
		t.Errorf("test NDCG@3 %.4f with two workers, %.4f in one process", two, one)
	}
	if err := runPiopt(t, "predict", "--no-cache", "--max-label", "2", "--data", te, "--model", out("two.model"), "--out", out("two.scores")); err != nil {
		t.Fatal(err)
	}
	checkPythonPredict(t, out("two.model"), te, out("two.scores"))
}

// trainWorkersCLI runs piopt train with --workers among args.
func trainWorkersCLI(t *testing.T, args ...string) {
	t.Helper()
	if err := runTrainCLI(t, args...); err != nil {
		t.Fatal(err)
	}
}

// TestTrainWorkersSelectByValue trains PI-OPT choosing its round by the
// slates' estimated value on the validation log, as experiment does. One
// worker writes one process's model byte for byte: its quantile sketch is
// the one sketch of every row and no histogram is summed with another's.
// With two workers, rank 1 reads no validation targets and follows the
// value rank 0 broadcasts each round; the model keeps the round of the best value, near one process's
// (3.52 on these targets, whose rmse is near 1).
func TestTrainWorkersSelectByValue(t *testing.T) {
	needTracker(t)
	t.Setenv(testAsPiopt, "1")
	dir := t.TempDir()
	tr, trT := trainFixtureN(t, dir, "train", 1, 200)
	va, vaT := trainFixtureN(t, dir, "vali", 2, 60)
	out := func(name string) string { return filepath.Join(dir, name) }
	common := []string{"--data", tr, "--targets", trT, "--valid-data", va, "--valid-targets", vaT,
		"--early-stopping", "5", "--select-by", "value"}
	if err := runTrainCLI(t, append(common, "--out", out("one.model"))...); err != nil {
		t.Fatal(err)
	}
	trainWorkersCLI(t, append(common, "--workers", "1", "--out", out("w1.model"))...)
	if !bytes.Equal(mustRead(t, out("one.model")), mustRead(t, out("w1.model"))) {
		t.Error("--workers 1 wrote other model bytes than one process")
	}
	trainWorkersCLI(t, append(common, "--workers", "2", "--out", out("w2.model"))...)
	one, two := loadModel(t, out("one.model")), loadModel(t, out("w2.model"))
	if !bytes.Contains(mustRead(t, out("w2.model")), []byte("select_by=value")) || two.Rounds != two.BestIteration+1 ||
		math.Abs(two.BestScore-one.BestScore) > 0.05 {
		t.Fatalf("two workers' model: %d rounds, best %d at %g; one process's best %g", two.Rounds, two.BestIteration, two.BestScore, one.BestScore)
	}
}

func loadModel(t *testing.T, path string) *trainer.Model {
	t.Helper()
	m, err := trainer.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// pythonCheck rebuilds, in python-xgboost, the PI-OPT rows of a piopt
// predict scores file ([f(x,a); onehot(j)], the LETOR features with 0 for
// an absent one, then slot j's indicator), scores them with
// xgboost.Booster on the model file as piopt wrote it, and prints the
// rows and the largest difference to piopt's scores relative to max(1, |s|).
const pythonCheck = `import sys, numpy as np, xgboost as xgb
model, letor, scores = sys.argv[1:4]
b = xgb.Booster(model_file=model)
F, L = int(b.attr("piopt_features")), int(b.attr("piopt_slots"))
docs = {}
for line in open(letor):
    tok = line.split("#")[0].split()
    row = np.zeros(F, np.float32)
    for t in tok[2:]:
        k, v = t.split(":")
        row[int(k) - 1] = float(v)
    docs.setdefault(tok[1][4:], []).append(row)
rows, want = [], []
for line in open(scores):
    q, d, j, s = line.split()
    rows.append(np.concatenate([docs[q][int(d)], np.eye(L, dtype=np.float32)[int(j) - 1]]))
    want.append(float(s))
got = b.predict(xgb.DMatrix(np.array(rows), missing=np.nan))
print(len(rows), np.max(np.abs(got - np.array(want)) / np.maximum(1, np.abs(want))))
`

// checkPythonPredict loads model in python-xgboost (Debian's
// python3-xgboost under /usr/bin/python3, which make deps installs) and
// checks that it scores every row of scores (piopt predict's output on
// letor) as piopt does, to float32 precision: XGBoost sums the trees in
// float32, piopt in float64, so they differ by a few float32 ulps.
func checkPythonPredict(t *testing.T, model, letor, scores string) {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "import numpy, xgboost").Run(); err != nil {
		t.Skipf("skipped: /usr/bin/python3 cannot import xgboost and numpy (install python3-xgboost): %v", err)
	}
	got, err := exec.Command("/usr/bin/python3", "-c", pythonCheck, model, letor, scores).CombinedOutput()
	if err != nil {
		t.Fatalf("python-xgboost on %s: %v\n%s", model, err, got)
	}
	f := strings.Fields(string(got))
	if len(f) != 2 {
		t.Fatalf("python-xgboost printed %q", got)
	}
	rows, err1 := strconv.Atoi(f[0])
	diff, err2 := strconv.ParseFloat(f[1], 64)
	if want := strings.Count(string(mustRead(t, scores)), "\n"); err1 != nil || err2 != nil || rows != want {
		t.Fatalf("python-xgboost printed %q: want %d rows and a difference", got, want)
	}
	t.Logf("python-xgboost scores %d rows as piopt predict does, within %.2g", rows, diff)
	if diff > 1e-6 {
		t.Errorf("python-xgboost's scores differ from piopt predict's by %.3g (relative)", diff)
	}
}

// TestTrainWorkersKill kills one worker mid-training with SIGKILL: the
// job ends within 60 s, non-zero, naming the rank, and leaves no model.
func TestTrainWorkersKill(t *testing.T) {
	needTracker(t)
	dir := t.TempDir()
	tr, trT := trainFixtureN(t, dir, "train", 1, 300)
	model := filepath.Join(dir, "pi.model")
	cmd := exec.Command(os.Args[0], "train", "--no-cache", "--max-label", "2", "--data", tr, "--targets", trT,
		"--trees", "100000", "--leaves", "8", "--threads", "1", "--workers", "2", "--out", model)
	cmd.Env = append(os.Environ(), testAsPiopt+"=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var log bytes.Buffer
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.Contains(sc.Text(), "[rank 1]") {
		log.WriteString(sc.Text() + "\n")
	}
	time.Sleep(1500 * time.Millisecond) // into the boosting rounds
	victim := childWithArgs(t, cmd.Process.Pid, "--rank", "1")
	if err := victim.Kill(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
		}
		done <- cmd.Wait()
	}()
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("the job still runs 60 s after a worker was killed:\n%s", log.String())
	}
	t.Logf("the job ended %s after the kill", time.Since(start).Round(time.Millisecond))
	if err == nil || !strings.Contains(log.String(), "rank 1 of 2 failed") {
		t.Fatalf("exit %v, stderr:\n%s", err, log.String())
	}
	if _, err := os.Stat(model); !os.IsNotExist(err) {
		t.Fatalf("a model exists after the failed job: %v", err)
	}
}

// childWithArgs finds the child process of parent whose command line has
// the argument arg followed by value.
func childWithArgs(t *testing.T, parent int, arg, value string) *os.Process {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range procs {
		stat, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		i := bytes.LastIndexByte(stat, ')')
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(parent) {
			continue
		}
		dirName := filepath.Dir(p)
		cmdline, _ := os.ReadFile(filepath.Join(dirName, "cmdline"))
		if strings.Contains(string(cmdline), "\x00"+arg+"\x00"+value+"\x00") || strings.HasSuffix(string(cmdline), "\x00"+arg+"\x00"+value) {
			pid, _ := strconv.Atoi(filepath.Base(dirName))
			proc, err := os.FindProcess(pid)
			if err != nil {
				t.Fatal(err)
			}
			return proc
		}
	}
	t.Fatalf("no child of %d with %s %s", parent, arg, value)
	return nil
}
