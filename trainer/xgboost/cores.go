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
// process holds all of them back (README, "Threads and busy machines").
//
// On Linux it reads procs_running of /proc/stat (runnable threads,
// machine-wide, the caller's own included) ten times over 18 ms and keeps
// the fewest, so that only work that runs throughout counts, not a
// short-lived process; elsewhere it returns runtime.NumCPU().
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
		if busy < 0 || r-1 < busy {
			busy = r - 1 // not counting the thread reading
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
