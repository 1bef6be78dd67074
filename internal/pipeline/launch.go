package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LaunchConfig runs a distributed training on this machine (piopt train
// --workers N): XGBoost's tracker and N worker processes, all on loopback.
// Each worker runs the command a scheduler would run on each machine of a
// real job: Exe Args --tracker 127.0.0.1:PORT --world N --rank I.
type LaunchConfig struct {
	Workers int
	Python  string   // interpreter that imports xgboost (FindPython)
	Exe     string   // the piopt binary each worker runs
	Args    []string // the worker's arguments before --tracker, --world and --rank
	// Stderr receives each worker's output, every line prefixed
	// "[rank I] ".
	Stderr io.Writer
}

// trackerTimeout bounds the wait for the tracker's address, and the wait
// for the tracker to end once every worker has.
const trackerTimeout = 30 * time.Second

// FindPython returns python if not empty, else the first of
// /usr/bin/python3 and python3 (on PATH) that can import xgboost's
// tracker (Debian's python3-xgboost).
func FindPython(python string) (string, error) {
	if python != "" {
		return python, nil
	}
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import xgboost.tracker").Run() == nil {
			return py, nil
		}
	}
	return "", errors.New("no python3 that imports xgboost for XGBoost's tracker: install python3-xgboost, or name an interpreter with PIOPT_PYTHON")
}

// Launch starts the tracker and the workers, forwards their output, and
// waits for all. When a worker fails, the others and the tracker are
// killed at once and the error names the failed rank; cancelling ctx
// kills them all too.
func Launch(ctx context.Context, cfg LaunchConfig) error {
	if cfg.Workers < 1 {
		return fmt.Errorf("--workers %d: want at least 1", cfg.Workers)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tracker, addr, trackerLog, err := startTracker(ctx, cfg.Python, cfg.Workers)
	if err != nil {
		return err
	}
	trackerDone := make(chan error, 1)
	go func() { trackerDone <- tracker.Wait() }()

	type exit struct {
		rank int
		err  error
	}
	done := make(chan exit, cfg.Workers)
	var mu sync.Mutex
	for i := range cfg.Workers {
		args := append(append([]string(nil), cfg.Args...), "--tracker", addr, "--world", strconv.Itoa(cfg.Workers), "--rank", strconv.Itoa(i))
		cmd := exec.CommandContext(ctx, cfg.Exe, args...)
		w := &prefixWriter{mu: &mu, w: cfg.Stderr, prefix: fmt.Sprintf("[rank %d] ", i)}
		cmd.Stdout, cmd.Stderr = w, w
		if err := cmd.Start(); err != nil {
			cancel()
			return fmt.Errorf("starting rank %d: %w", i, err)
		}
		go func() {
			err := cmd.Wait()
			w.flush()
			done <- exit{i, err}
		}()
	}
	left := cfg.Workers
	// fail kills what still runs and waits (briefly) for the workers to
	// go, so that none writes after Launch returns.
	fail := func(err error) error {
		cancel()
		for ; left > 0; left-- {
			select {
			case <-done:
			case <-time.After(trackerTimeout):
				return err
			}
		}
		return err
	}
	for left > 0 {
		select {
		case e := <-done:
			left--
			if e.err != nil {
				if ctx.Err() != nil {
					return fail(ctx.Err())
				}
				return fail(fmt.Errorf("rank %d of %d failed: %w", e.rank, cfg.Workers, e.err))
			}
		case err := <-trackerDone:
			return fail(fmt.Errorf("XGBoost's tracker ended before the workers (%v): %s", err, trackerLog.tail()))
		case <-ctx.Done():
			return fail(ctx.Err())
		}
	}
	select {
	case <-trackerDone:
	case <-time.After(trackerTimeout):
	}
	return nil
}

// startTracker starts `python -m xgboost.tracker --num-workers n --host-ip
// 127.0.0.1` (--host-ip keeps it on loopback: without it the tracker finds
// its address by opening a socket towards a private one) and reads the
// address it prints.
func startTracker(ctx context.Context, python string, n int) (*exec.Cmd, string, *tailBuffer, error) {
	cmd := exec.CommandContext(ctx, python, "-m", "xgboost.tracker", "--num-workers", strconv.Itoa(n), "--host-ip", "127.0.0.1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", nil, err
	}
	log := &tailBuffer{}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		return nil, "", nil, fmt.Errorf("starting XGBoost's tracker: %w", err)
	}
	env := make(chan map[string]string, 1)
	go func() {
		vars := map[string]string{}
		sc := bufio.NewScanner(out)
		for sc.Scan() && sc.Text() != "DMLC_TRACKER_ENV_END" {
			if k, v, ok := strings.Cut(sc.Text(), "="); ok {
				vars[k] = v
			}
		}
		env <- vars
		io.Copy(io.Discard, out)
	}()
	select {
	case vars := <-env:
		if vars["DMLC_TRACKER_URI"] != "" && vars["DMLC_TRACKER_PORT"] != "" {
			return cmd, vars["DMLC_TRACKER_URI"] + ":" + vars["DMLC_TRACKER_PORT"], log, nil
		}
	case <-time.After(trackerTimeout):
	}
	cmd.Process.Kill()
	cmd.Wait()
	return nil, "", nil, fmt.Errorf("XGBoost's tracker (%s -m xgboost.tracker) gave no address: %s", python, log.tail())
}

// prefixWriter writes whole lines to w, each after prefix; writers sharing
// mu never interleave within a line.
type prefixWriter struct {
	mu     *sync.Mutex
	w      io.Writer
	prefix string
	line   []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.line = append(p.line, b...)
	for {
		i := bytes.IndexByte(p.line, '\n')
		if i < 0 {
			return len(b), nil
		}
		p.emit(p.line[:i+1])
		p.line = p.line[i+1:]
	}
}

// flush writes an unfinished last line.
func (p *prefixWriter) flush() {
	if len(p.line) > 0 {
		p.emit(append(p.line, '\n'))
		p.line = nil
	}
}

func (p *prefixWriter) emit(line []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil {
		io.WriteString(p.w, p.prefix)
		p.w.Write(line)
	}
}

// tailBuffer keeps the last few KB written to it (the tracker's log, for
// an error).
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

const tailSize = 2048

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, b...)
	if len(t.b) > tailSize {
		t.b = t.b[len(t.b)-tailSize:]
	}
	return len(b), nil
}

func (t *tailBuffer) tail() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
