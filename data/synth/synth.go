// Package synth generates learning-to-rank data shaped like MSLR-WEB10K, so
// that piopt's whole pipeline can run, and be tested, without the real data.
//
// Generate writes five partitions S1..S5 and five folds Fold1..Fold5, each
// {train,vali,test}.txt, rotating as MSLR does: FoldK trains on partitions
// K, K+1, K+2, validates on K+3 and tests on K+4 (mod 5), so Fold1 is
// S1+S2+S3 / S4 / S5 and Fold2 is S2+S3+S4 / S5 / S1. Lines are LETOR text,
// `<grade> qid:<q> 1:<v> ... 136:<v>`, dense like MSLR's.
//
// # Shape
//
// Documents per query are log-normal (mean ≈ 120, median ≈ 100, at most
// 908, MSLR-WEB10K's maximum). Query terms number 1..5. Features follow
// MSLR's layout: features 1..125 are 25 groups of 5 streams (body, anchor,
// title, url, whole document) — covered query terms (number, ratio), stream
// length, IDF, sum/min/max/mean/variance of TF, of length-normalised TF and
// of TF·IDF, boolean model, vector space model, BM25, LMIR.ABS, LMIR.DIR,
// LMIR.JM — all computed with their usual formulas from generated stream
// lengths and term counts, so they are integers where MSLR's are, heavy-
// tailed and often zero (a third of pages have no anchor text, most titles
// and URLs miss most terms). 126..136 are document-level: slashes and
// length of the URL, inlinks, outlinks, PageRank, SiteRank (shared by pages
// of one site), QualityScore, QualityScore2 and rare click counts.
//
// # Hidden relevance model
//
// Each document has four hidden properties, standard normal: topicality τ,
// content depth κ, authority α (partly shared by a site) and quality φ
// (correlated 0.3 with α); 4 % of pages are keyword-stuffing spam. Its
// relevance is
//
//	u = τ + 0.55κ + 0.35α + 0.25φ + 0.35·max(τ,0)·max(κ,0) − 2.5·spam + ε,  ε ~ N(0, 0.75²)
//
// and its grade counts the thresholds (0.07, 2.12, 4.12, 5.16) that
// u + 1.5ρ reaches, ρ ~ N(0,1) being how rich the query is in relevant
// pages. This gives grades 0..4 near MSLR-WEB10K's 52/32/13/2/1 %, about 1 %
// of queries without a relevant page, and NDCG@3 ≈ 0.15 for uniformly random
// slates, as on MSLR-WEB10K. 15 % of queries are navigational: one page gets
// τ + 2.5, α + 2 and a strong URL and title match.
//
// No feature shows u. Every stream's match with the query mixes τ with
// stream noise; body and title also carry κ, anchor and url carry α instead,
// QualityScore and QualityScore2 carry φ (and κ a little), links, PageRank
// and SiteRank carry α. Spam pages have eight times the body term counts.
// So a ranker on url-side features (anchor, url, 126..131) and one on
// body-side features (body, title, whole document, 132..133) disagree; a
// single feature ranks poorly, and a learner must combine streams, saturate
// counts and recognise spam (high body counts, poor quality scores) to do
// well. The noise ε bounds what any ranker can reach. Measured NDCG@3 (seed
// 1, 3000 queries; go test -run Calibration -synth.report): random 0.148,
// best single feature 0.345 (LMIR.ABS of anchors; BM25 of bodies 0.333),
// ranking by the noiseless u 0.869; gradient-boosted trees (XGBoost, 200
// trees of depth 6, squared loss on 2^grade − 1) trained on Fold1 of a
// 1000-query set reach 0.476 on its test fold.
//
// # Determinism
//
// Query q (qid q+1) is generated from its own PCG stream seeded by (seed,
// q), so queries are generated in parallel and the files are byte-identical
// for a seed whatever the number of threads.
package synth

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/piopt/piopt/data/atomicfile"
)

// DefaultQueries is the default size: about 120,000 documents, on which the
// five-fold experiment runs in minutes. 10000 gives MSLR-WEB10K's size.
const DefaultQueries = 1000

// Config says what to generate.
type Config struct {
	Queries int    // over the five partitions; at least 5
	Seed    uint64 // same seed, same bytes
	Threads int    // 0: all cores; the output does not depend on it
	// Progress, when set, is called with the number of queries generated.
	Progress func(done, total int)
}

// File is one written file.
type File struct {
	Path  string
	Bytes int64
}

// Result summarises what Generate wrote.
type Result struct {
	Queries, Docs int
	Files         []File
	Bytes         int64 // over all files
}

// Partition returns the queries [lo, hi) (0-based) of partition k = 0..4.
func Partition(queries, k int) (lo, hi int) {
	return k * queries / 5, (k + 1) * queries / 5
}

// FoldParts returns the partitions (0-based) of fold k = 0..4: three for
// train, then vali, then test.
func FoldParts(k int) (train [3]int, vali, test int) {
	return [3]int{k, (k + 1) % 5, (k + 2) % 5}, (k + 3) % 5, (k + 4) % 5
}

// Generate writes S1..S5.txt and Fold1..Fold5/{train,vali,test}.txt under
// dir, each file atomically.
func Generate(ctx context.Context, dir string, cfg Config) (Result, error) {
	if cfg.Queries < 5 {
		return Result{}, fmt.Errorf("synth: %d queries; five partitions need at least 5", cfg.Queries)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Result{}, err
	}
	var res Result
	res.Queries = cfg.Queries
	done := 0
	for k := range 5 {
		lo, hi := Partition(cfg.Queries, k)
		path := filepath.Join(dir, fmt.Sprintf("S%d.txt", k+1))
		c := cfg
		if cfg.Progress != nil {
			base := done
			c.Progress = func(n, _ int) { cfg.Progress(base+n, cfg.Queries) }
		}
		f, docs, err := writeQueries(ctx, path, c, lo, hi)
		if err != nil {
			return res, err
		}
		done += hi - lo
		res.Docs += docs
		res.Files = append(res.Files, f)
		res.Bytes += f.Bytes
	}
	for k := range 5 {
		train, vali, test := FoldParts(k)
		fd := filepath.Join(dir, fmt.Sprintf("Fold%d", k+1))
		if err := os.MkdirAll(fd, 0o755); err != nil {
			return res, err
		}
		for _, out := range []struct {
			name  string
			parts []int
		}{{"train.txt", train[:]}, {"vali.txt", []int{vali}}, {"test.txt", []int{test}}} {
			var srcs []string
			for _, p := range out.parts {
				srcs = append(srcs, res.Files[p].Path)
			}
			f, err := concat(filepath.Join(fd, out.name), srcs)
			if err != nil {
				return res, err
			}
			res.Files = append(res.Files, f)
			res.Bytes += f.Bytes
		}
	}
	return res, nil
}

// WriteFile writes all cfg.Queries queries into one LETOR file.
func WriteFile(ctx context.Context, path string, cfg Config) (File, error) {
	if cfg.Queries < 1 {
		return File{}, fmt.Errorf("synth: %d queries", cfg.Queries)
	}
	f, _, err := writeQueries(ctx, path, cfg, 0, cfg.Queries)
	return f, err
}

func concat(path string, srcs []string) (File, error) {
	af, err := atomicfile.Create(path)
	if err != nil {
		return File{}, err
	}
	defer af.Abort()
	var n int64
	for _, s := range srcs {
		in, err := os.Open(s)
		if err != nil {
			return File{}, err
		}
		m, err := io.Copy(af.W, in)
		in.Close()
		if err != nil {
			return File{}, fmt.Errorf("write %s: %w", path, err)
		}
		n += m
	}
	return File{path, n}, af.Commit()
}

// writeQueries generates queries [lo, hi) in parallel, in blocks, and writes
// them in order.
func writeQueries(ctx context.Context, path string, cfg Config, lo, hi int) (File, int, error) {
	af, err := atomicfile.Create(path)
	if err != nil {
		return File{}, 0, err
	}
	defer af.Abort()
	threads := cfg.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	const perBlock = 8
	type block struct {
		lo, hi int
		buf    []byte
		docs   int
		done   chan struct{}
	}
	order := make(chan *block, 4*threads)
	jobs := make(chan *block)
	quit := make(chan struct{})
	go func() {
		defer close(order)
		defer close(jobs)
		for b := lo; b < hi; b += perBlock {
			blk := &block{lo: b, hi: min(b+perBlock, hi), done: make(chan struct{})}
			select {
			case jobs <- blk:
			case <-quit:
				return
			}
			select {
			case order <- blk:
			case <-quit:
				return
			}
		}
	}()
	for range threads {
		go func() {
			var qd queryData
			for blk := range jobs {
				for q := blk.lo; q < blk.hi; q++ {
					genQuery(cfg.Seed, q, &mslrGrading, &qd)
					blk.buf = appendQuery(blk.buf, &qd)
					blk.docs += len(qd.labels)
				}
				close(blk.done)
			}
		}()
	}
	var n int64
	docs := 0
	for blk := range order {
		<-blk.done
		if err == nil {
			err = ctx.Err()
		}
		if err == nil {
			_, err = af.Write(blk.buf)
			n += int64(len(blk.buf))
			docs += blk.docs
			if cfg.Progress != nil {
				cfg.Progress(blk.hi-lo, hi-lo)
			}
		}
		if err != nil {
			select {
			case <-quit:
			default:
				close(quit)
			}
		}
	}
	if err != nil {
		return File{}, 0, fmt.Errorf("write %s: %w", path, err)
	}
	return File{path, n}, docs, af.Commit()
}

// appendQuery appends the query's documents as LETOR lines.
func appendQuery(buf []byte, qd *queryData) []byte {
	for d, l := range qd.labels {
		buf = strconv.AppendInt(buf, int64(l), 10)
		buf = append(buf, " qid:"...)
		buf = strconv.AppendInt(buf, int64(qd.qid), 10)
		for i, v := range qd.feat[d*NumFeatures : (d+1)*NumFeatures] {
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(i+1), 10)
			buf = append(buf, ':')
			buf = appendValue(buf, v)
		}
		buf = append(buf, '\n')
	}
	return buf
}

// appendValue writes integers as integers and other values with at most six
// decimals, as MSLR does ("3", "0.019231", "-18.567793").
func appendValue(buf []byte, v float64) []byte {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.AppendInt(buf, int64(v), 10)
	}
	n := len(buf)
	buf = strconv.AppendFloat(buf, v, 'f', 6, 64)
	for buf[len(buf)-1] == '0' {
		buf = buf[:len(buf)-1]
	}
	if buf[len(buf)-1] == '.' {
		buf = buf[:len(buf)-1]
	}
	if s := buf[n:]; len(s) == 2 && s[0] == '-' && s[1] == '0' {
		buf = append(buf[:n], '0')
	}
	return buf
}
