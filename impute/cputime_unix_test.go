//go:build unix

package impute

import (
	"syscall"
	"testing"
)

// processCPU returns the CPU time this process has used (user and
// system), in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// reportCPU reports the CPU time per operation since start (from
// processCPU): on a shared machine the wall time per operation also counts
// the time other processes held the core.
func reportCPU(b *testing.B, start int64) {
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}
