package impute

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
)

// testDataset builds q queries with sizes 1..maxSize, two features and
// labels 0..4 skewed towards 0, deterministically from seed.
func testDataset(q, maxSize int, seed uint64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	ds := &data.Dataset{NumFeatures: 2, QueryOffsets: []int{0}, Source: "test.txt"}
	for i := range q {
		n := 1 + rng.IntN(maxSize)
		if i == 0 {
			n = 1
		}
		for range n {
			l := mslrLabel(rng.Float64())
			ds.Labels = append(ds.Labels, l)
			ds.Features = append(ds.Features, float32(l)+float32(rng.Float64()), float32(rng.Float64()))
		}
		ds.QueryOffsets = append(ds.QueryOffsets, len(ds.Labels))
		ds.QIDs = append(ds.QIDs, fmt.Sprint(100+i))
	}
	return ds
}

// mslrLabel maps a uniform u to a grade with MSLR-WEB10K's frequencies,
// 52/32/13/2/1 %.
func mslrLabel(u float64) uint8 {
	switch {
	case u > 0.99:
		return 4
	case u > 0.97:
		return 3
	case u > 0.84:
		return 2
	case u > 0.52:
		return 1
	}
	return 0
}

// featureOrder ranks each query's docs by feature 1 descending.
func featureOrder(ds *data.Dataset) []int32 {
	out := make([]int32, ds.NumDocs())
	for q := range ds.NumQueries() {
		lo, hi := ds.Query(q)
		o := out[lo:hi]
		for i := range o {
			o[i] = int32(i)
		}
		slices.SortStableFunc(o, func(a, b int32) int {
			fa, fb := ds.Features[(lo+int(a))*2], ds.Features[(lo+int(b))*2]
			switch {
			case fa > fb:
				return -1
			case fa < fb:
				return 1
			}
			return 0
		})
	}
	return out
}

func testSimulation(t testing.TB, spec string, limit int, seed uint64) *Simulation {
	t.Helper()
	ds := testDataset(40, 30, 77)
	var order []int32
	lg := mustLogging(t, spec)
	if lg.NeedsRanks() || limit > 0 {
		order = featureOrder(ds)
	}
	c, err := NewCandidates(ds, order, limit)
	if err != nil {
		t.Fatal(err)
	}
	metric := eval.Metric{Kind: eval.KindNDCG, K: 3, Conventions: eval.Conventions{MaxRel: 4}}
	return &Simulation{Candidates: c, Logging: lg, Slots: 3, Seed: seed,
		Reward: eval.NewScorer(metric, c.Labels(), c.Offsets())}
}

func sameStats(t *testing.T, name string, a, b *Stats) {
	t.Helper()
	for q := range a.count {
		if a.count[q] != b.count[q] || math.Float64bits(a.rsum[q]) != math.Float64bits(b.rsum[q]) {
			t.Fatalf("%s: query %d: n %d/%d, Σr %v/%v", name, q, a.count[q], b.count[q], a.rsum[q], b.rsum[q])
		}
	}
	for i := range a.sum {
		if math.Float64bits(a.sum[i]) != math.Float64bits(b.sum[i]) {
			t.Fatalf("%s: S[%d] = %v vs %v", name, i, a.sum[i], b.sum[i])
		}
	}
}

// The fused path gives bit for bit the statistics of the sequential log,
// whatever the number of threads.
func TestFusedStatsEqualSequentialLog(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		spec  string
		limit int
	}{{"uniform", 0}, {"uniform", 10}, {"pa:1", 0}, {"eps:0.3,pa:2", 12}} {
		sim := testSimulation(t, tc.spec, tc.limit, 5)
		seq, _ := NewStats(sim.Candidates, sim.Slots)
		err := sim.Run(ctx, 30000, func(q int, s []int32, r float64) error {
			seq.Add(q, s, r)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, threads := range []int{1, 2, 7} {
			fused, err := sim.Stats(ctx, 30000, threads, nil)
			if err != nil {
				t.Fatal(err)
			}
			sameStats(t, fmt.Sprintf("%s/%d threads", tc.spec, threads), seq, fused)
		}
		if seq.Samples() != 30000 {
			t.Fatalf("%d samples", seq.Samples())
		}
	}
}

// Any prefix of the log is the log of fewer samples; another seed differs.
func TestRunPrefix(t *testing.T) {
	sim := testSimulation(t, "pa:1", 0, 9)
	collect := func(n int64) []string {
		var out []string
		sim.Run(context.Background(), n, func(q int, s []int32, r float64) error {
			out = append(out, fmt.Sprint(q, s, r))
			return nil
		})
		return out
	}
	long, short := collect(500), collect(200)
	if !slices.Equal(long[:200], short) {
		t.Fatal("the first 200 of 500 samples differ from a run of 200")
	}
	sim.Seed++
	if slices.Equal(collect(200), short) {
		t.Fatal("another seed gave the same log")
	}
	// contexts are uniform over queries: every query of 40 is drawn.
	counts, _ := sim.contexts(context.Background(), 4000)
	for q, c := range counts {
		if c < 50 || c > 160 {
			t.Errorf("query %d drawn %d times of 4000 (expect ≈100)", q, c)
		}
	}
}

func TestRunStopsOnEmitErrorAndCancel(t *testing.T) {
	sim := testSimulation(t, "uniform", 0, 1)
	boom := errors.New("boom")
	n := 0
	err := sim.Run(context.Background(), 100, func(int, []int32, float64) error {
		if n++; n == 3 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || n != 3 {
		t.Fatalf("err %v after %d", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sim.Stats(ctx, 1000, 2, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Stats: %v", err)
	}
}

// Targets: one row per logged query, candidate doc and slot, sorted; the
// value is Γ†(S_x/n_x); weights 1/(ℓ_x m_x) or n_x; unlogged queries absent.
func TestComputeTargets(t *testing.T) {
	ctx := context.Background()
	sim := testSimulation(t, "pa:1", 8, 3)
	st, err := sim.Stats(ctx, 60, 2, nil) // few samples: some queries unlogged
	if err != nil {
		t.Fatal(err)
	}
	gc := NewGammaCache(sim.Logging, GammaOptions{})
	tg, err := ComputeTargets(ctx, st, gc, TargetOptions{Header: map[string]string{"logging": "pa:1"}})
	if err != nil {
		t.Fatal(err)
	}
	c := sim.Candidates
	want := 0
	unlogged := 0
	for q := range c.NumQueries() {
		if st.Count(q) > 0 {
			want += c.Slots(q, 3) * c.Size(q)
		} else {
			unlogged++
		}
	}
	if unlogged == 0 {
		t.Fatal("test needs an unlogged query")
	}
	if tg.Len() != want || tg.Slots != 3 || tg.Header["slots"] != "3" || tg.Header["logging"] != "pa:1" {
		t.Fatalf("%d rows (want %d), slots %d, header %v", tg.Len(), want, tg.Slots, tg.Header)
	}
	for i := 1; i < tg.Len(); i++ {
		a := [3]int{int(tg.Query[i-1]), int(tg.Doc[i-1]), int(tg.Slot[i-1])}
		b := [3]int{int(tg.Query[i]), int(tg.Doc[i]), int(tg.Slot[i])}
		if slices.Compare(a[:], b[:]) >= 0 {
			t.Fatalf("rows %d, %d out of order: %v %v", i-1, i, a, b)
		}
	}
	// Recompute every logged query directly.
	r := 0
	for q := range c.NumQueries() {
		if st.Count(q) == 0 {
			continue
		}
		m, lx := c.Size(q), c.Slots(q, 3)
		g, _ := gc.get(m, lx)
		theta := slices.Clone(st.Sum(q))
		for i := range theta {
			theta[i] /= float64(st.Count(q))
		}
		phi := make([]float64, len(theta))
		g.PinvMulVec(phi, theta)
		for ; r < tg.Len() && int(tg.Query[r]) == q; r++ {
			a := c.Index(q, tg.Doc[r])
			if a < 0 {
				t.Fatalf("row %d: doc %d is not a candidate", r, tg.Doc[r])
			}
			if got, want := tg.Target[r], phi[int(tg.Slot[r]-1)*m+a]; got != want {
				t.Fatalf("row %d: target %v, want %v", r, got, want)
			}
			if got, want := tg.Weight[r], 1/float64(lx*m); got != want {
				t.Fatalf("row %d: weight %v, want %v", r, got, want)
			}
		}
	}
	// Per-sample weights are n_x; thread count does not matter.
	ps, _ := ComputeTargets(ctx, st, gc, TargetOptions{PerSample: true, threads: 1})
	for i := range ps.Weight {
		if ps.Weight[i] != float64(st.Count(int(ps.Query[i]))) || ps.Target[i] != tg.Target[i] {
			t.Fatalf("per-sample row %d: weight %v target %v", i, ps.Weight[i], ps.Target[i])
		}
	}
}

// With many samples of an additive reward (NDCG under uniform logging), the
// averaged φ̄ predicts every slate's expected reward.
func TestAveragedTargetsConverge(t *testing.T) {
	ds := &data.Dataset{NumFeatures: 1, Labels: []uint8{0, 1, 2, 0, 3, 1}, QueryOffsets: []int{0, 6},
		QIDs: []string{"1"}, Features: make([]float32, 6), Source: "one.txt"}
	c, _ := NewCandidates(ds, nil, 0)
	metric := eval.Metric{Kind: eval.KindNDCG, K: 2, Conventions: eval.Conventions{MaxRel: 3}}
	sc := eval.NewScorer(metric, c.Labels(), c.Offsets())
	for _, spec := range []string{"uniform", "pa:1"} {
		lg := mustLogging(t, spec)
		sim := &Simulation{Candidates: c, Logging: lg, Slots: 2, Reward: sc, Seed: 4}
		st, _ := sim.Stats(context.Background(), 400000, 2, nil)
		tg, _ := ComputeTargets(context.Background(), st, NewGammaCache(lg, GammaOptions{}), TargetOptions{})
		phi := make([]float64, 12)
		for i := range tg.Target {
			phi[int(tg.Slot[i]-1)*6+int(tg.Doc[i])] = tg.Target[i]
		}
		d, _ := lg.Dist(6, 2)
		d.EachSlate(func(s []int32, _ float64) {
			if got, want := SlateSum(phi, 6, s), sc.Score(0, s); math.Abs(got-want) > 0.03 {
				t.Errorf("%s: slate %v: φ̄ predicts %.4f, reward %.4f", spec, s, got, want)
			}
		})
	}
}

func TestAddLogChecksCandidates(t *testing.T) {
	ds := testDataset(3, 6, 1) // query "100" has 1 doc
	order := featureOrder(ds)
	c, _ := NewCandidates(ds, order, 2)
	q := 1
	for ds.QuerySize(q) < 3 {
		q++
	}
	notCand := -1
	for d := range ds.QuerySize(q) {
		if c.Index(q, int32(d)) < 0 {
			notCand = d
			break
		}
	}
	cands := c.Docs(q)
	ok := fmt.Sprintf("%s\t%d,%d\t0.5\n", ds.QIDs[q], cands[1], cands[0])
	head := "# piopt-log v1 slots=2 logging=uniform\n"
	tests := []struct {
		name, body, want string
	}{
		{"fine", ok + "100\t0\t1\n", ""},
		{"not a candidate", fmt.Sprintf("%s\t%d,%d\t1\n", ds.QIDs[q], cands[0], notCand), "log.txt:2: field 2"},
		{"too short", fmt.Sprintf("%s\t%d\t1\n", ds.QIDs[q], cands[0]), "has 2 candidates, so its slates have 2 slots"},
		{"single-doc query wants 1", "100\t0,1\t1\n", "out of range"},
	}
	for _, tc := range tests {
		lr, err := data.NewLogReader(strings.NewReader(head+tc.body), "log.txt", ds)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := NewStats(c, 2)
		err = st.AddLog(context.Background(), lr, nil)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want == "" && st.Samples() != 2:
			t.Errorf("%s: %d samples", tc.name, st.Samples())
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestCandidates(t *testing.T) {
	ds := testDataset(5, 12, 2)
	order := featureOrder(ds)
	c, err := NewCandidates(ds, order, 4)
	if err != nil {
		t.Fatal(err)
	}
	for q := range ds.NumQueries() {
		lo, _ := ds.Query(q)
		docs := c.Docs(q)
		if len(docs) != min(4, ds.QuerySize(q)) {
			t.Fatalf("query %d: %d candidates", q, len(docs))
		}
		if idx, ok := c.toIndices(q, docs, nil); !ok || len(idx) != len(docs) || (len(idx) > 0 && idx[len(idx)-1] != int32(len(idx)-1)) {
			t.Fatalf("query %d: ToIndices(%v) = %v, %v", q, docs, idx, ok)
		}
		for i, d := range docs {
			if d != order[lo+i] || c.Index(q, d) != i || c.Labels()[c.Offsets()[q]+i] != ds.Labels[lo+int(d)] {
				t.Fatalf("query %d candidate %d: doc %d", q, i, d)
			}
		}
		if c.Index(q, -1) != -1 || c.Index(q, int32(ds.QuerySize(q))) != -1 {
			t.Fatal("out-of-range doc has a candidate index")
		}
	}
	checked := 0
	for q := range ds.NumQueries() {
		if ds.QuerySize(q) > 4 {
			checked++
			lo, _ := ds.Query(q)
			if _, ok := c.toIndices(q, []int32{order[lo], order[lo+4]}, nil); ok {
				t.Fatalf("query %d: the 5th ranked doc converted as a candidate", q)
			}
		}
	}
	if checked == 0 {
		t.Fatal("test data has no query with more than 4 docs")
	}
	if _, err := NewCandidates(ds, order[:3], 0); err == nil {
		t.Fatal("short order accepted")
	}
	bad := slices.Clone(order)
	q := 1
	for ds.QuerySize(q) < 2 {
		q++
	}
	lo, _ := ds.Query(q)
	bad[lo+1] = bad[lo]
	if _, err := NewCandidates(ds, bad, 0); err == nil {
		t.Fatal("repeated doc in order accepted")
	}
}
