package synth

import (
	"flag"
	"fmt"
	"sort"
	"testing"

	"github.com/piopt/piopt/eval"
)

// The calibration report: go test ./data/synth -run Calibration -synth.report
// [-synth.queries N] [-synth.shift S]. With -synth.shift it first sets the
// query shift and recomputes the grade thresholds as the quantiles that give
// 52/32/13/2/1 %, printing them for model.go.
var report = flag.Bool("synth.report", false, "print the calibration report of the generator")

// measure holds what calibration looks at.
type measure struct {
	queries, docs, maxDocs int
	hist                   [5]int
	noRel                  int
	random, latent         float64 // mean NDCG@3
	feature                [numFeatures]float64
	values                 []float64
}

func ndcgOrder(labels []uint8, score []float64, c eval.Conventions) float64 {
	o := make([]int32, len(labels))
	for i := range o {
		o[i] = int32(i)
	}
	sort.SliceStable(o, func(a, b int) bool { return score[o[a]] > score[o[b]] })
	return eval.NDCG(labels, o, 3, c)
}

func measureSynth(gr *grading, seed uint64, queries int) measure {
	var m measure
	c := eval.Conventions{MaxRel: 4}
	var qd queryData
	col := make([]float64, maxDocs)
	for q := range queries {
		genQuery(seed, q, gr, &qd)
		n := len(qd.labels)
		m.queries++
		m.docs += n
		m.maxDocs = max(m.maxDocs, n)
		rel := false
		for _, l := range qd.labels {
			m.hist[l]++
			rel = rel || l > 0
		}
		if !rel {
			m.noRel++
		}
		m.values = append(m.values, qd.value...)
		m.random += eval.RandomNDCG(qd.labels, 3, c)
		m.latent += ndcgOrder(qd.labels, qd.score, c)
		for f := range numFeatures {
			for d := range n {
				col[d] = qd.feat[d*numFeatures+f]
			}
			m.feature[f] += ndcgOrder(qd.labels, col[:n], c)
		}
	}
	nq := float64(m.queries)
	m.random /= nq
	m.latent /= nq
	for f := range m.feature {
		m.feature[f] /= nq
	}
	return m
}

var (
	nqFlag    = flag.Int("synth.queries", 2000, "queries of the calibration report")
	shiftFlag = flag.Float64("synth.shift", 0, "query shift to calibrate thresholds for")
)

func TestCalibrationReport(t *testing.T) {
	if !*report {
		t.Skip("run with -synth.report to print the generator's calibration")
	}
	gr := mslrGrading
	if *shiftFlag != 0 {
		gr.shift = *shiftFlag
		m := measureSynth(&gr, 1, *nqFlag)
		sort.Float64s(m.values)
		for i, p := range []float64{0.52, 0.84, 0.97, 0.99} {
			gr.thresholds[i] = m.values[int(p*float64(len(m.values)))]
		}
		fmt.Println("thresholds", gr.thresholds)
	}
	m := measureSynth(&gr, 1, *nqFlag)
	fmt.Printf("queries %d docs %d mean %.1f max %d\n", m.queries, m.docs, float64(m.docs)/float64(m.queries), m.maxDocs)
	for g, n := range m.hist {
		fmt.Printf("grade %d: %.2f%%\n", g, 100*float64(n)/float64(m.docs))
	}
	fmt.Printf("no relevant: %.1f%%\n", 100*float64(m.noRel)/float64(m.queries))
	fmt.Printf("NDCG@3 random %.3f latent %.3f\n", m.random, m.latent)
	type fv struct {
		f int
		v float64
	}
	var fs []fv
	for f, v := range m.feature {
		fs = append(fs, fv{f + 1, v})
	}
	sort.Slice(fs, func(a, b int) bool { return fs[a].v > fs[b].v })
	for _, x := range fs[:8] {
		fmt.Printf("feature %3d: %.3f\n", x.f, x.v)
	}
	names := []string{"body", "anchor", "title", "url", "whole"}
	for s := range 5 {
		best, bf := 0.0, 0
		for g := range 25 {
			if v := m.feature[5*g+s]; v > best {
				best, bf = v, 5*g+s+1
			}
		}
		fmt.Printf("best %-6s feature %3d: %.3f\n", names[s], bf, best)
	}
	for f := 126; f <= 136; f++ {
		fmt.Printf("doc feature %d: %.3f\n", f, m.feature[f-1])
	}
	sort.Float64s(m.values)
	for _, p := range []float64{0.52, 0.84, 0.97, 0.99} {
		fmt.Printf("quantile %.2f of u+shift: %.3f\n", p, m.values[int(p*float64(len(m.values)))])
	}
}
