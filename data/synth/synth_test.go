package synth

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
)

func generate(t *testing.T, cfg Config) (string, Result) {
	t.Helper()
	dir := t.TempDir()
	res, err := Generate(context.Background(), dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dir, res
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestGenerateDeterministic(t *testing.T) {
	a, ra := generate(t, Config{Queries: 23, Seed: 7, Threads: 1})
	b, rb := generate(t, Config{Queries: 23, Seed: 7, Threads: 3})
	if len(ra.Files) != 20 || ra.Bytes != rb.Bytes || ra.Docs != rb.Docs {
		t.Fatalf("%d files, %d vs %d bytes", len(ra.Files), ra.Bytes, rb.Bytes)
	}
	var total int64
	for _, f := range ra.Files {
		rel, _ := filepath.Rel(a, f.Path)
		x, y := read(t, f.Path), read(t, filepath.Join(b, rel))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between 1 and 3 threads", rel)
		}
		if int64(len(x)) != f.Bytes {
			t.Errorf("%s: %d bytes, reported %d", rel, len(x), f.Bytes)
		}
		total += f.Bytes
	}
	if total != ra.Bytes {
		t.Errorf("total %d, reported %d", total, ra.Bytes)
	}
	c, _ := generate(t, Config{Queries: 23, Seed: 8})
	if bytes.Equal(read(t, filepath.Join(a, "S1.txt")), read(t, filepath.Join(c, "S1.txt"))) {
		t.Error("seeds 7 and 8 give the same S1.txt")
	}
}

func TestGenerateFolds(t *testing.T) {
	dir, res := generate(t, Config{Queries: 12, Seed: 1})
	s := func(k int) []byte { return read(t, filepath.Join(dir, fmt.Sprintf("S%d.txt", k))) }
	cat := func(ks ...int) []byte {
		var b []byte
		for _, k := range ks {
			b = append(b, s(k)...)
		}
		return b
	}
	// MSLR's rotation, written out.
	want := map[string][]byte{
		"Fold1/train.txt": cat(1, 2, 3), "Fold1/vali.txt": s(4), "Fold1/test.txt": s(5),
		"Fold2/train.txt": cat(2, 3, 4), "Fold2/vali.txt": s(5), "Fold2/test.txt": s(1),
		"Fold3/train.txt": cat(3, 4, 5), "Fold3/vali.txt": s(1), "Fold3/test.txt": s(2),
		"Fold4/train.txt": cat(4, 5, 1), "Fold4/vali.txt": s(2), "Fold4/test.txt": s(3),
		"Fold5/train.txt": cat(5, 1, 2), "Fold5/vali.txt": s(3), "Fold5/test.txt": s(4),
	}
	for name, w := range want {
		if !bytes.Equal(read(t, filepath.Join(dir, name)), w) {
			t.Errorf("%s is not the expected partitions", name)
		}
	}
	// Partitions split the queries 12 → 2,2,3,2,3 with qids 1..12 in order.
	var qids []string
	docs := 0
	for k := 1; k <= 5; k++ {
		ds, err := data.Load(filepath.Join(dir, fmt.Sprintf("S%d.txt", k)), data.ReadOptions{NoCache: true})
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := Partition(12, k-1)
		if ds.NumQueries() != hi-lo || ds.NumFeatures != numFeatures {
			t.Errorf("S%d: %d queries, %d features", k, ds.NumQueries(), ds.NumFeatures)
		}
		qids = append(qids, ds.QIDs...)
		docs += ds.NumDocs()
	}
	if fmt.Sprint(qids) != "[1 2 3 4 5 6 7 8 9 10 11 12]" || docs != res.Docs {
		t.Errorf("qids %v, %d docs (reported %d)", qids, docs, res.Docs)
	}
	if _, err := Generate(context.Background(), t.TempDir(), Config{Queries: 4}); err == nil {
		t.Error("4 queries accepted for 5 partitions")
	}
}

func TestGenerateCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	if _, err := Generate(ctx, dir, Config{Queries: 100}); err == nil {
		t.Fatal("no error after cancel")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.txt")); len(m) != 0 {
		t.Errorf("cancelled run left %v", m)
	}
}

func TestAppendValue(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0", 3: "3", 11089534: "11089534", -2: "-2", 0.5: "0.5", 6.931275: "6.931275",
		-18.5677931: "-18.567793", 0.0000004: "0", -0.0000004: "0", 1.0000001: "1", 0.12345651: "0.123457",
		math.Copysign(0, -1): "0",
	} {
		if got := string(appendValue(nil, v)); got != want {
			t.Errorf("appendValue(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestNumDocs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	sum, lo, hi := 0, maxDocs, 0
	const n = 200_000
	for range n {
		m := numDocs(r)
		sum += m
		lo, hi = min(lo, m), max(hi, m)
	}
	mean := float64(sum) / n
	if mean < 115 || mean > 125 || lo < 1 || hi > maxDocs || hi < 700 {
		t.Errorf("docs per query: mean %.1f, range %d..%d", mean, lo, hi)
	}
}

// TestShape checks the generated data against MSLR-WEB10K's shape and the
// calibration the package doc promises.
func TestShape(t *testing.T) {
	m := measureSynth(&mslrGrading, 3, 1000)
	shares := []float64{0.52, 0.32, 0.13, 0.02, 0.01}
	tol := []float64{0.02, 0.02, 0.015, 0.006, 0.004}
	for g, n := range m.hist {
		if got := float64(n) / float64(m.docs); math.Abs(got-shares[g]) > tol[g] {
			t.Errorf("grade %d: %.2f%% of documents, want %.0f%% ± %.1f", g, 100*got, 100*shares[g], 100*tol[g])
		}
	}
	if mean := float64(m.docs) / float64(m.queries); mean < 110 || mean > 130 || m.maxDocs > maxDocs {
		t.Errorf("%.1f documents per query on average, at most %d", mean, m.maxDocs)
	}
	best := 0.0
	for _, v := range m.feature {
		best = max(best, v)
	}
	t.Logf("NDCG@3: random %.3f, best single feature %.3f, hidden relevance %.3f", m.random, best, m.latent)
	if m.random < 0.13 || m.random > 0.17 {
		t.Errorf("random NDCG@3 %.3f, want ≈ 0.15 as on MSLR-WEB10K", m.random)
	}
	if best < 0.25 || best > 0.4 {
		t.Errorf("best single feature NDCG@3 %.3f: want a weak but real signal", best)
	}
	if m.latent < best+0.3 {
		t.Errorf("hidden relevance NDCG@3 %.3f is not far above the best feature's %.3f", m.latent, best)
	}
}

// TestStreams checks the feature layout and that body-side and url-side
// rankers disagree.
func TestStreams(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "q.txt")
	if _, err := WriteFile(context.Background(), path, Config{Queries: 60, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	ds, err := data.Load(path, data.ReadOptions{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if ds.NumFeatures != numFeatures || ds.MaxQuerySize() > maxDocs {
		t.Fatalf("%d features, %d max docs", ds.NumFeatures, ds.MaxQuerySize())
	}
	f := func(d, k int) float64 { return float64(ds.Row(d)[k-1]) } // 1-based feature k
	isInt := func(v float64) bool { return v == math.Trunc(v) }
	integer := []int{}
	for s := 1; s <= 5; s++ {
		for _, g := range []int{0, 2, 4, 5, 6, 19} { // covered, length, sum/min/max TF, boolean
			integer = append(integer, 5*g+s)
		}
	}
	integer = append(integer, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135)
	zeros := 0
	overlap, n := 0.0, 0
	for q := range ds.NumQueries() {
		lo, hi := ds.Query(q)
		for d := lo; d < hi; d++ {
			for s := 1; s <= 5; s++ {
				if f(d, 15+s) != f(lo, 15+s) {
					t.Fatalf("query %s: IDF of stream %d differs between documents", ds.QIDs[q], s)
				}
				covered, ratio := f(d, s), f(d, 5+s)
				if ratio == 1 != (f(d, 95+s) == 1) || (covered == 0) != (ratio == 0) || f(d, 25+s) > f(d, 30+s) {
					t.Fatalf("doc %d stream %d: covered %v ratio %v boolean %v", d, s, covered, ratio, f(d, 95+s))
				}
			}
			if f(d, 15) != f(d, 11)+f(d, 12)+f(d, 13)+f(d, 14) || f(d, 25) != f(d, 21)+f(d, 22)+f(d, 23)+f(d, 24) {
				t.Fatalf("doc %d: whole-document length or TF is not the sum of the streams", d)
			}
			for _, k := range integer {
				if !isInt(f(d, k)) || f(d, k) < 0 {
					t.Fatalf("doc %d: feature %d = %v, want a count", d, k, f(d, k))
				}
			}
			if f(d, 112) >= 0 || f(d, 117) >= 0 {
				t.Fatalf("doc %d: LMIR scores must be log-probabilities", d)
			}
			for k := 1; k <= numFeatures; k++ {
				if f(d, k) == 0 {
					zeros++
				}
			}
		}
		// Top-3 of body BM25 (106) against anchor BM25 (107).
		if hi-lo >= 10 {
			top := func(k int) map[int]bool {
				o := make([]int, hi-lo)
				for i := range o {
					o[i] = lo + i
				}
				sort.SliceStable(o, func(a, b int) bool { return f(o[a], k) > f(o[b], k) })
				return map[int]bool{o[0]: true, o[1]: true, o[2]: true}
			}
			a, b := top(106), top(107)
			common := 0
			for d := range a {
				if b[d] {
					common++
				}
			}
			overlap += float64(common) / 3
			n++
		}
	}
	if share := float64(zeros) / float64(len(ds.Features)); share < 0.2 {
		t.Errorf("only %.0f%% of feature values are 0; MSLR's are sparse", 100*share)
	}
	if overlap /= float64(n); overlap > 0.4 {
		t.Errorf("body and anchor BM25 share %.0f%% of their top 3: rankers on different streams must disagree", 100*overlap)
	}
	t.Logf("zeros %.0f%%, top-3 overlap of body and anchor BM25 %.0f%%", 100*float64(zeros)/float64(len(ds.Features)), 100*overlap)
	if strings.Contains(string(read(t, path)[:2000]), "\r") {
		t.Error("CR in output")
	}
}
