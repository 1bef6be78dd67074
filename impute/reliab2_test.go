package impute

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/piopt/piopt/data"
)

// slowReward scores every slate 1 after spinning for about a microsecond:
// a reward that makes each simulated sample cost what a large one would.
type slowReward struct{ sink *int }

func (r slowReward) Score(q int, slate []int32) float64 {
	x := 0
	for i := range 2000 {
		x += i ^ int(slate[0])
	}
	*r.sink += x
	return 1
}

// stopsWithin runs f with a context cancelled after wait and fails unless
// f returns context.Canceled within a second of the cancel.
func stopsWithin(t *testing.T, name string, wait time.Duration, f func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res := make(chan error, 1)
	go func() { res <- f(ctx) }()
	time.Sleep(wait)
	cancel()
	start := time.Now()
	select {
	case err := <-res:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: after the cancel got %v, want context.Canceled (finished before it?)", name, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Fatalf("%s took %v to honour the cancel, want ≤ 1 s", name, d)
		}
	case <-time.After(time.Second):
		t.Fatalf("%s did not stop within 1 s of the cancel", name)
	}
}

// Issue 30, class 4: simulation and log reading looked at their context
// every 65,536 records, so a slow record (a slow writer, a costly reward or
// a large bootstrap in the callback) delayed a cancellation by seconds to
// minutes; a query holding most samples of the fused simulation was never
// interrupted at all. They now stop within a second.
func TestSlowToStop_Simulation(t *testing.T) {
	if testing.Short() {
		t.Skip("runs simulations for seconds")
	}
	sim := testSimulation(t, "uniform", 0, 1)
	stopsWithin(t, "Run with a slow writer", 200*time.Millisecond, func(ctx context.Context) error {
		return sim.Run(ctx, 1e9, func(int, []int32, float64) error {
			time.Sleep(50 * time.Microsecond)
			return nil
		})
	})

	// One query: every sample is its own, drawn in one go.
	ds := &data.Dataset{NumFeatures: 1, Labels: make([]uint8, 8), QueryOffsets: []int{0, 8},
		QIDs: []string{"1"}, Features: make([]float32, 8), Source: "one.txt"}
	c, err := NewCandidates(ds, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var sink int
	one := &Simulation{Candidates: c, Logging: mustLogging(t, "uniform"), Slots: 3, Seed: 2, Reward: slowReward{&sink}}
	stopsWithin(t, "Stats of one query", 500*time.Millisecond, func(ctx context.Context) error {
		_, err := one.Stats(ctx, 5e7, 1, nil)
		return err
	})
}

func TestSlowToStop_ReadLog(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a log for seconds")
	}
	ds := testDataset(3, 6, 1)
	c, err := NewCandidates(ds, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("# piopt-log v1 slots=1 logging=uniform\n")
	for i := range 200000 {
		fmt.Fprintf(&b, "%s\t0\t%d\n", ds.QIDs[i%3], i%2)
	}
	lr, err := data.NewLogReader(strings.NewReader(b.String()), "log.txt", ds)
	if err != nil {
		t.Fatal(err)
	}
	stopsWithin(t, "ReadLog with a slow callback", 200*time.Millisecond, func(ctx context.Context) error {
		return c.ReadLog(ctx, lr, 1, nil, func(int, []int32, float64) { time.Sleep(50 * time.Microsecond) })
	})
}
