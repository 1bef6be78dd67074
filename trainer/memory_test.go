//go:build cgo && linux

package trainer

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/piopt/piopt/features"
)

// peakMemory follows a stage's memory: the process's peak RSS (VmHWM,
// reset at the start through /proc/self/clear_refs) and the Go heap's peak
// (sampled every 5 ms).
type peakMemory struct {
	heap atomic.Uint64
	stop chan struct{}
	done chan struct{}
}

func startPeakMemory(tb testing.TB) *peakMemory {
	runtime.GC()
	debug.FreeOSMemory()
	// "5" resets the peak RSS (Linux ≥ 4.0).
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		tb.Skipf("cannot reset the peak RSS: %v", err)
	}
	p := &peakMemory{stop: make(chan struct{}), done: make(chan struct{})}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() {
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > p.heap.Load() {
			p.heap.Store(v)
		}
	}
	read()
	go func() {
		defer close(p.done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				read()
				return
			case <-t.C:
				read()
			}
		}
	}()
	return p
}

// end stops sampling and returns the peaks in MB.
func (p *peakMemory) end(tb testing.TB) (heapMB, rssMB float64) {
	close(p.stop)
	<-p.done
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		if f := bytes.Fields(sc.Bytes()); len(f) == 3 && string(f[0]) == "VmHWM:" {
			kb, err := strconv.ParseFloat(string(f[1]), 64)
			if err != nil {
				tb.Fatal(err)
			}
			rssMB = kb / 1024
		}
	}
	return float64(p.heap.Load()) / (1 << 20), rssMB
}

// BenchmarkStageMemoryPIOPT is one PI-OPT stage of an MSLR-WEB10K-size fold:
// the 2.16 M-row PI-OPT matrix of a 720 K-doc training fold (ℓ = 3), a
// validation matrix of a third of that, 20 rounds of 70 leaves on 2
// threads. It reports the stage's peak RSS and peak Go heap (the datasets
// included: they are loaded before the stage and stay), and the peak RSS
// above what the process held when the stage began.
func BenchmarkStageMemoryPIOPT(b *testing.B) {
	train := mslrFold()
	vali := *train
	nv := train.NumQueries() / 3
	vali.QueryOffsets = train.QueryOffsets[:nv+1]
	vali.QIDs = train.QIDs[:nv]
	vali.Labels = train.Labels[:train.QueryOffsets[nv]]
	vali.Features = train.Features[:train.QueryOffsets[nv]*train.NumFeatures]
	tt, vt := piTargets(train, 3), piTargets(&vali, 3)
	p := Defaults()
	p.Trees, p.Threads, p.EarlyStopping = 20, 2, 10
	var heap, rss, base float64
	for b.Loop() {
		_, base = startPeakMemory(b).end(b)
		pm := startPeakMemory(b)
		tm, err := features.PIOPT(train, tt)
		if err != nil {
			b.Fatal(err)
		}
		vm, err := features.PIOPT(&vali, vt)
		if err != nil {
			b.Fatal(err)
		}
		model, err := Train(context.Background(), tm, vm, p, nil)
		if err != nil {
			b.Fatal(err)
		}
		model.Close()
		heap, rss = pm.end(b)
	}
	b.ReportMetric(rss, "peak-RSS-MB")
	b.ReportMetric(rss-base, "stage-RSS-MB")
	b.ReportMetric(heap, "peak-heap-MB")
}
