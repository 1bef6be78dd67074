package trainer

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/trainer/xgboost"
)

// gridTargets are targets with the full (doc, slot) grid of queries of
// sizes m (ℓ_x = min(slots, m)), doc-major as impute writes them, with
// target f(q, a, j).
func gridTargets(m []int, slots int, f func(q, a, j int) float64) *data.Targets {
	t := &data.Targets{Slots: slots, Header: map[string]string{"metric": "ndcg@2"}}
	for q, mx := range m {
		for a := range mx {
			for j := 1; j <= min(slots, mx); j++ {
				t.Query = append(t.Query, int32(q))
				t.Doc = append(t.Doc, int32(a))
				t.Slot = append(t.Slot, uint8(j))
				t.Target = append(t.Target, f(q, a, j))
				t.Weight = append(t.Weight, 1)
			}
		}
	}
	return t
}

// TestSlateValueByHand: two queries, greedy and exact slates worked out by
// hand from the predictions, the value read from the targets.
func TestSlateValueByHand(t *testing.T) {
	// Query 0: 3 docs, 2 slots; query 1: 1 doc, 1 slot. Rows doc-major:
	// (a0,j1) (a0,j2) (a1,j1) (a1,j2) (a2,j1) (a2,j2) | (a0,j1).
	targets := []float64{
		0.1, 0.2, // doc 0
		0.3, 0.4, // doc 1
		0.5, 0.6, // doc 2
		0.7, // query 1
	}
	k := 0
	tg := gridTargets([]int{3, 1}, 2, func(q, a, j int) float64 { k++; return targets[k-1] })
	pred := []float32{
		5, 4.5, // doc 0
		1, 4.8, // doc 1
		0, 0, // doc 2
		9,
	}
	// Greedy: the highest pair is (doc 0, slot 1) = 5, then slot 2 among
	// docs 1, 2: doc 1 (4.8). Value 0.1 + 0.4 = 0.5; query 1: 0.7.
	// Exact: maximise the sum: (0,1)+(1,2) = 9.8 vs (1,1)+(0,2) = 5.5: the
	// same slate here.
	for _, exact := range []bool{false, true} {
		v, err := NewSlateValue(tg, exact)
		if err != nil {
			t.Fatal(err)
		}
		if v.Name() != "pi-ndcg@2" {
			t.Errorf("name %q", v.Name())
		}
		got := v.Estimate(pred)
		mean := (0.5 + 0.7) / 2
		sd := math.Sqrt((0.1*0.1 + 0.1*0.1) / 1)
		half := 1.959963984540054 * sd / math.Sqrt(2)
		if got.Queries != 2 || math.Abs(got.Value-mean) > 1e-15 || math.Abs(got.Lo-(mean-half)) > 1e-15 || math.Abs(got.Hi-(mean+half)) > 1e-15 {
			t.Errorf("exact=%v: %+v, want %v ± %v", exact, got, mean, half)
		}
	}
	// Where greedy and exact differ: greedy takes (doc 0, slot 1) = 5, then
	// doc 1 in slot 2 (1); exact prefers doc 1 in slot 1 (4.9) and doc 0
	// in slot 2 (4.95).
	pred2 := []float32{5, 4.95, 4.9, 1, 0, 0, 9}
	for _, c := range []struct {
		exact bool
		want  float64
	}{{false, 0.1 + 0.4}, {true, 0.3 + 0.2}} {
		v, _ := NewSlateValue(tg, c.exact)
		if got := v.Estimate(pred2); math.Abs(got.Value-(c.want+0.7)/2) > 1e-15 {
			t.Errorf("exact=%v: value %v, want %v", c.exact, got.Value, (c.want+0.7)/2)
		}
	}
}

func TestNewSlateValueRefusesIncompleteGrid(t *testing.T) {
	tg := gridTargets([]int{3}, 2, func(q, a, j int) float64 { return 0 })
	drop := func(r int) *data.Targets {
		c := *tg
		c.Query = append(append([]int32{}, tg.Query[:r]...), tg.Query[r+1:]...)
		c.Doc = append(append([]int32{}, tg.Doc[:r]...), tg.Doc[r+1:]...)
		c.Slot = append(append([]uint8{}, tg.Slot[:r]...), tg.Slot[r+1:]...)
		c.Target = append(append([]float64{}, tg.Target[:r]...), tg.Target[r+1:]...)
		c.Weight = append(append([]float64{}, tg.Weight[:r]...), tg.Weight[r+1:]...)
		return &c
	}
	for _, r := range []int{1, 3, 5} {
		if _, err := NewSlateValue(drop(r), false); err == nil || !strings.Contains(err.Error(), "every candidate") {
			t.Errorf("row %d dropped: error %v", r, err)
		}
	}
	if _, err := NewSlateValue(&data.Targets{}, false); err == nil {
		t.Error("empty targets accepted")
	}
}

// TestTrainSelectByValue: the round kept is the one of the highest
// estimate, every round's estimate is the value of the slates the model
// of that many rounds builds, and the truncated model's slates score the
// best estimate again.
func TestTrainSelectByValue(t *testing.T) {
	if !xgboost.Available {
		t.Skip("needs cgo and libxgboost")
	}
	// Validation targets from another stream than training's: a log's
	// noisy φ̂ whose mean is the grade's gain over the slot.
	p := small()
	p.Trees, p.EarlyStopping, p.SelectBy, p.BaseScore = 40, 15, SelectValue, "0.5"
	m, rounds, trm, vam, value := trainByValue(t, mslrLike(60), mslrLike(30), piTargets, p)
	defer m.Close()
	best := 0
	for i, r := range rounds {
		if r.Valid > rounds[best].Valid {
			best = i
		}
		if r.ValidMetric != "pi-ndcg@3" || r.Metric != "rmse" || !(r.ValidLo < r.Valid && r.Valid < r.ValidHi) || r.Best != best {
			t.Fatalf("round %d: %+v (best %d)", i, r, best)
		}
	}
	if m.BestIteration != best || m.Rounds != best+1 || m.Metric != "pi-ndcg@3" || m.BestScore != rounds[best].Valid {
		t.Fatalf("kept %d rounds, best %d (want %d), metric %s, score %v", m.Rounds, m.BestIteration, best, m.Metric, m.BestScore)
	}
	if p.EarlyStopping > 0 && m.Trained < p.Trees && m.Trained != best+1+p.EarlyStopping {
		t.Fatalf("stopped after %d rounds, best %d", m.Trained, best+1)
	}
	pred, err := m.Predict(vam)
	if err != nil {
		t.Fatal(err)
	}
	if got := value.Estimate(pred); got.Value != m.BestScore {
		t.Fatalf("truncated model's slates: %v, best estimate %v", got.Value, m.BestScore)
	}
	if !strings.Contains(m.Params.String(), "select_by=value base_score=0.5") {
		t.Errorf("params %q", m.Params.String())
	}
	// Selecting by value needs its targets, and only then.
	if _, err := TrainSelect(context.Background(), trm, vam, nil, p, nil); err == nil {
		t.Error("select by value without targets accepted")
	}
	p.SelectBy = ""
	if _, err := TrainSelect(context.Background(), trm, vam, value, p, nil); err == nil {
		t.Error("value targets without --select-by value accepted")
	}
}

func TestBaseScore(t *testing.T) {
	m := &features.Matrix{Labels: []float32{1, 2, 6}, Weights: []float32{1, 1, 2}}
	for _, c := range []struct {
		in   string
		want float64
		err  bool
	}{{"", 15.0 / 4, false}, {"mean", 15.0 / 4, false}, {"0.5", 0.5, false}, {"0", 0, false}, {"-1.25", -1.25, false},
		{"half", 0, true}, {"NaN", 0, true}, {"inf", 0, true}} {
		p := Defaults()
		p.BaseScore = c.in
		got, err := p.baseScore(m)
		if (err != nil) != c.err || (!c.err && got != c.want) {
			t.Errorf("%q: %v, %v", c.in, got, err)
		}
		if (p.Validate() != nil) != c.err {
			t.Errorf("%q: Validate %v", c.in, p.Validate())
		}
	}
	p := Defaults()
	p.SelectBy = "ndcg"
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "--select-by") {
		t.Errorf("select-by ndcg: %v", err)
	}
	p.SelectBy, p.Objective = SelectValue, ObjectiveRankNDCG
	if err := p.Validate(); err == nil {
		t.Error("select-by value for rank:ndcg accepted")
	}
	if s := Defaults().String(); strings.Contains(s, "select_by") || strings.Contains(s, "base_score") {
		t.Errorf("defaults print %q", s)
	}
}

// Targets dominated by a slot offset: the first stumps only split on the
// slot, every slate stays as ties leave it and the estimate does not move.
// Patience must not run out on that plateau, or a short --early-stopping
// keeps a model that ranks by position.
func TestTrainSelectWaitsForSlatesToMove(t *testing.T) {
	if !xgboost.Available {
		t.Skip("needs cgo and libxgboost")
	}
	offset := func(ds *data.Dataset) *data.Targets {
		tg := piTargets(ds, 3)
		for i := range tg.Target {
			d := ds.QueryOffsets[tg.Query[i]] + int(tg.Doc[i])
			tg.Target[i] = float64(ds.Labels[d]) / float64(tg.Slot[i])
			if tg.Slot[i] == 1 {
				tg.Target[i] += 40
			}
		}
		return tg
	}
	p := small()
	p.Trees, p.Leaves, p.EarlyStopping, p.SelectBy, p.BaseScore = 120, 2, 3, SelectValue, "0.5"
	m, rounds, _, _, _ := trainByValue(t, mslrLike(40), mslrLike(20), func(ds *data.Dataset, _ int) *data.Targets { return offset(ds) }, p)
	defer m.Close()
	plateau := 0
	for plateau < len(rounds) && rounds[plateau].Valid == rounds[0].Valid {
		plateau++
	}
	if plateau <= p.EarlyStopping {
		t.Fatalf("plateau of %d rounds: the case does not test patience %d", plateau, p.EarlyStopping)
	}
	if m.Trained <= plateau || !(m.BestScore > rounds[0].Valid) || m.BestIteration < plateau {
		t.Fatalf("trained %d rounds, plateau %d, best round %d at %v (first %v)", m.Trained, plateau, m.BestIteration, m.BestScore, rounds[0].Valid)
	}
}

// trainByValue trains on tr and selects by the value of va's slates,
// both with targets from targets, returning the model, its rounds, the
// matrices and the value.
func trainByValue(t *testing.T, tr, va *data.Dataset, targets func(*data.Dataset, int) *data.Targets, p Params) (*Model, []Round, *features.Matrix, *features.Matrix, *SlateValue) {
	t.Helper()
	tva := targets(va, 3)
	trm, err := features.PIOPT(tr, targets(tr, 3))
	if err != nil {
		t.Fatal(err)
	}
	vam, err := features.PIOPT(va, tva)
	if err != nil {
		t.Fatal(err)
	}
	value, err := NewSlateValue(tva, false)
	if err != nil {
		t.Fatal(err)
	}
	var rounds []Round
	m, err := TrainSelect(context.Background(), trm, vam, value, p, func(r Round) { rounds = append(rounds, r) })
	if err != nil {
		t.Fatal(err)
	}
	return m, rounds, trm, vam, value
}
