package main

import (
	"os"
	"testing"
)

// testAsPiopt, set in the environment, makes the test binary run piopt's
// main instead of the tests: train --workers starts its workers from
// os.Executable(), which in a test is this binary.
const testAsPiopt = "PIOPT_TEST_AS_PIOPT"

func TestMain(m *testing.M) {
	if os.Getenv(testAsPiopt) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}
