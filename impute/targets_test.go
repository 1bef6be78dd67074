package impute

import (
	"context"
	"fmt"
	"testing"
)

// failShape makes gc fail for shape (m, l) with an error naming the shape,
// as if Γ could not be computed for it.
func failShape(gc *GammaCache, m, l int) {
	e := &gammaEntry{err: fmt.Errorf("shape %d×%d fails", m, l), ready: true}
	gc.byK[[2]int{m, l}] = e
}

// When several queries fail, ComputeTargets returns the error of the lowest
// failing query, for every thread count and every run: what the user sees
// does not depend on scheduling.
func TestComputeTargetsErrorIsLowestQuery(t *testing.T) {
	ctx := context.Background()
	sim := testSimulation(t, "uniform", 0, 5)
	st, err := sim.Stats(ctx, 20000, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := sim.Candidates
	shape := func(q int) (int, int) { return c.Size(q), c.Slots(q, st.slots) }
	// Fail the shapes of the last query and of one in the middle whose
	// shape differs; the lowest query of either shape is the one to report.
	nq := c.NumQueries()
	mLast, lLast := shape(nq - 1)
	mid := -1
	for q := nq / 2; q < nq-1; q++ {
		if m, l := shape(q); (m != mLast || l != lLast) && st.Count(q) > 0 {
			mid = q
			break
		}
	}
	if mid < 0 || st.Count(nq-1) == 0 {
		t.Fatal("test data lacks a second logged shape")
	}
	mMid, lMid := shape(mid)
	lowest := -1
	for q := range nq {
		m, l := shape(q)
		if st.Count(q) > 0 && (m == mLast && l == lLast || m == mMid && l == lMid) {
			lowest = q
			break
		}
	}
	if lowest <= 0 {
		t.Fatalf("lowest failing query %d: want some queries to succeed first", lowest)
	}
	m, l := shape(lowest)
	want := fmt.Sprintf("query %q: shape %d×%d fails", c.Dataset().QIDs[lowest], m, l)
	for _, threads := range []int{1, 2, 3, 8} {
		for range 20 {
			gc := NewGammaCache(sim.Logging, GammaOptions{})
			failShape(gc, mLast, lLast)
			failShape(gc, mMid, lMid)
			_, err := ComputeTargets(ctx, st, gc, TargetOptions{threads: threads})
			if err == nil || err.Error() != want {
				t.Fatalf("threads %d: error %v, want %s", threads, err, want)
			}
		}
	}
}
