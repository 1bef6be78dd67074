package parallel

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers returns n when it is positive and GOMAXPROCS otherwise.
func Workers(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// For calls body(s, i) for every i in [0, n) on up to workers goroutines
// (GOMAXPROCS when workers ≤ 0). Each goroutine gets its own scratch value
// from newScratch (which may be nil, giving the zero S) and takes indices in
// increasing order from a shared counter, so bodies that write only their own
// index's outputs give the same result for any worker count.
//
// After body fails at index i, indices above i are skipped but every index
// below i still runs, so the error returned is the one of the lowest failing
// index. When ctx is cancelled, the remaining indices are skipped and For
// returns ctx.Err() unless a body failed at a lower index.
func For[S any](ctx context.Context, n, workers int, newScratch func() S, body func(s S, i int) error) error {
	if n <= 0 {
		return ctx.Err()
	}
	workers = min(Workers(workers), n)
	var (
		next   atomic.Int64
		lowest atomic.Int64 // lowest failing index so far (n when none), written under mu
		mu     sync.Mutex
		err    error // the error at lowest
	)
	lowest.Store(int64(n))
	fail := func(i int, e error) {
		mu.Lock()
		defer mu.Unlock()
		if int64(i) < lowest.Load() {
			lowest.Store(int64(i))
			err = e
		}
	}
	work := func() {
		var s S
		if newScratch != nil {
			s = newScratch()
		}
		for {
			i := int(next.Add(1) - 1)
			if i >= n || int64(i) > lowest.Load() || ctx.Err() != nil {
				return
			}
			if e := body(s, i); e != nil {
				fail(i, e)
			}
		}
	}
	if workers == 1 {
		work()
	} else {
		var wg sync.WaitGroup
		for range workers {
			wg.Go(work)
		}
		wg.Wait()
	}
	if err != nil {
		return err
	}
	return ctx.Err()
}

// Chunks calls body(s, lo, hi) on consecutive ranges of at most size indices
// covering [0, n), through For: same scratch, cancellation and error rules,
// with the error of the lowest failing range.
func Chunks[S any](ctx context.Context, n, size, workers int, newScratch func() S, body func(s S, lo, hi int) error) error {
	size = max(size, 1)
	units := (n + size - 1) / size
	return For(ctx, units, workers, newScratch, func(s S, u int) error {
		lo := u * size
		return body(s, lo, min(lo+size, n))
	})
}
