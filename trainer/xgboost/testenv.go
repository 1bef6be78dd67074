//go:build unix

package xgboost

import (
	"os"
	"strings"
	"syscall"
)

// PassiveOpenMPForTests re-executes the running test binary with
// OMP_WAIT_POLICY=PASSIVE unless the variable is set or benchmarks run. For
// a TestMain only.
//
// libgomp's threads spin at every barrier by default. When the machine has
// fewer free cores than XGBoost has threads (go test runs packages in
// parallel), a spinning thread burns the time slice its peer needs and
// small trainings slow down a hundredfold (4.8 s instead of 0.23 s for a
// 30-round test on a loaded 2-core machine). libgomp reads the variable only
// when it is loaded, at process start, hence the re-execution. Benchmarks
// keep the default, which piopt runs with.
func PassiveOpenMPForTests() {
	if _, set := os.LookupEnv("OMP_WAIT_POLICY"); set {
		return
	}
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(a, "-test.bench=") && a != "-test.bench=" {
			return
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	// On success Exec does not return; on failure the tests run as they are.
	syscall.Exec(exe, os.Args, append(os.Environ(), "OMP_WAIT_POLICY=PASSIVE"))
}
