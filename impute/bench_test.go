package impute

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
)

// mslrShaped returns a dataset shaped like an MSLR-WEB10K training fold:
// 6000 queries with heavy-tailed sizes (mean ≈ 120, max 908), ≈ 720 K
// documents, labels 0..4 with frequencies 52/32/13/2/1 %. Only labels
// matter to simulation and imputation, so it has no features.
func mslrShaped(seed uint64) *data.Dataset {
	src := rand.NewPCG(seed, 0)
	rng := rand.New(src)
	ds := &data.Dataset{QueryOffsets: []int{0}, Source: "mslr-shaped"}
	for q := range 6000 {
		// Log-normal sizes: median ≈ 90, long right tail, clipped at 908.
		n := int(math.Round(math.Exp(4.5 + 0.75*rng.NormFloat64())))
		n = min(max(n, 1), 908)
		if q == 0 {
			n = 908
		}
		for range n {
			ds.Labels = append(ds.Labels, mslrLabel(rng.Float64()))
		}
		ds.QueryOffsets = append(ds.QueryOffsets, len(ds.Labels))
		ds.QIDs = append(ds.QIDs, fmt.Sprint(q+1))
	}
	return ds
}

func benchFused(b *testing.B, spec string, samples int64, write bool) {
	ds := mslrShaped(1)
	lg := mustLogging(b, spec)
	c, err := NewCandidates(ds, nil, 0)
	if err != nil {
		b.Fatal(err)
	}
	metric := eval.Metric{Kind: eval.KindNDCG, K: 3, Conventions: eval.Conventions{MaxRel: 4}}
	sim := &Simulation{Candidates: c, Logging: lg, Slots: 3, Seed: 1,
		Reward: eval.NewScorer(metric, c.Labels(), c.Offsets())}
	b.Logf("%d queries, %d docs, mean %.1f, max %d", ds.NumQueries(), ds.NumDocs(),
		float64(ds.NumDocs())/float64(ds.NumQueries()), ds.MaxQuerySize())
	ctx := context.Background()
	b.ResetTimer()
	cpu0 := cpuSeconds()
	for range b.N {
		gc := NewGammaCache(lg, GammaOptions{}) // Γ work is part of every run
		st, err := sim.Stats(ctx, samples, 0, nil)
		if err != nil {
			b.Fatal(err)
		}
		tg, err := ComputeTargets(ctx, st, gc, TargetOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if write {
			if err := data.WriteTargets(io.Discard, tg, ds); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(samples)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
	// On a shared machine wall time overstates the cost; CPU time per
	// sample tells what dedicated cores would do.
	b.ReportMetric((cpuSeconds()-cpu0)*1e9/(float64(samples)*float64(b.N)), "cpu-ns/sample")
}

// cpuSeconds returns the process's user + system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkImputeFused is `piopt impute --simulate 10000000 --slots 3
// --logging SPEC --metric ndcg` on an MSLR-sized fold, end to end except
// loading: simulation, statistics, Γ†, targets and their formatting (the
// target file goes to io.Discard). The "stats+targets" variants leave out
// the formatting.
func BenchmarkImputeFused(b *testing.B) {
	for _, spec := range []string{"uniform", "pa:1"} {
		b.Run(spec+"/end-to-end", func(b *testing.B) { benchFused(b, spec, 10_000_000, true) })
		b.Run(spec+"/stats+targets", func(b *testing.B) { benchFused(b, spec, 10_000_000, false) })
	}
}

// BenchmarkGamma builds Γ and Γ† for p_α with m = 100, ℓ = 10.
func BenchmarkGamma(b *testing.B) {
	for _, spec := range []string{"pa:0.5", "pa:1", "pa:2", "uniform"} {
		b.Run(spec+"/m=100/l=10/build", func(b *testing.B) {
			d, _ := mustLogging(b, spec).Dist(100, 10)
			for range b.N {
				if _, err := NewGamma(d, GammaOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(spec+"/m=100/l=10/PinvMulVec", func(b *testing.B) {
			g := mustGamma(b, mustLogging(b, spec), 100, 10)
			v := make([]float64, 1000)
			for i := range v {
				v[i] = float64(i%7) / 7
			}
			dst := make([]float64, 1000)
			b.ResetTimer()
			for range b.N {
				g.PinvMulVec(dst, v)
			}
		})
		b.Run(spec+"/m=100/l=10/SlateForm", func(b *testing.B) {
			g := mustGamma(b, mustLogging(b, spec), 100, 10)
			s1 := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
			s2 := []int32{9, 3, 50, 1, 77, 4, 2, 99, 60, 0}
			b.ResetTimer()
			for range b.N {
				g.SlateForm(s1, s2)
			}
		})
	}
}

// BenchmarkSample draws one slate.
func BenchmarkSample(b *testing.B) {
	for _, tc := range []struct {
		spec string
		m, l int
	}{{"uniform", 120, 3}, {"pa:1", 120, 3}, {"pa:1", 100, 10}} {
		b.Run(fmt.Sprintf("%s/m=%d/l=%d", tc.spec, tc.m, tc.l), func(b *testing.B) {
			d, _ := mustLogging(b, tc.spec).Dist(tc.m, tc.l)
			src := rand.NewPCG(1, 2)
			s := make([]int32, tc.l)
			for range b.N {
				d.Sample(src, s)
			}
		})
	}
}
