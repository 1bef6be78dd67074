//go:build cgo

package trainer

import (
	"context"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/trainer/xgboost"
)

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
	if got := value.estimate(pred); got.Value != m.BestScore {
		t.Fatalf("truncated model's slates: %v, best estimate %v", got.Value, m.BestScore)
	}
	if !strings.Contains(m.params.String(), "select_by=value base_score=0.5") {
		t.Errorf("params %q", m.params.String())
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
