//go:build unix

package xgboost

import (
	"os"
	"strings"
	"syscall"
)

// LimitOpenMPSpin re-executes the running program with
// GOMP_SPINCOUNT=10000 unless GOMP_SPINCOUNT or OMP_WAIT_POLICY is set (so
// a user's choice wins). piopt's main calls it first thing: libgomp reads
// the variables only when it is loaded, at process start, hence the
// re-execution. When the program cannot be re-executed it returns and the
// program runs with libgomp's default.
//
// libgomp's threads spin 300,000 times at every barrier before they sleep.
// When another process takes a core that one of XGBoost's threads needs,
// its peers spin through their whole count at each of the hundreds of
// barriers of a round: on a 2-core machine running two busy processes, a
// 20-round MQ2008 training took 14.8 s with 2 threads against 0.48 s with
// 1. 10,000 spins keep an idle machine's speed (0.297 s against 0.292 s
// with the default; PASSIVE, no spinning, takes 0.76 s) and bound that loss
// (1.1 s); docs/performance.md ("Threads and busy machines") has the
// measurements.
// Choosing the threads from the load (IdleCores) does the rest.
func LimitOpenMPSpin() {
	for _, v := range []string{"GOMP_SPINCOUNT", "OMP_WAIT_POLICY"} {
		if _, set := os.LookupEnv(v); set {
			return
		}
	}
	reexec("GOMP_SPINCOUNT=10000")
}

func reexec(env string) {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	// On success Exec does not return.
	syscall.Exec(exe, os.Args, append(os.Environ(), env))
}

// PassiveOpenMPForTests re-executes the running test binary with
// OMP_WAIT_POLICY=PASSIVE unless the variable is set; when benchmarks run
// it does what piopt does (LimitOpenMPSpin). For a TestMain only: go test
// runs packages in parallel, so tests always have fewer free cores than
// threads, and small trainings slow down a hundredfold with spinning
// threads (4.8 s instead of 0.23 s for a 30-round test).
func PassiveOpenMPForTests() {
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(a, "-test.bench=") && a != "-test.bench=" {
			LimitOpenMPSpin()
			return
		}
	}
	if _, set := os.LookupEnv("OMP_WAIT_POLICY"); !set {
		reexec("OMP_WAIT_POLICY=PASSIVE")
	}
}
