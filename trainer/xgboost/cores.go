package xgboost

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"time"
)

// IdleCores returns how many of the machine's cores (runtime.NumCPU) are
// not running other work now, at least 1. It is what a thread count of 0
// (the default) means for training: OpenMP threads wait for each other at
// every barrier, so a thread that has to share a core with another busy
// process holds all of them back (docs/performance.md, "Threads and busy
// machines").
//
// On Linux it reads procs_running of /proc/stat (runnable threads,
// machine-wide) less the caller's own runnable threads ten times over 18 ms
// and keeps the fewest, so that only other work that runs throughout
// counts, not a short-lived process; elsewhere it returns runtime.NumCPU().
func IdleCores() int {
	n := runtime.NumCPU()
	busy := -1
	for i := range 10 {
		if i > 0 {
			time.Sleep(2 * time.Millisecond)
		}
		r, ok := procsRunning()
		if !ok {
			return n
		}
		// Not counting the caller's own runnable threads (the one reading,
		// a garbage collection in progress).
		r -= ownRunning()
		if busy < 0 || r < busy {
			busy = max(r, 0)
		}
	}
	return min(n, max(1, n-busy))
}

// procsRunning reads the machine's runnable threads from /proc/stat.
func procsRunning() (int, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	return parseProcsRunning(b)
}

// ownRunning counts the calling process's runnable threads (state R in
// /proc/self/task/*/stat); at least 1, the caller.
func ownRunning() int {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 1
	}
	n := 0
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/stat")
		if err != nil {
			continue
		}
		// The state follows the command name, which is in parentheses
		// and may contain anything.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'R' {
			n++
		}
	}
	return max(n, 1)
}

// parseProcsRunning finds the procs_running line of /proc/stat's text.
func parseProcsRunning(b []byte) (int, bool) {
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("procs_running ")); ok {
			r, err := strconv.Atoi(string(bytes.TrimSpace(v)))
			return r, err == nil && r >= 1
		}
	}
	return 0, false
}
