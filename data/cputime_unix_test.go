//go:build unix

package data

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user+system CPU time. Benchmarks report
// bytes per CPU-second beside wall-clock MB/s because a shared machine
// slows the wall clock but not the work done.
func cpuTime() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
