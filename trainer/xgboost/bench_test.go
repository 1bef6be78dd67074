//go:build cgo

package xgboost

import (
	"flag"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The default is a PI-OPT matrix of an MSLR-WEB10K training fold: 720 K
// documents × 3 slots = 2.16 M rows of 136 features + 3 one-hot columns.
var (
	benchDocs  = flag.Int("bench-docs", 720_000, "documents of the benchmark matrix")
	benchSlots = flag.Int("bench-slots", 3, "slots (rows per document; 0: a SUP matrix of docs×136)")
)

const benchFeatures = 136

var benchData = sync.OnceValue(func() Dense {
	docs, slots := *benchDocs, *benchSlots
	r := rand.New(rand.NewPCG(1, 2))
	f := make([]float32, docs*benchFeatures)
	for i := range f {
		// MSLR mixes counts and continuous scores: half integer-valued.
		if i%2 == 0 {
			f[i] = float32(r.IntN(50))
		} else {
			f[i] = r.Float32() * 100
		}
	}
	// Targets depend on a few features, so that trees grow all 70 leaves.
	signal := func(doc int) float64 {
		x := f[doc*benchFeatures:]
		return 0.05*float64(x[0]) + 0.02*float64(x[1]) - 0.03*float64(x[5]) + r.NormFloat64()
	}
	if slots == 0 {
		y := make([]float32, docs)
		w := make([]float32, docs)
		for i := range y {
			y[i] = float32(signal(i))
			w[i] = 1.0 / 120 // every query of ~120 docs weighs 1
		}
		return Dense{Data: f, Rows: docs, Cols: benchFeatures, Labels: y, Weights: w}
	}
	cols := benchFeatures + slots
	d := Dense{Data: make([]float32, docs*slots*cols), Rows: docs * slots, Cols: cols,
		Labels: make([]float32, docs*slots), Weights: make([]float32, docs*slots)}
	for doc := range docs {
		for j := range slots {
			row := d.Data[(doc*slots+j)*cols : (doc*slots+j+1)*cols]
			copy(row, f[doc*benchFeatures:(doc+1)*benchFeatures])
			row[benchFeatures+j] = 1
			d.Labels[doc*slots+j] = float32(signal(doc) * float64(j+1))
			d.Weights[doc*slots+j] = 1 / float32(120*slots)
		}
	}
	return d
})

// procStatus returns a /proc/self/status value in MiB (VmRSS, VmHWM).
func procStatus(key string) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, key+":") {
			kb, _ := strconv.ParseFloat(strings.Fields(line)[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// resetPeak makes VmHWM restart from the current RSS (Linux ≥ 4.0).
func resetPeak() bool { return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil }

// BenchmarkNewDMatrix times building a DMatrix from the float32 matrix and
// reports, per build, the time of the first boosting round (which builds
// the histogram index of a non-quantile matrix) and the peak RSS of build +
// first round above the RSS before the build, in MiB and as a multiple of
// the float32 matrix. Run one build per process for clean peaks, e.g.
//
//	go test -run '^$' -bench 'NewDMatrix/quantile' -benchtime 1x ./trainer/xgboost
func BenchmarkNewDMatrix(b *testing.B) {
	d := benchData()
	matrixMiB := float64(len(d.Data)) * 4 / (1 << 20)
	for _, build := range []Build{BuildQuantile, BuildDense, BuildMatOMP} {
		b.Run(build.String(), func(b *testing.B) {
			var peak, round float64
			for b.Loop() {
				b.StopTimer()
				debug.FreeOSMemory()
				base := procStatus("VmRSS")
				canPeak := resetPeak()
				b.StartTimer()
				m, err := NewDMatrix(d, MatrixOptions{Build: build, Threads: 2, MaxBin: 256})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				bst, err := NewBooster(benchParams(), m)
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				if err := bst.Update(0, m); err != nil {
					b.Fatal(err)
				}
				round = time.Since(start).Seconds()
				if canPeak {
					peak = procStatus("VmHWM") - base
				}
				bst.Close()
				m.Close()
				b.StartTimer()
			}
			b.ReportMetric(round, "round1-s")
			b.ReportMetric(peak, "peak-extra-MiB")
			b.ReportMetric((peak+matrixMiB)/matrixMiB, "peak/matrix")
		})
	}
}

func benchParams() []Param {
	return []Param{
		{"tree_method", "hist"}, {"grow_policy", "lossguide"}, {"max_depth", "0"},
		{"max_leaves", "70"}, {"max_bin", "256"}, {"nthread", "2"}, {"eta", "0.1"},
		{"verbosity", "0"},
	}
}

// BenchmarkRound times one boosting round of 70 leaves on 2 threads on the
// benchmark matrix (quantile build), after 3 warm-up rounds: multiply by
// the tree count for a training time.
func BenchmarkRound(b *testing.B) {
	d := benchData()
	m, err := NewDMatrix(d, MatrixOptions{Build: BuildQuantile, Threads: 2, MaxBin: 256})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	bst, err := NewBooster(benchParams(), m)
	if err != nil {
		b.Fatal(err)
	}
	defer bst.Close()
	it := 0
	for ; it < 3; it++ {
		if err := bst.Update(it, m); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if err := bst.Update(it, m); err != nil {
			b.Fatal(err)
		}
		it++
	}
}
