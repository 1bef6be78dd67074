package xgboost

import (
	"runtime"
	"testing"
)

func TestParseProcsRunning(t *testing.T) {
	for _, c := range []struct {
		in string
		n  int
		ok bool
	}{
		{"cpu  1 2 3\nctxt 9\nprocs_running 3\nprocs_blocked 0\n", 3, true},
		{"procs_running 1", 1, true},
		{"procs_running 0\n", 0, false},
		{"procs_running x\n", 0, false},
		{"procs_blocked 2\n", 0, false},
		{"", 0, false},
	} {
		n, ok := parseProcsRunning([]byte(c.in))
		if n != c.n || ok != c.ok {
			t.Errorf("%q: %d, %v; want %d, %v", c.in, n, ok, c.n, c.ok)
		}
	}
}

func TestIdleCoresBounds(t *testing.T) {
	if n := IdleCores(); n < 1 || n > runtime.NumCPU() {
		t.Fatalf("IdleCores() = %d, outside 1..%d", n, runtime.NumCPU())
	}
}
