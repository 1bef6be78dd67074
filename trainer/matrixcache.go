package trainer

import (
	"context"
	"math"
	"slices"

	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/trainer/xgboost"
)

// MatrixCache keeps the quantile matrix of the last training that went
// through it, so that a following training on the same rows and weights
// only swaps the labels in. That is PI-OPT's NDCG and ERR models of one
// experiment fold: the same simulated log, rewarded by two metrics, gives
// the same (query, doc, slot) rows and the same n_x weights with other
// targets. XGBoost's quantile sketch reads the features and the weights,
// never the labels, so the shared matrix has the same bins and the models
// are the same bits as with a matrix each; only the sketch (about 6% of an
// MSLR fold's training) is saved. A matrix whose rows are stored (X), one
// with query groups and a distributed job's share are never shared.
//
// The zero value is ready; a cache is not safe for concurrent use, and
// Close frees the matrix it holds.
type MatrixCache struct {
	rows    *features.Matrix // the rows (and weights) d was built from
	weights []float32
	maxBin  int
	threads int
	d       *xgboost.DMatrix
}

// TrainJob is the package's TrainJob, building its training matrix
// through the cache (c nil: as TrainJob).
func (c *MatrixCache) TrainJob(ctx context.Context, job *Job, train, valid *features.Matrix, value *SlateValue, p Params, progress func(Round)) (*Model, error) {
	return trainJob(ctx, c, job, train, valid, value, p, progress)
}

// Close frees the cached matrix.
func (c *MatrixCache) Close() error {
	if c == nil || c.d == nil {
		return nil
	}
	err := c.d.Close()
	*c = MatrixCache{}
	return err
}

// matrix returns the quantile matrix of train with p (threads resolved)
// and the function that releases it after training: the cached matrix with
// train's labels when it was built from the same rows and weights, else a
// new one, which a cache keeps in place of its old one.
func (c *MatrixCache) matrix(train *features.Matrix, p Params, comm *xgboost.Communicator) (*xgboost.DMatrix, func(), error) {
	shareable := c != nil && comm == nil && train.X == nil && train.Groups == nil
	if shareable && c.d != nil && c.maxBin == p.MaxBin && c.threads == p.Threads &&
		c.rows.SameRows(train) && sameBits(c.weights, train.Weights) {
		if err := c.d.SetLabels(train.Labels); err != nil {
			return nil, nil, err
		}
		return c.d, func() {}, nil
	}
	d, err := quantileMatrix(train, p, comm)
	if err != nil {
		return nil, nil, err
	}
	if !shareable {
		return d, func() { d.Close() }, nil
	}
	c.Close()
	*c = MatrixCache{rows: train, weights: train.Weights, maxBin: p.MaxBin, threads: p.Threads, d: d}
	return d, func() {}, nil
}

// sameBits reports whether a and b hold the same float32 bit patterns
// (nil and empty alike).
func sameBits(a, b []float32) bool {
	return slices.EqualFunc(a, b, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) })
}
