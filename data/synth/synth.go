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

	"github.com/piopt/piopt/internal/atomicfile"
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
		for i, v := range qd.feat[d*numFeatures : (d+1)*numFeatures] {
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
