//go:build cgo

package trainer

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/features"
)

// mslrFold is an MSLR-WEB10K training fold in size: 6000 queries of 120
// docs (720 K docs) × 136 features, half of them integer-valued, with
// grades from a few features plus noise.
var mslrFold = sync.OnceValue(func() *data.Dataset { return mslrLike(6000) })

// mslrLike is queries MSLR-shaped queries of 120 docs × 136 features.
func mslrLike(queries int) *data.Dataset {
	const m, F = 120, 136
	r := rand.New(rand.NewPCG(7, 7))
	ds := &data.Dataset{NumFeatures: F, Features: make([]float32, queries*m*F), Labels: make([]uint8, queries*m),
		QueryOffsets: make([]int, queries+1), QIDs: make([]string, queries), Source: "mslr-like"}
	for i := range ds.Features {
		if i%2 == 0 {
			ds.Features[i] = float32(r.IntN(50))
		} else {
			ds.Features[i] = r.Float32() * 100
		}
	}
	for d := range ds.Labels {
		x := ds.Features[d*F:]
		s := 0.04*x[0] + 0.01*x[1] - 0.02*x[6] + float32(r.NormFloat64())
		ds.Labels[d] = uint8(min(4, max(0, int(s))))
	}
	for q := range queries {
		ds.QueryOffsets[q+1] = (q + 1) * m
		ds.QIDs[q] = "q"
	}
	return ds
}

// piTargets gives every (doc, slot) of ds a noisy target that depends on
// the doc's grade and the slot, weighted 1/(ℓ·m) as impute does.
func piTargets(ds *data.Dataset, slots int) *data.Targets {
	r := rand.New(rand.NewPCG(8, 8))
	t := &data.Targets{Slots: slots, Header: map[string]string{"metric": "ndcg@3"}}
	for q := range ds.NumQueries() {
		lo, hi := ds.Query(q)
		for a := range hi - lo {
			for j := 1; j <= slots; j++ {
				t.Query = append(t.Query, int32(q))
				t.Doc = append(t.Doc, int32(a))
				t.Slot = append(t.Slot, uint8(j))
				t.Target = append(t.Target, float64(ds.Labels[lo+a])/float64(j)+5*r.NormFloat64())
				t.Weight = append(t.Weight, 1/float64(slots*(hi-lo)))
			}
		}
	}
	return t
}

func benchTrain(b *testing.B, m *features.Matrix) {
	p := Defaults()
	p.Trees, p.Threads = 20, 2
	var matrix, boost float64
	for b.Loop() {
		model, err := Train(context.Background(), m, nil, p, nil)
		if err != nil {
			b.Fatal(err)
		}
		matrix, boost = model.Timing.Matrix.Seconds(), model.Timing.Boost.Seconds()
		model.Close()
	}
	b.ReportMetric(matrix, "matrix-s")
	b.ReportMetric(boost/float64(p.Trees), "s/round")
}

// BenchmarkTrainPIOPT trains 20 rounds of 70 leaves on 2 threads on the
// 2.16 M × 139 PI-OPT matrix of an MSLR-size fold at ℓ = 3, and reports the
// time to hand the matrix to XGBoost (quantile sketch included) and the
// time per round.
func BenchmarkTrainPIOPT(b *testing.B) {
	ds := mslrFold()
	m, err := features.PIOPT(ds, piTargets(ds, 3))
	if err != nil {
		b.Fatal(err)
	}
	benchTrain(b, m)
}

// BenchmarkTrainSUP is BenchmarkTrainPIOPT for the 720 K × 136 SUP matrix.
func BenchmarkTrainSUP(b *testing.B) {
	m, err := features.SUP(mslrFold(), features.Gain)
	if err != nil {
		b.Fatal(err)
	}
	benchTrain(b, m)
}

// BenchmarkMatrixCache is the ERR model of an MSLR-size fold after the
// NDCG one (BenchmarkTrainPIOPT's matrix, other targets): its matrix time
// with the NDCG model's quantile matrix shared (labels swapped in) and
// with one of its own.
func BenchmarkMatrixCache(b *testing.B) {
	ds := mslrFold()
	tg := piTargets(ds, 3)
	ndcg, err := features.PIOPT(ds, tg)
	if err != nil {
		b.Fatal(err)
	}
	errM, err := features.PIOPT(ds, retarget(tg, 1))
	if err != nil {
		b.Fatal(err)
	}
	p := Defaults()
	p.Trees, p.Threads = 1, 2
	for _, shared := range []bool{true, false} {
		b.Run(map[bool]string{true: "shared", false: "own"}[shared], func(b *testing.B) {
			var matrix float64
			for b.Loop() {
				c := &MatrixCache{}
				first, err := c.TrainJob(context.Background(), nil, ndcg, nil, nil, p, nil)
				if err != nil {
					b.Fatal(err)
				}
				first.Close()
				if !shared {
					c.Close()
				}
				model, err := c.TrainJob(context.Background(), nil, errM, nil, nil, p, nil)
				if err != nil {
					b.Fatal(err)
				}
				matrix += model.Timing.Matrix.Seconds()
				model.Close()
				c.Close()
			}
			b.ReportMetric(matrix/float64(b.N), "matrix-s")
		})
	}
}
