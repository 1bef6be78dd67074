package impute

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
)

// rewardCheck scores a record's slate as the simulator that wrote its log
// did, so that ReadLog can tell a log read against the labels it was made
// on from one read against other labels of the same shape.
//
// A log that piopt simulate wrote says so in its header (seed= and
// samples=, beside metric= and the metric's conventions), and every reward
// in it is that metric of the slate under the labels of its data= file,
// printed so that it reads back as the same float64. Read against a
// dataset with those labels, each reward is recomputed exactly; against a
// file of the same shape (queries= and docs= agree) but other labels, the
// first slate whose metric differs stops the run, instead of imputing or
// evaluating against labels the log was not made with. Logs written by
// other programs (no seed= or samples=) carry rewards from elsewhere and
// are not checked, nor are datasets without labels (names only).
type rewardCheck struct {
	scorer *eval.Scorer
	name   string // the metric, e.g. "ndcg@3"
	data   string // the file whose labels the rewards are checked against
}

// newRewardCheck returns the check of a simulated log's rewards against
// the candidates' labels for ℓ = slots, or nil when h is not the header
// of a log piopt simulated (or says too little to recompute its rewards).
func (c *Candidates) newRewardCheck(h data.Header, slots int) *rewardCheck {
	if c.ds.NamesOnly() || h["seed"] == "" || h["samples"] == "" {
		return nil
	}
	metric, ok := headerMetric(h, slots)
	if !ok {
		return nil
	}
	return &rewardCheck{scorer: eval.NewScorer(metric, c.labels, c.offsets), name: metric.Name(), data: filepath.Base(c.ds.Source)}
}

// headerMetric is the reward metric a simulated log's header states with
// all its conventions, as simulate writes them (metric=KIND@ℓ, discount=,
// empty-query-ndcg=, err-maxrel=); false when a key is missing or not
// understood, so that a header piopt did not write is never guessed at.
func headerMetric(h data.Header, slots int) (eval.Metric, bool) {
	kindName, k, _ := strings.Cut(h["metric"], "@")
	kind, err := eval.ParseKind(kindName)
	if err != nil || k != strconv.Itoa(slots) {
		return eval.Metric{}, false
	}
	disc, err := eval.ParseDiscount(h["discount"])
	if err != nil || h["discount"] == "" {
		return eval.Metric{}, false
	}
	empty, err1 := strconv.Atoi(h["empty-query-ndcg"])
	maxRel, err2 := strconv.Atoi(h["err-maxrel"])
	if err1 != nil || err2 != nil || (empty != 0 && empty != 1) || maxRel < 1 || maxRel > 255 {
		return eval.Metric{}, false
	}
	return eval.Metric{Kind: kind, K: slots, Conventions: eval.Conventions{Discount: disc, EmptyOne: empty == 1, MaxRel: maxRel}}, true
}

// check refuses reward r of the slate (candidate indices of unit q) when
// it is not the slate's metric under the candidates' labels.
func (rc *rewardCheck) check(lr *data.LogReader, q int, slate []int32, r float64) error {
	if want := rc.scorer.Score(q, slate); r != want {
		return lr.Errorf(3, "reward %s, but the slate's %s under %s's labels is %s: the log's header says piopt simulated it on data=%s, whose labels differ from these",
			strconv.FormatFloat(r, 'g', -1, 64), rc.name, rc.data, strconv.FormatFloat(want, 'g', -1, 64), lr.Header()["data"])
	}
	return nil
}
