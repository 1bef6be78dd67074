package ope

import (
	"bytes"
	"context"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/ranker"
)

// TestEvaluateLogsMatchesEvaluateLog: two targets evaluated in one pass,
// with one thread or three, give each exactly its own EvaluateLog result.
func TestEvaluateLogsMatchesEvaluateLog(t *testing.T) {
	ds := testData([]int{3, 5, 8, 4, 6, 7}, 3, 4)
	s := setup(t, ds, 5, 2, "pa:1")
	sc3, _ := ranker.FeatureSource(3).Scores(context.Background(), ds)
	t3, err := TopTarget("feature:3", s.Candidates, 2, sc3)
	if err != nil {
		t.Fatal(err)
	}
	s3 := s
	s3.Target = t3
	// A log of random candidate slates (batchRecords+ records, so that
	// more than one batch is handed to the evaluators).
	rng := rand.New(rand.NewPCG(9, 9))
	var b bytes.Buffer
	lw, err := data.NewLogWriter(&b, data.Header{"slots": "2", "logging": "pa:1"}, ds)
	if err != nil {
		t.Fatal(err)
	}
	for range batchRecords + 500 {
		q := rng.IntN(ds.NumQueries())
		docs, perm := s.Candidates.Docs(q), rng.Perm(s.Candidates.Size(q))
		slate := []int32{docs[perm[0]], docs[perm[1]]}
		if err := lw.Write(ds.QIDs[q], q, slate, rng.Float64()); err != nil {
			t.Fatal(err)
		}
	}
	open := func() *data.LogReader {
		lr, err := data.NewLogReader(bytes.NewReader(b.Bytes()), "x.log", ds)
		if err != nil {
			t.Fatal(err)
		}
		return lr
	}
	opt := EvalOptions{Estimators: Estimators{PI: true, WPI: true, IPS: true, WIPS: true},
		Intervals: Intervals{Delta: 0.05, Bootstrap: 20, Seed: 3, RewardLo: 0, RewardHi: 1}}
	var alone []*Result
	for _, st := range []Setup{s, s3} {
		res, err := prepare(t, st).EvaluateLog(context.Background(), open(), LogEvaluation{Options: opt})
		if err != nil {
			t.Fatal(err)
		}
		alone = append(alone, res)
	}
	if alone[0].Estimates[PI].Value == alone[1].Estimates[PI].Value {
		t.Fatal("the two targets have the same PI estimate: the test would not tell them apart")
	}
	for _, threads := range []int{1, 3} {
		s.Threads, s3.Threads = threads, threads
		both, err := EvaluateLogs(context.Background(), []*Plan{prepare(t, s), prepare(t, s3)}, open(), LogEvaluation{Options: opt})
		if err != nil {
			t.Fatal(err)
		}
		for i := range both {
			if !reflect.DeepEqual(both[i], alone[i]) {
				t.Errorf("threads %d, target %d: one pass %+v, alone %+v", threads, i, both[i].Estimates[PI], alone[i].Estimates[PI])
			}
		}
	}
}
