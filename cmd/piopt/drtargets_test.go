package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/piopt/piopt/trainer"
	"gonum.org/v1/gonum/mat"
)

// tsvRows splits a file's lines that are not comments into tab-separated
// fields.
func tsvRows(t *testing.T, path string) [][]string {
	t.Helper()
	var out [][]string
	sc := bufio.NewScanner(bytes.NewReader(mustRead(t, path)))
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, strings.Split(line, "\t"))
		}
	}
	return out
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// uniformPinv is Γ† of uniform slates of l of m candidates, from Γ
// enumerated slate by slate and gonum's SVD: independent of impute's
// closed form.
func uniformPinv(m, l int) *mat.Dense {
	n := l * m
	g := mat.NewDense(n, n, nil)
	var slates [][]int
	var rec func(s []int)
	rec = func(s []int) {
		if len(s) == l {
			slates = append(slates, append([]int(nil), s...))
			return
		}
	next:
		for a := range m {
			for _, b := range s {
				if a == b {
					continue next
				}
			}
			rec(append(s, a))
		}
	}
	rec(nil)
	p := 1 / float64(len(slates))
	for _, s := range slates {
		for j, a := range s {
			for k, b := range s {
				g.Set(j*m+a, k*m+b, g.At(j*m+a, k*m+b)+p)
			}
		}
	}
	var svd mat.SVD
	svd.Factorize(g, mat.SVDFull)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	sv := svd.Values(nil)
	inv := mat.NewDense(n, n, nil)
	for i, s := range sv {
		if s <= 1e-10*sv[0] {
			continue
		}
		for r := range n {
			for c := range n {
				inv.Set(r, c, inv.At(r, c)+v.At(r, i)*u.At(c, i)/s)
			}
		}
	}
	return inv
}

// impute --targets-kind dr --baseline model:PATH writes, row by row, the
// doubly-robust targets φ̄ + Γ†·mean_i[(r_i − 1_{s_i}ᵀφ̄)·1_{s_i}] computed
// here from the log, the model's own predictions (piopt predict) and Γ†
// by SVD; its header says so, where PI targets' header has no new key.
func TestImputeDRTargets(t *testing.T) {
	if !trainer.Available {
		t.Skip("the baseline model is trained with XGBoost")
	}
	dir, common := letorCommand(t, letorSpec{file: "d.txt", seed: 4, queries: 12, minDocs: 2, maxDocs: 6, qid0: 1})
	at := func(name string) string { return filepath.Join(dir, name) }
	run := func(args ...string) {
		t.Helper()
		if err := runPiopt(t, append(args, common...)...); err != nil {
			t.Fatal(err)
		}
	}
	run("simulate", "--slots", "2", "--logging", "uniform", "--samples", "3000", "--seed", "1", "--out", at("a.log"))
	run("impute", "--logs", at("a.log"), "--out", at("a.targets"))
	run("train", "--targets", at("a.targets"), "--trees", "8", "--out", at("m.model"))
	run("predict", "--model", at("m.model"), "--out", at("m.scores"))
	run("simulate", "--slots", "2", "--logging", "uniform", "--samples", "2000", "--seed", "2", "--out", at("b.log"))
	run("impute", "--logs", at("b.log"), "--out", at("pi.targets"))
	run("impute", "--logs", at("b.log"), "--targets-kind", "dr", "--baseline", "model:"+at("m.model"), "--out", at("dr.targets"))

	phibar := map[string]float64{} // qid/doc/slot → φ̄
	for _, r := range tsvRows(t, at("m.scores")) {
		phibar[r[0]+"/"+r[1]+"/"+r[2]] = atof(t, r[3])
	}
	type query struct {
		docs  int
		n     float64
		theta []float64 // Σ_i (r_i − 1_{s_i}ᵀφ̄)·1_{s_i}, index j·m + a
	}
	queries := map[string]*query{}
	size := map[string]int{}
	for _, r := range tsvRows(t, at("m.scores")) {
		if r[2] == "1" {
			size[r[0]]++
		}
	}
	for _, r := range tsvRows(t, at("b.log")) {
		qid, docs := r[0], strings.Split(r[1], ",")
		q := queries[qid]
		if q == nil {
			q = &query{docs: size[qid], theta: make([]float64, len(docs)*size[qid])}
			queries[qid] = q
		}
		res := atof(t, r[2])
		for j, d := range docs {
			res -= phibar[fmt.Sprintf("%s/%s/%d", qid, d, j+1)]
		}
		for j, d := range docs {
			a, _ := strconv.Atoi(d)
			q.theta[j*q.docs+a] += res
		}
		q.n++
	}
	rows := tsvRows(t, at("dr.targets"))
	checked := 0
	for qid, q := range queries {
		l := len(q.theta) / q.docs
		inv := uniformPinv(q.docs, l)
		want := map[string]float64{}
		for i := range l * q.docs {
			v := 0.0
			for k, th := range q.theta {
				v += inv.At(i, k) * th / q.n
			}
			j, a := i/q.docs, i%q.docs
			key := fmt.Sprintf("%s/%d/%d", qid, a, j+1)
			want[key] = phibar[key] + v
		}
		for _, r := range rows {
			if r[0] != qid {
				continue
			}
			key := r[0] + "/" + r[1] + "/" + r[2]
			if got := atof(t, r[3]); math.Abs(got-want[key]) > 1e-9 {
				t.Errorf("%s: dr target %.12g, want %.12g", key, got, want[key])
			}
			if got := atof(t, r[4]); math.Abs(got-1/float64(l*q.docs)) > 1e-15 {
				t.Errorf("%s: weight %v, want 1/(ℓm)", key, got)
			}
			checked++
		}
	}
	if pi := tsvRows(t, at("pi.targets")); checked == 0 || checked != len(rows) || len(pi) != len(rows) {
		t.Fatalf("%d rows checked of %d (pi targets: %d)", checked, len(rows), len(pi))
	}
	head := strings.SplitN(string(mustRead(t, at("dr.targets"))), "\n", 2)[0]
	if !strings.Contains(head, " baseline=model:m.model ") || !strings.HasSuffix(head, " targets-kind=dr") || strings.Contains(head, "baseline-folds") {
		t.Errorf("dr header %q", head)
	}
	if head := strings.SplitN(string(mustRead(t, at("pi.targets"))), "\n", 2)[0]; strings.Contains(head, "targets-kind") || strings.Contains(head, "baseline") {
		t.Errorf("pi header %q", head)
	}
}

// impute --targets-kind dr cross-fits φ̄ by default (--baseline-folds K
// in the header), also with --samples; the flags are checked before any
// work.
func TestImputeDRCrossfit(t *testing.T) {
	if !trainer.Available {
		t.Skip("the cross-fitted baseline trains with XGBoost")
	}
	dir, common := letorCommand(t, letorSpec{file: "d.txt", seed: 6, queries: 16, minDocs: 3, maxDocs: 8, qid0: 1})
	at := func(name string) string { return filepath.Join(dir, name) }
	sim := []string{"--samples", "4000", "--slots", "3", "--logging", "uniform"}
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{nil, ""},
		{[]string{"--baseline-folds", "3"}, ""},
		{[]string{"--targets-kind", "ips"}, `--targets-kind "ips": want pi or dr`},
		{[]string{"--targets-kind", "pi", "--baseline-folds", "3"}, "--baseline-folds is the reward model of --targets-kind dr"},
		{[]string{"--baseline-folds", "1"}, "--baseline-folds 1: cross-fitting needs at least 2 folds"},
		{[]string{"--baseline", "tree"}, `--baseline "tree": want crossfit or model:PATH`},
	} {
		flags := c.flags
		if len(flags) == 0 || flags[0] != "--targets-kind" {
			flags = append([]string{"--targets-kind", "dr"}, flags...)
		}
		args := append(append(append([]string{"impute", "--out", at("t.targets")}, sim...), flags...), common...)
		err := runPiopt(t, args...)
		if c.want != "" {
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v: %v, want %q", c.flags, err, c.want)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", c.flags, err)
		}
		folds := "10"
		if len(c.flags) > 0 {
			folds = c.flags[1]
		}
		head := strings.SplitN(string(mustRead(t, at("t.targets"))), "\n", 2)[0]
		if !strings.Contains(head, " baseline=crossfit baseline-folds="+folds+" ") || !strings.HasSuffix(head, " targets-kind=dr") {
			t.Errorf("%v: header %q", c.flags, head)
		}
	}
	if err := runPiopt(t, append([]string{"simulate", "--out", at("s.log"), "--seed", "3"}, append(sim, common...)...)...); err != nil {
		t.Fatal(err)
	}
	err := runPiopt(t, append([]string{"impute", "--logs", at("s.log"), "--shard", "1/2", "--partial", at("p.1"), "--targets-kind", "dr"}, common...)...)
	if err == nil || !strings.Contains(err.Error(), "not with --shard or --partial") {
		t.Errorf("dr with --shard: %v", err)
	}
}
