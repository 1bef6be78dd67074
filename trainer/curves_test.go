//go:build cgo && curves

package trainer

// Validation curves behind the defaults of Defaults(): validation loss and
// NDCG@ℓ against the number of trees, for several learning rates and bin
// counts, on a fold. Not part of `go test ./...` (build tag curves); run e.g.
//
//	piopt impute --data D/train.txt --simulate 1000000 --slots 3 --logging uniform \
//	    --metric ndcg --seed 1 --max-label 2 --out /tmp/train.targets   (and vali, seed 2)
//	CURVES_FOLD=D CURVES_MAXLABEL=2 CURVES_TARGETS=/tmp/train.targets,/tmp/vali.targets \
//	    go test -tags curves -run Curves -v -timeout 0 ./trainer
//
// Variables: CURVES_FOLD (a folder with train.txt and vali.txt), CURVES_MAXLABEL
// (default 4), CURVES_TARGETS (PI-OPT train,vali targets; without it only SUP
// runs), CURVES_KIND (sup, pi-opt or both), CURVES_LR (default 0.05,0.1,0.2),
// CURVES_BINS (default 256), CURVES_TREES (default 1000), CURVES_LEAVES (70).

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/trainer/xgboost"
)

func envList(key, def string) []float64 {
	v := os.Getenv(key)
	if v == "" {
		v = def
	}
	var out []float64
	for _, f := range strings.Split(v, ",") {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			panic(key + ": " + err.Error())
		}
		out = append(out, x)
	}
	return out
}

// greedy fills slate with the slot-action greedy choice over scores of
// m docs × lx slots (doc-major), ties to the lower doc, then lower slot.
func greedy(scores []float32, m, lx int, slate []int32) {
	usedDoc := make([]bool, m)
	usedSlot := make([]bool, lx)
	for range lx {
		ba, bj, best := -1, -1, float32(math.Inf(-1))
		for a := range m {
			if usedDoc[a] {
				continue
			}
			for j := range lx {
				if !usedSlot[j] && (ba < 0 || scores[a*lx+j] > best) {
					ba, bj, best = a, j, scores[a*lx+j]
				}
			}
		}
		usedDoc[ba], usedSlot[bj] = true, true
		slate[bj] = int32(ba)
	}
}

// topK fills slate with the k highest-scored docs, ties to the lower doc.
func topK(scores []float32, slate []int32) {
	idx := make([]int32, len(scores))
	eval.SortByScore(idx, scores)
	copy(slate, idx)
}

func TestCurves(t *testing.T) {
	fold := os.Getenv("CURVES_FOLD")
	if fold == "" {
		t.Skip("CURVES_FOLD not set")
	}
	maxLabel := 4
	if v := os.Getenv("CURVES_MAXLABEL"); v != "" {
		maxLabel, _ = strconv.Atoi(v)
	}
	opt := data.DefaultReadOptions()
	opt.MaxLabel = maxLabel
	opt.CacheDir = filepath.Join(os.TempDir(), "piopt-curves-cache")
	tr, err := data.Load(filepath.Join(fold, "train.txt"), opt)
	if err != nil {
		t.Fatal(err)
	}
	va, err := data.Load(filepath.Join(fold, "vali.txt"), opt)
	if err != nil {
		t.Fatal(err)
	}
	const slots = 3
	conv := eval.Conventions{Discount: eval.DiscountLog2, MaxRel: maxLabel}
	trees := int(envList("CURVES_TREES", "1000")[0])
	leaves := int(envList("CURVES_LEAVES", "70")[0])
	checkpoints := []int{25, 50, 100, 200, 300, 500, 700, 1000, 1500, 2000}
	kind := os.Getenv("CURVES_KIND")

	type run struct {
		name         string
		train, valid *features.Matrix
		score        func(m *Model, rounds int) float64 // validation NDCG@ℓ
	}
	var runs []run
	if kind == "" || kind == "sup" || kind == "both" {
		trm, err := features.SUP(tr, features.Gain)
		if err != nil {
			t.Fatal(err)
		}
		vam, err := features.SUP(va, features.Gain)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run{"sup", trm, vam, func(m *Model, rounds int) float64 {
			p, err := m.Booster().PredictDense(vam.X, vam.Rows, vam.Cols, xgboost.PredictOptions{Rounds: rounds})
			if err != nil {
				t.Fatal(err)
			}
			var s float64
			for q := range va.NumQueries() {
				lo, hi := va.Query(q)
				k := min(slots, hi-lo)
				sl := make([]int32, hi-lo)
				topK(p[lo:hi], sl)
				s += eval.NDCG(va.QueryLabels(q), sl[:k], slots, conv)
			}
			return s / float64(va.NumQueries())
		}})
	}
	if tgs := os.Getenv("CURVES_TARGETS"); tgs != "" && kind != "sup" {
		paths := strings.Split(tgs, ",")
		ttr, err := data.ReadTargets(paths[0], tr)
		if err != nil {
			t.Fatal(err)
		}
		tva, err := data.ReadTargets(paths[1], va)
		if err != nil {
			t.Fatal(err)
		}
		trm, err := features.PIOPT(tr, ttr)
		if err != nil {
			t.Fatal(err)
		}
		vam, err := features.PIOPT(va, tva)
		if err != nil {
			t.Fatal(err)
		}
		sc, off, err := features.Scoring(va, ttr.Slots)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run{"pi-opt", trm, vam, func(m *Model, rounds int) float64 {
			p, err := m.Booster().PredictDense(sc.X, sc.Rows, sc.Cols, xgboost.PredictOptions{Rounds: rounds})
			if err != nil {
				t.Fatal(err)
			}
			var s float64
			slate := make([]int32, ttr.Slots)
			for q := range va.NumQueries() {
				m := va.QuerySize(q)
				lx := min(ttr.Slots, m)
				greedy(p[off[q]:off[q+1]], m, lx, slate[:lx])
				s += eval.NDCG(va.QueryLabels(q), slate[:lx], ttr.Slots, conv)
			}
			return s / float64(va.NumQueries())
		}})
	}
	for _, r := range runs {
		fmt.Printf("\n%s on %s: train %d×%d, valid %d rows; %d trees × %d leaves\n", r.name, fold, r.train.Rows, r.train.Cols, r.valid.Rows, trees, leaves)
		fmt.Printf("%-6s %-5s %-9s %-11s %-9s | valid rmse at trees %v | valid ndcg@%d at the same trees | s/round\n",
			"lr", "bins", "best", "best-rmse", "bestNDCG", checkpoints, slots)
		for _, bins := range envList("CURVES_BINS", "256") {
			for _, lr := range envList("CURVES_LR", "0.05,0.1,0.2") {
				p := Defaults()
				p.Trees, p.Leaves, p.LearningRate, p.MaxBin = trees, leaves, lr, int(bins)
				m, err := Train(context.Background(), r.train, r.valid, p, nil)
				if err != nil {
					t.Fatal(err)
				}
				var rm, nd []string
				bestN, bestAt := 0.0, 0
				for _, c := range checkpoints {
					if c > trees {
						break
					}
					rm = append(rm, fmt.Sprintf("%.4f", m.History[c-1].Valid))
					n := r.score(m, c)
					if n > bestN {
						bestN, bestAt = n, c
					}
					nd = append(nd, fmt.Sprintf("%.4f", n))
				}
				fmt.Printf("%-6g %-5d %-9d %-11.5f %.4f@%-4d | %s | %s | %.3f\n", lr, int(bins), m.BestIteration+1, m.BestScore,
					bestN, bestAt, strings.Join(rm, " "), strings.Join(nd, " "), m.Timing.Boost.Seconds()/float64(trees))
				m.Close()
			}
		}
	}
}
