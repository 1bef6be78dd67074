package main

import (
	"testing"

	"github.com/urfave/cli/v2"
)

// evaluate-sweep's DM trains on the first n/2 samples at log size n by
// default, as the paper; --dm-max-train only caps it when given.
func TestSweepDMMaxTrainDefault(t *testing.T) {
	for _, f := range evaluateSweepCommand().Flags {
		if f, ok := f.(*cli.IntFlag); ok && f.Name == "dm-max-train" {
			if f.Value != 0 {
				t.Errorf("--dm-max-train defaults to %d, want 0 (no cap: n/2, as the paper)", f.Value)
			}
			return
		}
	}
	t.Fatal("evaluate-sweep has no --dm-max-train")
}
