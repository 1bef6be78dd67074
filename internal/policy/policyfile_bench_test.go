package policy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/ope"
)

// Real-log scale of the benchmarks: 10^7 impressions over 10^4 contexts
// (one per query of 50 documents) that share 100 Plackett–Luce policies
// (m = 50, ℓ = 5).
const (
	benchContexts = 10000
	benchDistinct = 100
	benchM        = 50
	benchSlots    = 5
	benchSamples  = 10_000_000
)

// benchRealLog returns the dataset and the policy file of the benchmarks.
func benchRealLog(b *testing.B) (*data.Dataset, *data.PolicyFile) {
	b.Helper()
	var db strings.Builder
	for q := range benchContexts {
		for d := range benchM {
			fmt.Fprintf(&db, "%d qid:%d 1:%d\n", d%3, q, d)
		}
	}
	ds, err := data.Read(strings.NewReader(db.String()), "bench.txt", data.DefaultReadOptions())
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	scores := make([][]float64, benchDistinct)
	for k := range scores {
		scores[k] = make([]float64, benchM)
		for a := range scores[k] {
			scores[k][a] = rng.NormFloat64()
		}
	}
	var pb strings.Builder
	pb.WriteString("# piopt-policy v1 slots=" + strconv.Itoa(benchSlots) + "\n")
	for q := range benchContexts {
		fmt.Fprintf(&pb, "%d\tpl:1\t", q)
		for a, s := range scores[q%benchDistinct] {
			if a > 0 {
				pb.WriteByte(',')
			}
			fmt.Fprintf(&pb, "%d:%.6f", a, s)
		}
		pb.WriteByte('\n')
	}
	pf, err := data.ReadPolicy(strings.NewReader(pb.String()), "bench.policy", ds)
	if err != nil {
		b.Fatal(err)
	}
	return ds, pf
}

// syntheticLog streams n log lines drawn from the contexts' policies
// without holding the log in memory.
type syntheticLog struct {
	c      *impute.Candidates
	gammas *impute.GammaCache
	n      int64
	rng    *rand.PCG
	pick   *rand.Rand
	slate  []int32
	buf    bytes.Buffer
	header bool
}

func (s *syntheticLog) Read(p []byte) (int, error) {
	for s.buf.Len() < len(p) && s.n > 0 {
		if !s.header {
			fmt.Fprintf(&s.buf, "# piopt-log v1 slots=%d policy=bench.policy\n", benchSlots)
			s.header = true
		}
		q := s.pick.IntN(s.c.NumQueries())
		s.gammas.Dist(q).Sample(s.rng, s.slate)
		b := s.buf.AvailableBuffer()
		b = strconv.AppendInt(b, int64(q), 10)
		b = append(b, '\t')
		for j, a := range s.slate {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(s.c.Docs(q)[a]), 10)
		}
		b = append(b, "\t0.5\n"...)
		s.buf.Write(b)
		s.n--
	}
	if s.buf.Len() == 0 {
		return 0, io.EOF
	}
	return s.buf.Read(p)
}

// benchLog writes the 10^7 impressions to a file once and returns a
// function opening it, so that the benchmarks time reading, not drawing.
func benchLog(b *testing.B, ds *data.Dataset, c *impute.Candidates, gc *impute.GammaCache) func() *data.LogReader {
	b.Helper()
	path := filepath.Join(b.TempDir(), "bench.log")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	src := &syntheticLog{c: c, gammas: gc, n: benchSamples, rng: rand.NewPCG(3, 4), pick: rand.New(rand.NewPCG(5, 6)), slate: make([]int32, benchSlots)}
	if _, err := io.Copy(f, src); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return func() *data.LogReader {
		lr, err := data.OpenLog(path, ds)
		if err != nil {
			b.Fatal(err)
		}
		lr.SetContexts()
		return lr
	}
}

// benchPolicies builds the contexts and a fresh Γ cache, and on the first
// call the log file.
func benchPolicies(b *testing.B, ds *data.Dataset, pf *data.PolicyFile, open *func() *data.LogReader) (*impute.Candidates, *impute.GammaCache) {
	c, gc, err := Setup{Slots: benchSlots, Policy: pf}.Policies(context.Background(), ds, Options{}, impute.GammaOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if *open == nil {
		*open = benchLog(b, ds, c, gc)
	}
	return c, gc
}

// warmGammas computes every context's Γ and returns the time it took (the
// 100 distinct pseudoinverses; the rest are cache hits).
func warmGammas(b *testing.B, c *impute.Candidates, gc *impute.GammaCache) time.Duration {
	start := time.Now()
	for q := range c.NumQueries() {
		if _, err := gc.Query(q, c.Size(q), c.Slots(q, benchSlots)); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

// BenchmarkImputeRealLog reads 10^7 impressions of a policy file's 10^4
// contexts (100 distinct pl policies, m = 50, ℓ = 5) into statistics and
// computes the targets; it reports impressions per second of the whole
// and the seconds spent on Γ.
func BenchmarkImputeRealLog(b *testing.B) {
	ds, pf := benchRealLog(b)
	var open func() *data.LogReader
	for range b.N {
		c, gc := benchPolicies(b, ds, pf, &open)
		lr := open()
		start := time.Now()
		st, err := impute.NewStats(c, benchSlots)
		if err != nil {
			b.Fatal(err)
		}
		if err := st.AddLog(context.Background(), lr, nil); err != nil {
			b.Fatal(err)
		}
		read := time.Since(start)
		lr.Close()
		gt := warmGammas(b, c, gc)
		if _, err := impute.ComputeTargets(context.Background(), st, gc, impute.TargetOptions{}); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(benchSamples/read.Seconds(), "impressions/s")
		b.ReportMetric(gt.Seconds(), "gamma-s")
		b.ReportMetric(float64(len(gc.All())), "gammas")
	}
}

// BenchmarkEvaluateRealLog evaluates a deterministic target (the first ℓ
// candidates of every context) with PI, wPI, IPS, wIPS and a 200-replicate
// bootstrap from the same 10^7 impressions; it reports impressions per
// second of the log pass and the seconds of the plan (Γ included).
func BenchmarkEvaluateRealLog(b *testing.B) {
	ds, pf := benchRealLog(b)
	var open func() *data.LogReader
	for range b.N {
		c, gc := benchPolicies(b, ds, pf, &open)
		start := time.Now()
		first := []int32{0, 1, 2, 3, 4}
		target, err := ope.NewDeterministicTarget("first", c, benchSlots, func(int) []int32 { return first })
		if err != nil {
			b.Fatal(err)
		}
		gt := warmGammas(b, c, gc)
		plan, err := ope.Prepare(context.Background(), ope.Setup{Candidates: c, Gammas: gc, Slots: benchSlots, Target: target})
		if err != nil {
			b.Fatal(err)
		}
		prep := time.Since(start)
		est, _ := ope.ParseEstimators("pi,wpi,ips,wips")
		ev, err := plan.NewEvaluator(ope.EvalOptions{Estimators: est,
			Intervals: ope.Intervals{Delta: 0.05, RewardHi: 1, Bootstrap: 200}})
		if err != nil {
			b.Fatal(err)
		}
		lr := open()
		start = time.Now()
		if err := ev.AddLog(context.Background(), lr, nil); err != nil {
			b.Fatal(err)
		}
		lr.Close()
		if _, err := ev.Result(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(benchSamples/time.Since(start).Seconds(), "impressions/s")
		b.ReportMetric(prep.Seconds(), "plan-s")
		b.ReportMetric(gt.Seconds(), "gamma-s")
	}
}
