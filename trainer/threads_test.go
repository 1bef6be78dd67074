package trainer

import (
	"runtime"
	"testing"
)

// --threads N is N; 0 is the idle cores for regression and every core for
// rank:ndcg, whose model depends on the thread count.
func TestThreadsDefault(t *testing.T) {
	p := Defaults()
	p.Threads = 3
	if got := p.threads(); got != 3 {
		t.Errorf("Threads 3 resolves to %d", got)
	}
	p.Threads = 0
	if got := p.threads(); got < 1 || got > runtime.NumCPU() {
		t.Errorf("regression: %d threads, outside 1..%d", got, runtime.NumCPU())
	}
	p.Objective = ObjectiveRankNDCG
	if got := p.threads(); got != runtime.NumCPU() {
		t.Errorf("rank:ndcg: %d threads, want all %d cores", got, runtime.NumCPU())
	}
}
