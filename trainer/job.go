package trainer

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/trainer/xgboost"
)

// Job places a training in a distributed job on XGBoost's collective
// (trainer/xgboost.Communicator): each worker trains on its share of the
// training rows, and XGBoost sums the workers' gradient histograms every
// round, so all workers grow the same trees.
//
// Selection is decided on Root and broadcast: Root alone reads the
// validation set, computes each round's criterion exactly as a training in
// one process does (the validation metric, or the slates' estimated value
// with its interval: a per-query mean and spread, and the metrics' own
// per-query normalisations) and broadcasts the three numbers, 25 bytes a
// round with a status byte; every worker then runs the same best-round and
// early-stopping rule on the same numbers. An allreduce of per-query sums
// would have spread the validation work, but it needs every criterion
// rewritten as sums (and a validation file split like the training one)
// and would change the criterion's last bits against one process; the
// validation set is small next to the training one, so Root's extra work
// is a fraction of a round.
type Job struct {
	Comm *xgboost.Communicator
	// Root is the collective rank that validates, decides the selection
	// and whose model is kept.
	Root int
	// Validated says the job trains with a validation set (given to Root
	// only).
	Validated bool
}

// validated says whether the training has a validation set: valid, or, in
// a job, Root's.
func (j *Job) validated(valid *features.Matrix) bool {
	return valid != nil || (j != nil && j.Validated)
}

// remote reports whether this worker follows another's validation.
func (j *Job) remote() bool {
	return j != nil && j.Validated && j.Comm.Rank() != j.Root
}

func (j *Job) comm() *xgboost.Communicator {
	if j == nil {
		return nil
	}
	return j.Comm
}

// validator returns what scores each round: val alone, or in a job the
// broadcast of Root's val (nil when nobody validates).
func (j *Job) validator(val *validation, byValue bool) validator {
	switch {
	case j == nil || !j.Validated:
		if val == nil {
			return nil
		}
		return val
	case j.Comm.Rank() == j.Root && val == nil:
		return &sharedValidation{comm: j.Comm, root: j.Root, missing: true}
	}
	return &sharedValidation{local: val, comm: j.Comm, root: j.Root}
}

// baseScore is p's base score over every worker's training rows: the
// weighted mean label is summed across the job.
func (j *Job) baseScore(p Params, train *features.Matrix) (float64, error) {
	v, err := p.parseBaseScore()
	if j == nil || err != nil || !math.IsNaN(v) {
		return p.baseScore(train)
	}
	s, w := weightedSums(train)
	sums := []float64{s, w}
	if err := j.Comm.Allreduce(sums, xgboost.OpSum); err != nil {
		return 0, fmt.Errorf("base score: %w", err)
	}
	return meanOf(sums[0], sums[1]), nil
}

// newBooster makes the booster on the job's thread.
func (j *Job) newBooster(params []xgboost.Param, dtrain *xgboost.DMatrix) (*xgboost.Booster, error) {
	if j == nil {
		return xgboost.NewBooster(params, dtrain)
	}
	return j.Comm.NewBooster(params, dtrain)
}

// validator scores a round: its validation value and interval (lo and hi
// NaN for a metric).
type validator interface {
	round(ctx context.Context, bst *xgboost.Booster, it int) (val, lo, hi float64, err error)
}

// sharedValidation is Root's validation of each round, broadcast.
type sharedValidation struct {
	local   *validation // Root's; nil elsewhere
	missing bool        // Root without a validation set: a broken job
	comm    *xgboost.Communicator
	root    int
	buf     [25]byte // status (1: ok), then val, lo, hi as float64 bits
}

func (s *sharedValidation) round(ctx context.Context, bst *xgboost.Booster, it int) (val, lo, hi float64, err error) {
	isRoot := s.comm.Rank() == s.root
	if isRoot {
		s.buf[0] = 0
		switch {
		case s.missing:
			err = fmt.Errorf("the job trains with a validation set, but rank %d has none", s.root)
		default:
			val, lo, hi, err = s.local.round(ctx, bst, it)
		}
		if err == nil {
			s.buf[0] = 1
		}
		for i, v := range [3]float64{val, lo, hi} {
			binary.LittleEndian.PutUint64(s.buf[1+8*i:], math.Float64bits(v))
		}
	}
	if berr := s.comm.Broadcast(s.buf[:], s.root); berr != nil {
		return 0, 0, 0, fmt.Errorf("validation from rank %d: %w", s.root, berr)
	}
	if isRoot {
		return val, lo, hi, err
	}
	if s.buf[0] != 1 {
		return 0, 0, 0, fmt.Errorf("validation failed on rank %d", s.root)
	}
	f := func(i int) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(s.buf[1+8*i:])) }
	return f(0), f(1), f(2), nil
}
