package parallel

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

func TestForVisitsEveryIndexOnce(t *testing.T) {
	for _, tc := range []struct{ n, workers int }{{0, 2}, {1, 4}, {7, 1}, {1000, 3}, {1000, 0}} {
		seen := make([]int32, tc.n)
		err := For(context.Background(), tc.n, tc.workers, nil, func(_ struct{}, i int) error {
			atomic.AddInt32(&seen[i], 1)
			return nil
		})
		if err != nil {
			t.Fatalf("n=%d workers=%d: %v", tc.n, tc.workers, err)
		}
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("n=%d workers=%d: index %d visited %d times", tc.n, tc.workers, i, c)
			}
		}
	}
}

func TestForLowestError(t *testing.T) {
	// Indices 300 and 700 fail; whatever the scheduling, 300's error wins and
	// every index below 300 has run.
	for range 50 {
		var below atomic.Int32
		err := For(context.Background(), 1000, 4, nil, func(_ struct{}, i int) error {
			if i == 300 || i == 700 {
				return fmt.Errorf("index %d", i)
			}
			if i < 300 {
				below.Add(1)
			}
			return nil
		})
		if err == nil || err.Error() != "index 300" {
			t.Fatalf("err = %v, want index 300", err)
		}
		if below.Load() != 300 {
			t.Fatalf("%d indices below the failure ran, want 300", below.Load())
		}
	}
}

func TestForScratchPerWorker(t *testing.T) {
	var made atomic.Int32
	err := For(context.Background(), 500, 3, func() *[]int {
		made.Add(1)
		s := make([]int, 0, 8)
		return &s
	}, func(s *[]int, i int) error {
		*s = append((*s)[:0], i)
		if (*s)[0] != i {
			return errors.New("scratch shared between workers")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if m := made.Load(); m < 1 || m > 3 {
		t.Fatalf("%d scratch values for 3 workers", m)
	}
}

func TestForCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int32
	err := For(ctx, 1_000_000, 2, nil, func(_ struct{}, i int) error {
		if ran.Add(1) == 10 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if ran.Load() > 1000 {
		t.Fatalf("%d bodies ran after cancellation", ran.Load())
	}
}

func TestChunksCover(t *testing.T) {
	var sum atomic.Int64
	err := Chunks(context.Background(), 1003, 100, 2, nil, func(_ struct{}, lo, hi int) error {
		if hi-lo > 100 || lo >= hi {
			return fmt.Errorf("bad chunk [%d,%d)", lo, hi)
		}
		for i := lo; i < hi; i++ {
			sum.Add(int64(i))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(1003 * 1002 / 2); sum.Load() != want {
		t.Fatalf("sum = %d, want %d", sum.Load(), want)
	}
}

func ExampleFor() {
	squares := make([]int, 5)
	_ = For(context.Background(), len(squares), 2, nil, func(_ struct{}, i int) error {
		squares[i] = i * i
		return nil
	})
	fmt.Println(squares)
	// Output: [0 1 4 9 16]
}
