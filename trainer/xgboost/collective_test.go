//go:build cgo

package xgboost

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// startTracker starts XGBoost's tracker for n workers on loopback and
// returns its host:port; the test skips without Debian's python3-xgboost.
func startTracker(t *testing.T, n int) string {
	t.Helper()
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import xgboost.tracker").Run() != nil {
		t.Skip("no python3 with xgboost (Debian's python3-xgboost) for the tracker")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, py, "-m", "xgboost.tracker", "--num-workers", fmt.Sprint(n), "--host-ip", "127.0.0.1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	var host, port string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "DMLC_TRACKER_URI":
			host = v
		case "DMLC_TRACKER_PORT":
			port = v
		}
		if sc.Text() == "DMLC_TRACKER_ENV_END" {
			break
		}
	}
	if host == "" || port == "" {
		t.Fatal("the tracker printed no address")
	}
	go func() {
		for sc.Scan() {
		}
	}()
	return host + ":" + port
}

// TestCollectiveInOneProcess joins two workers from two threads of this
// process (XGBoost 1.7's communicator is per thread), sums and broadcasts
// across them, and trains one tree on two halves of a matrix: both
// workers get the same tree.
func TestCollectiveInOneProcess(t *testing.T) {
	addr := startTracker(t, 2)
	var wg sync.WaitGroup
	models := make([][]byte, 2)
	errs := make([]error, 2)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			models[w], errs[w] = collectiveWorker(addr, w)
		}()
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Fatalf("worker %d: %v", w, err)
		}
	}
	if string(models[0]) != string(models[1]) {
		t.Fatal("the two workers trained different models")
	}
}

// collectiveWorker is one worker of TestCollectiveInOneProcess: it checks
// Allreduce and Broadcast and returns its model.
func collectiveWorker(addr string, task int) ([]byte, error) {
	c, err := JoinCollective(CollectiveConfig{Tracker: addr, TaskID: fmt.Sprint(task), Timeout: 30 * time.Second})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if c.WorldSize() != 2 {
		return nil, fmt.Errorf("world size %d", c.WorldSize())
	}
	v := []float64{float64(c.Rank() + 1), 10}
	if err := c.Allreduce(v, OpSum); err != nil {
		return nil, err
	}
	if v[0] != 3 || v[1] != 20 {
		return nil, fmt.Errorf("allreduce sum: %v", v)
	}
	buf := []byte{byte(c.Rank() + 7)}
	if err := c.Broadcast(buf, 1); err != nil {
		return nil, err
	}
	if buf[0] != 8 {
		return nil, fmt.Errorf("broadcast from rank 1: got %d", buf[0])
	}
	// Worker r holds rows r, r+2, ...: y = x0 > 0.5.
	const rows, cols = 200, 3
	var x, y []float32
	for i := c.Rank(); i < rows; i += 2 {
		a := float32(i) / rows
		x = append(x, a, float32(math.Sin(float64(i))), 1)
		y = append(y, map[bool]float32{true: 1, false: 0}[a > 0.5])
	}
	dm, err := NewDMatrix(Dense{Data: x, Rows: len(y), Cols: cols, Labels: y},
		MatrixOptions{Build: BuildQuantile, Threads: 1, MaxBin: 16, Comm: c})
	if err != nil {
		return nil, err
	}
	defer dm.Close()
	b, err := c.NewBooster([]Param{{"tree_method", "hist"}, {"max_bin", "16"}, {"max_depth", "2"}, {"nthread", "1"}}, dm)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	for it := range 3 {
		if err := b.Update(it, dm); err != nil {
			return nil, err
		}
		if _, err := b.Eval(it, EvalSet{Name: "train", Matrix: dm}); err != nil {
			return nil, err
		}
	}
	return b.Save(FormatJSON)
}

// TestJoinCollectiveFails: a worker alone in a job of two, or facing no
// tracker, fails within its timeout instead of waiting for ever.
func TestJoinCollectiveFails(t *testing.T) {
	addr := startTracker(t, 2)
	start := time.Now()
	_, err := JoinCollective(CollectiveConfig{Tracker: addr, TaskID: "0", Timeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), "not every worker joined within 1s") {
		t.Fatalf("alone in a job of two: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("gave up after %s", d)
	}
	if _, err := JoinCollective(CollectiveConfig{Tracker: "127.0.0.1", Timeout: time.Second}); err == nil || !strings.Contains(err.Error(), "host:port") {
		t.Fatalf("no port: %v", err)
	}
}

// TestCollectiveSignalled sends SIGURG, Go's preemption signal, to a
// worker's thread while it waits in Broadcast for its root, as Go's
// runtime does when it preempts: Rabit's poll would return EINTR and fail
// ("Failed to poll."); the communicator's thread blocks the signal, so the
// broadcast arrives. The root broadcasts only after the signals.
func TestCollectiveSignalled(t *testing.T) {
	addr := startTracker(t, 2)
	comms := make([]*Communicator, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			comms[w], errs[w] = JoinCollective(CollectiveConfig{Tracker: addr, TaskID: fmt.Sprint(w), Timeout: 30 * time.Second})
		}()
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Fatalf("worker %d: %v", w, err)
		}
		defer comms[w].Close()
	}
	root, waiter := comms[0], comms[1]
	if root.Rank() != 0 {
		root, waiter = waiter, root
	}
	var tid int
	waiter.run(func() error { tid = syscall.Gettid(); return nil })
	bufs := [2][]byte{{42}, {0}}
	for i, c := range []*Communicator{root, waiter} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c == root {
				time.Sleep(300 * time.Millisecond) // while the waiter is signalled
			}
			errs[i] = c.Broadcast(bufs[i], 0)
		}()
	}
	time.Sleep(50 * time.Millisecond) // the waiter is in poll
	for range 10 {
		if err := syscall.Tgkill(syscall.Getpid(), tid, syscall.SIGURG); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil || bufs[1][0] != 42 {
		t.Fatalf("broadcast under SIGURG: root %v, waiter %v, got %d", errs[0], errs[1], bufs[1][0])
	}
}
