package impute

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/piopt/piopt/internal/parallel"
)

// Rewarder scores a slate of candidate indices of query q, e.g. an
// *eval.Scorer built on Candidates.Labels and Candidates.Offsets (so that
// NDCG's ideal DCG is taken over the candidates).
type Rewarder interface {
	Score(q int, slate []int32) float64
}

// Simulation is a semi-synthetic bandit log: contexts uniform over the
// queries, slates from the logging policy over each query's candidates,
// rewards from the hidden labels.
//
// Randomness is split so that results depend neither on the number of
// threads nor on whether the log is written out: a master stream (from
// Seed) draws the query of every sample, x_1..x_N, and every query has its
// own stream (from Seed and the query index) from which its slates are
// drawn in order. Sample i's slate is the next draw from x_i's stream. Run
// emits the samples in order i = 1..N, so any prefix of the log is an
// i.i.d. sample; Stats only counts n_x from the master stream and then
// draws every query's slates from its stream, in parallel, in the same
// per-query order, giving the same sums bit for bit.
type Simulation struct {
	Candidates *Candidates
	Logging    Logging
	Slots      int
	Reward     Rewarder
	Seed       uint64
	// Policies, when per-context (GammaCache.PerContext: Plackett–Luce on
	// a rank source's scores), gives every query its own distribution
	// instead of Logging's per shape.
	Policies *GammaCache
}

func (s *Simulation) check() error {
	if s.Candidates == nil || s.Reward == nil {
		return fmt.Errorf("impute: simulation without candidates or reward")
	}
	if s.Slots < 1 || s.Slots > MaxSlots {
		return fmt.Errorf("impute: %d slots outside 1..%d", s.Slots, MaxSlots)
	}
	if s.Candidates.NumQueries() == 0 {
		return fmt.Errorf("impute: simulation over a dataset without queries")
	}
	return nil
}

// splitmix64 is the SplitMix64 finaliser: it turns nearby seeds into
// unrelated 64-bit words.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func (s *Simulation) master() *rand.PCG {
	return rand.NewPCG(splitmix64(s.Seed), splitmix64(s.Seed^0x5851f42d4c957f2d))
}

// stream returns query q's random stream: the source of its slates.
func (s *Simulation) stream(q int) *rand.PCG {
	a := splitmix64(s.Seed + splitmix64(uint64(q)+1))
	return rand.NewPCG(a, splitmix64(a^0xda3e39cb94b95bdb))
}

// dists returns the slate distribution of every query (shared per shape).
func (s *Simulation) dists() ([]*Dist, error) {
	c := s.Candidates
	out := make([]*Dist, c.NumQueries())
	if s.Policies != nil && s.Policies.PerContext() {
		for q := range out {
			out[q] = s.Policies.Dist(q)
		}
		return out, nil
	}
	byShape := map[[2]int]*Dist{}
	for q := range out {
		m, l := c.Size(q), c.Slots(q, s.Slots)
		d := byShape[[2]int{m, l}]
		if d == nil {
			var err error
			if d, err = s.Logging.Dist(m, l); err != nil {
				return nil, err
			}
			byShape[[2]int{m, l}] = d
		}
		out[q] = d
	}
	return out, nil
}

// contexts returns n_x for every query: how many of the n samples the
// master stream assigns to it.
func (s *Simulation) contexts(ctx context.Context, n int64) ([]int64, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	nq := s.Candidates.NumQueries()
	counts := make([]int64, nq)
	r := s.master()
	for i := int64(0); i < n; i++ {
		if i&0xfffff == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		counts[uintN(r, uint64(nq))]++
	}
	return counts, nil
}

// Run simulates n samples in order and calls emit for each with the query
// index, the slate (candidate indices; valid during the call) and the
// reward. It stops at the first error emit returns.
func (s *Simulation) Run(ctx context.Context, n int64, emit func(q int, slate []int32, r float64) error) error {
	if err := s.check(); err != nil {
		return err
	}
	dists, err := s.dists()
	if err != nil {
		return err
	}
	nq := len(dists)
	streams := make([]*rand.PCG, nq)
	master := s.master()
	buf := make([]int32, s.Slots)
	done := ctx.Done()
	for i := int64(0); i < n; i++ {
		if i&stopEvery == 0 && stopped(done) {
			return ctx.Err()
		}
		q := int(uintN(master, uint64(nq)))
		if streams[q] == nil {
			streams[q] = s.stream(q)
		}
		d := dists[q]
		slate := buf[:d.l]
		d.Sample(streams[q], slate)
		if err := emit(q, slate, s.Reward.Score(q, slate)); err != nil {
			return err
		}
	}
	return nil
}

// Stats simulates n samples straight into per-query statistics, without a
// log in memory or on disk: the fused path of `piopt impute --simulate`.
// Queries are shared out among threads (0 means GOMAXPROCS); the result is
// bit-identical to reading Run's samples in order, whatever the threads.
// progress, when not nil, is called with each query's number of samples once
// they are simulated (concurrently from several goroutines).
func (s *Simulation) Stats(ctx context.Context, n int64, threads int, progress func(n int64)) (*Stats, error) {
	counts, err := s.contexts(ctx, n)
	if err != nil {
		return nil, err
	}
	dists, err := s.dists()
	if err != nil {
		return nil, err
	}
	st, err := NewStats(s.Candidates, s.Slots)
	if err != nil {
		return nil, err
	}
	newBuf := func() []int32 { return make([]int32, s.Slots) }
	err = parallel.For(ctx, len(dists), threads, newBuf, func(buf []int32, q int) error {
		k := counts[q]
		if k == 0 {
			return nil
		}
		if err := s.simulateQuery(ctx, st, q, k, dists[q], buf); err != nil {
			return err
		}
		if progress != nil {
			progress(k)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// simulateQuery draws query q's k slates from its own stream into st, in the
// order Run would draw them. A query may hold most of the samples, so the
// context is checked within, between batches of sampleBatch slates (the
// inner loop stays as it was), not only between queries.
func (s *Simulation) simulateQuery(ctx context.Context, st *Stats, q int, k int64, d *Dist, buf []int32) error {
	slate := buf[:d.l]
	m := d.m
	row := st.Sum(q)
	rng := s.stream(q)
	rsum := 0.0
	done := ctx.Done()
	for left := k; left > 0; left -= sampleBatch {
		if stopped(done) {
			return ctx.Err()
		}
		for range min(left, sampleBatch) {
			d.Sample(rng, slate)
			r := s.Reward.Score(q, slate)
			for j, a := range slate {
				row[j*m+int(a)] += r
			}
			rsum += r
		}
	}
	st.rsum[q] = rsum
	st.count[q] = k
	return nil
}

// sampleBatch is how many slates simulateQuery draws between two looks at
// its context: at 0.1 µs a slate (ℓ = 3 of 120 candidates) a few hundred
// µs; at 100 µs (ℓ = 10 of thousands) 0.4 s, still within a second.
const sampleBatch = 4096

// stopEvery+1 is how many records the hot loops of simulation and log
// reading handle between two looks at their context: 64, so that even at
// a millisecond a record (a slow writer, a large bootstrap per record) a
// cancellation is honoured within 0.1 s, while the look, a non-blocking
// receive of a few nanoseconds, costs under 0.1 ns a record. (It was
// 65,536 records: tens of seconds at a millisecond each.)
const stopEvery = 63

// stopped reports whether done, a context's Done channel (nil for a
// context that is never cancelled), is closed.
func stopped(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}
