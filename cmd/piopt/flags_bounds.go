package main

import (
	"fmt"
	"runtime"

	"github.com/piopt/piopt/data"
	"github.com/urfave/cli/v2"
)

// Stated maxima of the counts whose limit is not memory.
const (
	// MaxDMDepth caps --dm-depth: a tree of depth d has up to 2^d leaves,
	// and XGBoost sizes its per-node buffers by the depth, so 10^9 ends in
	// bad_alloc. 2^30 leaves are far more than any log's samples, so a
	// deeper tree could not split further anyway.
	MaxDMDepth = 30
	// MaxBaselineFolds caps --baseline-folds: every fold trains its own
	// XGBoost model on the log, so K folds cost K trainings; beyond 100 the
	// models differ from leave-one-out's by less than 1 % of the samples.
	MaxBaselineFolds = 100
	// MaxPointsPerDecade caps --points-per-decade: a grid point per 0.0023 %
	// of size change; finer grids repeat the same integer log sizes while
	// their construction runs for ever.
	MaxPointsPerDecade = 1000
	// ThreadsPerCore caps --threads at this multiple of the machine's
	// cores: more threads bring no speed (no result depends on them), and
	// libgomp aborts the process when it cannot create them. A larger value
	// is refused rather than clamped, since a rank:ndcg model depends on
	// its thread count and clamping would change it without a word.
	ThreadsPerCore = 4
)

// Bytes a count costs in memory, where memory is the limit.
const (
	// bootstrapBytes per replicate: Bootstrap's count and, for its two
	// channels, Σkw and Σkrw (5 float64), plus the replicate estimates an
	// interval sorts.
	bootstrapBytes = 6 * 8
	// cvFoldBytes per pi-cv fold: its ope.Sums and its coefficient.
	cvFoldBytes = 128
	// runBytes per sweep run: at least its estimates at every grid point
	// of every estimator, held until the run's end.
	runBytes = 1 << 10
)

// unknownMemory stands for the available memory where the system does not
// tell it (data.AvailableMemory's ok false): 16 GiB.
const unknownMemory = 16 << 30

// checkCounts bounds, for every command, the counts its flags give before
// anything is allocated by them: against the memory the run can use, the
// machine's cores, or a stated maximum. A flag a command lacks reads 0.
func checkCounts(c *cli.Context) error {
	mem, ok := data.AvailableMemory()
	if !ok {
		mem = unknownMemory
	}
	cores := runtime.NumCPU()
	checks := []error{
		boundedCount("threads", int64(c.Int("threads")), int64(ThreadsPerCore*cores),
			fmt.Sprintf("%d × the machine's %d cores", ThreadsPerCore, cores)),
		boundedCount("dm-depth", int64(c.Int("dm-depth")), MaxDMDepth, "a tree of 2^30 leaves; XGBoost sizes its buffers by the depth"),
		boundedCount("baseline-folds", int64(c.Int("baseline-folds")), MaxBaselineFolds, "each fold trains an XGBoost model"),
		boundedCount("points-per-decade", int64(c.Int("points-per-decade")), MaxPointsPerDecade, "finer grids repeat the same log sizes"),
		memoryCount("bootstrap", int64(c.Int("bootstrap")), bootstrapBytes, mem),
		memoryCount("cv-folds", int64(c.Int("cv-folds")), cvFoldBytes, mem),
		memoryCount("runs", int64(c.Int("runs")), runBytes, mem),
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	return nil
}

// memoryCount bounds a count of items of size bytes each by half the
// memory available, mem bytes: the other half is the data's and the
// estimators'.
func memoryCount(flag string, n, size, mem int64) error {
	return boundedCount(flag, n, mem/2/size, fmt.Sprintf("%d bytes each in half the %s of memory available", size, memText(mem)))
}

// boundedCount is the one form of a count's refusal: the flag, its value,
// the limit and what sets it.
func boundedCount(flag string, n, limit int64, why string) error {
	if n <= limit {
		return nil
	}
	return fmt.Errorf("--%s %d: at most %d (%s)", flag, n, limit, why)
}

// memText writes a byte count in GiB or MiB.
func memText(b int64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}
