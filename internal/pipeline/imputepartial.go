package pipeline

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/internal/atomicfile"
)

// An impute partial (kind=impute) holds a shard's targets, already
// imputed: φ̄_x = Γ†(S_x/n_x) needs only context x's own statistics, and
// every context of a query is in the query's shard, so each query's rows
// are final in its shard and the Γ work, the costly part, is spread over
// the shards. Its body is the targets header the shard would write, then
// per logged query, in dataset order,
//
//	@<TAB>QUERY-INDEX<TAB>ROWS
//	ROWS target rows, as the targets file has them
//
// merge interleaves the queries in dataset order under the header with
// the shards' samples= added up (and gamma=, gamma-error-bound= and
// gamma-stderr= combined), which is the unsharded file, byte for byte.

// imputeTargetsKeys are the targets header's keys that differ between
// shards: merge combines them.
var imputeTargetsKeys = []string{"samples", "gamma", "gamma-error-bound", "gamma-stderr"}

// writeImputePartial writes the shard's targets tg as an impute partial.
func writeImputePartial(cfg ImputeConfig, tg *data.Targets, ds *data.Dataset, res *ImputeResult, policyHash string) error {
	var buf bytes.Buffer
	if err := data.WriteTargets(&buf, tg, ds); err != nil {
		return err
	}
	h := data.Header{"kind": "impute", "shard": cfg.Shard.String(), "samples": strconv.FormatInt(res.Impressions, 10),
		"logged": strconv.Itoa(res.Logged), "rows": strconv.Itoa(res.Rows), "units": strconv.Itoa(res.Units),
		"per-context": strconv.FormatBool(res.PerContext), "per-sample": strconv.FormatBool(cfg.PerSample)}
	if policyHash != "" {
		h[data.PolicyHashKey] = policyHash
	}
	pw, err := createPartial(cfg.Partial, h)
	if err != nil {
		return err
	}
	b := buf.Bytes()
	i := bytes.IndexByte(b, '\n') + 1
	if _, err := pw.Write(b[:i]); err != nil {
		pw.f.Abort()
		return err
	}
	b = b[i:]
	for r := 0; r < tg.Len(); {
		q := tg.Query[r]
		e := r
		for e < tg.Len() && tg.Query[e] == q {
			e++
		}
		end := 0
		for range e - r {
			end += bytes.IndexByte(b[end:], '\n') + 1
		}
		if _, err := fmt.Fprintf(pw, "@\t%d\t%d\n", q, e-r); err != nil {
			pw.f.Abort()
			return err
		}
		if _, err := pw.Write(b[:end]); err != nil {
			pw.f.Abort()
			return err
		}
		b, r = b[end:], e
	}
	return pw.commit()
}

// MergeResult summarises a merge.
type MergeResult struct {
	Kind        string // impute or evaluate
	Shards      int
	Impressions int64
	Logged      int
	Units       int
	PerContext  bool
	Rows        int
	Out         string
}

// WriteSummary writes what piopt merge prints on standard error.
func (r *MergeResult) WriteSummary(w io.Writer) {
	if r.Kind == "evaluate" {
		fmt.Fprintf(w, "merge: %d evaluate shards, %d impressions, %d contexts logged → %s\n", r.Shards, r.Impressions, r.Logged, r.Out)
		return
	}
	unit := "queries"
	if r.PerContext {
		unit = "contexts"
	}
	fmt.Fprintf(w, "merge: %d impute shards, %d impressions, %d of %d %s logged, %d target rows → %s\n", r.Shards, r.Impressions, r.Logged, r.Units, unit, r.Rows, r.Out)
}

// readPartials reads and checks every partial file.
func readPartials(paths []string, kind string) ([]*partialFile, error) {
	var parts []*partialFile
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		p, err := parsePartial(path, b)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		parts = append(parts, p)
	}
	if err := checkPartials(parts, kind); err != nil {
		return nil, err
	}
	return parts, nil
}

// targetsBlock is one query's rows in an impute partial.
type targetsBlock struct {
	q    int
	rows []byte
}

// imputeBody is an impute partial's body: the targets header and the
// queries' rows.
type imputeBody struct {
	header data.Header
	blocks []targetsBlock
	rows   int
}

// parseImputeBody reads an impute partial's body (lines from 2 on).
func parseImputeBody(name string, body []byte) (*imputeBody, error) {
	line, rest, ok := bytes.Cut(body, []byte{'\n'})
	if !ok {
		return nil, fmt.Errorf("%s: line 2: no targets header line", name)
	}
	h, err := data.ParseHeader(string(line), targetsMagic)
	if err != nil {
		return nil, fmt.Errorf("%s: line 2: %w", name, err)
	}
	out := &imputeBody{header: h}
	lineNo := 2
	for len(rest) > 0 {
		lineNo++
		head, r, ok := bytes.Cut(rest, []byte{'\n'})
		f := strings.Split(string(head), "\t")
		if !ok || len(f) != 3 || f[0] != "@" {
			return nil, fmt.Errorf("%s: line %d: want `@<TAB>QUERY<TAB>ROWS`", name, lineNo)
		}
		q, err1 := strconv.Atoi(f[1])
		n, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil || q < 0 || n < 1 || n > len(r) {
			return nil, fmt.Errorf("%s: line %d: bad query index or row count %q", name, lineNo, head)
		}
		if k := len(out.blocks); k > 0 && q <= out.blocks[k-1].q {
			return nil, fmt.Errorf("%s: line %d: query %d after query %d: not in dataset order", name, lineNo, q, out.blocks[k-1].q)
		}
		end := 0
		for range n {
			i := bytes.IndexByte(r[end:], '\n')
			if i < 0 || bytes.HasPrefix(r[end:], []byte("@\t")) {
				return nil, fmt.Errorf("%s: line %d: query %d has fewer than %d rows", name, lineNo, q, n)
			}
			end += i + 1
		}
		out.blocks = append(out.blocks, targetsBlock{q: q, rows: r[:end]})
		out.rows += n
		rest, lineNo = r[end:], lineNo+n
	}
	return out, nil
}

// MergeTargets merges the impute partials of every shard of a run into
// the targets file out: the bytes of the unsharded `impute --out`.
func MergeTargets(paths []string, out string) (*MergeResult, error) {
	parts, err := readPartials(paths, "impute")
	if err != nil {
		return nil, err
	}
	res := &MergeResult{Kind: "impute", Shards: len(parts), Out: out, PerContext: parts[0].header["per-context"] == "true"}
	res.Units, _ = strconv.Atoi(parts[0].header["units"])
	var bodies []*imputeBody
	for _, p := range parts {
		b, err := parseImputeBody(p.name, p.body)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		if key, ok := differingKey(bodies0(bodies, b).header, b.header, imputeTargetsKeys); !ok {
			return nil, fmt.Errorf("merge: %s and %s have different targets headers: %s=%q and %s=%q", parts[0].name, p.name, key, bodies0(bodies, b).header[key], key, b.header[key])
		}
		bodies = append(bodies, b)
		n, _ := strconv.ParseInt(p.header["samples"], 10, 64)
		res.Impressions += n
		res.Logged += len(b.blocks)
		res.Rows += b.rows
	}
	header := mergeTargetsHeader(bodies, res.Impressions)
	var blocks []targetsBlock
	for _, b := range bodies {
		blocks = append(blocks, b.blocks...)
	}
	slices.SortFunc(blocks, func(a, b targetsBlock) int { return a.q - b.q })
	for i := 1; i < len(blocks); i++ {
		if blocks[i].q == blocks[i-1].q {
			return nil, fmt.Errorf("merge: query %d is in two shards' partials: not of one run", blocks[i].q)
		}
	}
	f, err := atomicfile.Create(out)
	if err != nil {
		return nil, err
	}
	defer f.Abort()
	if _, err := io.WriteString(f, header.Format(targetsMagic)+"\n"); err != nil {
		return nil, err
	}
	for _, b := range blocks {
		if _, err := f.Write(b.rows); err != nil {
			return nil, err
		}
	}
	return res, f.Commit()
}

// bodies0 is the first body read (b when none is yet).
func bodies0(bodies []*imputeBody, b *imputeBody) *imputeBody {
	if len(bodies) > 0 {
		return bodies[0]
	}
	return b
}

// mergeTargetsHeader is the unsharded targets header: samples= the total,
// gamma= the union of the shards' methods (sorted, as GammaCache's
// Approximations lists them), and the largest error bound and standard
// error (each shard's is the largest of its Γ).
func mergeTargetsHeader(bodies []*imputeBody, samples int64) data.Header {
	h := bodies[0].header.Clone()
	h["samples"] = strconv.FormatInt(samples, 10)
	var methods []string
	for _, k := range imputeTargetsKeys[1:] {
		delete(h, k)
	}
	for _, b := range bodies {
		for _, m := range strings.Split(b.header["gamma"], ",") {
			if m != "" && !slices.Contains(methods, m) {
				methods = append(methods, m)
			}
		}
		for _, k := range imputeTargetsKeys[2:] {
			if v, ok := b.header[k]; ok && (h[k] == "" || parseOr0(v) > parseOr0(h[k])) {
				h[k] = v
			}
		}
	}
	if len(methods) > 0 {
		slices.Sort(methods)
		h["gamma"] = strings.Join(methods, ",")
	}
	return h
}

func parseOr0(s string) float64 {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.Inf(-1)
	}
	return x
}
