package impute

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/internal/datatest"
)

// TestMQ2008TargetError measures how far the averaged φ̂ of every query of
// MQ2008 Fold1's training file is from its true φ under NDCG@3,
// φ_x(j,a) = (2^rel − 1)/(log2(j+1)·DCG*_x), as the logs grow (uniform
// logging). Γ is rank-deficient, so φ is identifiable only up to shifts that
// change no slate's value: the error on φ itself has a floor, while the
// error on slate values Σ_j φ̂(j, s_j) − NDCG(s) falls as 1/√n.
func TestMQ2008TargetError(t *testing.T) {
	path := datatest.SharedFile(t, "MQ2008", "Fold1", "train.txt")
	ds, err := data.Load(path, data.ReadOptions{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	const slots = 3
	c, err := NewCandidates(ds, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	metric := eval.Metric{Kind: eval.KindNDCG, K: slots, Conventions: eval.Conventions{MaxRel: 2}}
	sc := eval.NewScorer(metric, c.Labels(), c.Offsets())
	lg := mustLogging(t, "uniform")

	// The true φ, laid out like the targets: phi[off[q] + (j−1)·m + a].
	off := make([]int, ds.NumQueries()+1)
	for q := range ds.NumQueries() {
		lo, hi := ds.Query(q)
		off[q+1] = off[q] + slots*(hi-lo)
	}
	phi := make([]float64, off[len(off)-1])
	for q := range ds.NumQueries() {
		lo, hi := ds.Query(q)
		labels := slices.Clone(ds.Labels[lo:hi])
		slices.SortFunc(labels, func(a, b uint8) int { return int(b) - int(a) })
		ideal := 0.0
		for j := 1; j <= min(slots, len(labels)); j++ {
			ideal += (math.Exp2(float64(labels[j-1])) - 1) / math.Log2(float64(j+1))
		}
		if ideal == 0 {
			continue // NDCG 0 for every slate: φ = 0
		}
		m := hi - lo
		for j := 1; j <= slots; j++ {
			for a := range m {
				phi[off[q]+(j-1)*m+a] = (math.Exp2(float64(ds.Labels[lo+a])) - 1) / (math.Log2(float64(j+1)) * ideal)
			}
		}
	}

	type result struct{ phiMAE, slateMAE float64 }
	run := func(n int64) result {
		sim := &Simulation{Candidates: c, Logging: lg, Slots: slots, Seed: 1, Reward: sc}
		st, err := sim.Stats(context.Background(), n, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		tg, err := ComputeTargets(context.Background(), st, NewGammaCache(lg, GammaOptions{}), TargetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		est := make([]float64, len(phi))
		logged := make([]bool, ds.NumQueries())
		var r result
		for i := range tg.Target {
			q := int(tg.Query[i])
			lo, hi := ds.Query(q)
			k := off[q] + int(tg.Slot[i]-1)*(hi-lo) + int(tg.Doc[i])
			est[k] = tg.Target[i]
			logged[q] = true
			r.phiMAE += math.Abs(tg.Target[i] - phi[k])
		}
		r.phiMAE /= float64(len(tg.Target))
		// Slate values on random slates of every logged query.
		rng := rand.New(rand.NewPCG(9, 9))
		count := 0
		for q := range ds.NumQueries() {
			lo, hi := ds.Query(q)
			m := hi - lo
			if !logged[q] || m < slots {
				continue
			}
			for range 20 {
				perm := rng.Perm(m)
				s := make([]int32, slots)
				for j := range s {
					s[j] = int32(perm[j])
				}
				r.slateMAE += math.Abs(SlateSum(est[off[q]:off[q+1]], m, s) - sc.Score(q, s))
				count++
			}
		}
		r.slateMAE /= float64(count)
		return r
	}
	r4, r6 := run(10_000), run(1_000_000)
	t.Logf("n = 10^4: MAE(φ̂, φ) %.4f, slate-value MAE %.4f", r4.phiMAE, r4.slateMAE)
	t.Logf("n = 10^6: MAE(φ̂, φ) %.4f, slate-value MAE %.4f", r6.phiMAE, r6.slateMAE)
	// 100× the samples: the slate-value error falls ≈ 10× (1/√n); the φ
	// error falls too, to near its identifiability floor (≈ 0.018).
	if ratio := r4.slateMAE / r6.slateMAE; ratio < 6 || ratio > 16 {
		t.Errorf("slate-value MAE fell %.1f× from 10^4 to 10^6 samples, want ≈ 10× (1/√n)", ratio)
	}
	if r6.phiMAE > 0.03 || r4.phiMAE < 3*r6.phiMAE {
		t.Errorf("MAE(φ̂, φ): %.4f at 10^4, %.4f at 10^6; want ≤ 0.03 at 10^6 and a ≥ 3× fall", r4.phiMAE, r6.phiMAE)
	}
}
