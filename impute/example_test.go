package impute_test

import (
	"context"
	"fmt"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
)

// Simulate a uniform slate log of one query and turn it into PI targets.
// The reward, NDCG@2, is additive over slots, so the targets recover each
// (slot, doc) contribution up to a per-slot shift that no slate can reveal
// (the shifts sum to zero over the slots).
func ExampleComputeTargets() {
	ds := &data.Dataset{Labels: []uint8{2, 0, 1, 0}, QueryOffsets: []int{0, 4}, QIDs: []string{"q1"}, Source: "toy"}
	cands, _ := impute.NewCandidates(ds, nil, 0) // all docs, in position order
	metric := eval.Metric{Kind: eval.KindNDCG, K: 2, Conventions: eval.Conventions{MaxRel: 2}}
	sim := &impute.Simulation{Candidates: cands, Logging: impute.Uniform(), Slots: 2, Seed: 1,
		Reward: eval.NewScorer(metric, cands.Labels(), cands.Offsets())}
	ctx := context.Background()
	st, _ := sim.Stats(ctx, 200000, 0, nil)
	tg, _ := impute.ComputeTargets(ctx, st, impute.NewGammaCache(impute.Uniform(), impute.GammaOptions{}), impute.TargetOptions{})
	for i := range tg.Len() {
		fmt.Printf("doc %d slot %d: %5.2f\n", tg.Doc[i], tg.Slot[i], tg.Target[i])
	}
	// Output:
	// doc 0 slot 1:  0.78
	// doc 0 slot 2:  0.57
	// doc 1 slot 1: -0.05
	// doc 1 slot 2:  0.05
	// doc 2 slot 1:  0.22
	// doc 2 slot 2:  0.23
	// doc 3 slot 1: -0.05
	// doc 3 slot 2:  0.05
}

// Greedy and Exact slates on slot-action scores where greedy loses: the
// best single pair (doc 0 in slot 1) forces doc 1 into slot 2, where it
// scores little; the optimum gives slot 1 to doc 1 instead.
func ExampleSlateSolver() {
	const m = 3 // candidates; w[j*m+a] is doc a's score in slot j+1
	w := []float64{
		10, 9, 0, // slot 1
		8, 1, 0, // slot 2
	}
	var s impute.SlateSolver
	slate := make([]int32, 2) // ℓ = 2 slots
	g := s.Greedy(w, m, slate)
	fmt.Println("greedy:", slate, g)
	e := s.Exact(w, m, slate)
	fmt.Println("exact: ", slate, e)
	// Output:
	// greedy: [0 1] 11
	// exact:  [1 0] 17
}
