package policy

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/ranker"
	"github.com/piopt/piopt/trainer"
)

// Options control how feature-subset rankers are trained.
type Options struct {
	// Train is the labelled data the feature-subset rankers are fitted on;
	// nil means the dataset they are first asked to score.
	Train *data.Dataset
	// Threads for training and inference; 0 means all cores.
	Threads int
	// Seed of training.
	Seed uint64
	// Sources, when not nil, keeps the rank sources fitted and their
	// scores across the setups and targets built with these options.
	Sources *Sources
	// RowTarget is the targets a log with a policy per row carries in
	// its rows (data.RowLog.Target), which the target `row` names; nil
	// when the log carries none.
	RowTarget *data.PolicyFile
}

// Default hyper-parameters of the feature-subset rankers: a tree of depth 6
// (the paper's scripts cross-validated depths 3..12) and an L1 weight of
// 0.01 per row for the lasso.
const (
	DefaultTreeDepth = 6
	DefaultLassoL1   = 0.01
)

// Resolve reads a rank source: ranker's `feature:K` and `model:PATH`, or a
// feature-subset regressor fitted to the labels (a *SubsetSource),
//
//	tree:SUBSET[@DEPTH]   one regression tree of the given depth (default 6)
//	lasso:SUBSET[@L1]     an L1-penalised linear model (default L1 0.01)
//
// with SUBSET as ParseSubset reads it (e.g. url-side, body-side, title,
// 1-5+126). The regressor is trained on opt.Train (or on the first dataset
// it scores) when first asked for scores.
func Resolve(spec string, opt Options) (ranker.Source, error) {
	kind, arg, ok := strings.Cut(spec, ":")
	if !ok || (kind != "tree" && kind != "lasso") {
		return ranker.ParseSource(spec)
	}
	subset, param, hasParam := strings.Cut(arg, "@")
	l := &SubsetSource{kind: kind, subset: subset, opt: opt}
	if kind == "tree" {
		l.depth = DefaultTreeDepth
		if hasParam {
			d, err := strconv.Atoi(param)
			if err != nil || d < 1 || d > 30 {
				return nil, fmt.Errorf("rank source %q: tree depth %q is not an integer in 1..30", spec, param)
			}
			l.depth = d
		}
	} else {
		l.l1 = DefaultLassoL1
		if hasParam {
			v, err := strconv.ParseFloat(param, 64)
			if err != nil || !(v >= 0) {
				return nil, fmt.Errorf("rank source %q: L1 weight %q is not a number ≥ 0", spec, param)
			}
			l.l1 = v
		}
	}
	if subset == "" {
		return nil, fmt.Errorf("rank source %q: missing feature subset (e.g. %s:url-side)", spec, kind)
	}
	return l, nil
}

// SubsetSource is a rank source (ranker.Source) that ranks documents by a
// regression of the relevance labels on a feature subset: the paper's
// logging-side and target-side rankers.
type SubsetSource struct {
	kind, subset string
	depth        int
	l1           float64
	opt          Options

	mu       sync.Mutex
	features []int
	model    *trainer.Regression
}

// String returns the spelling Resolve reads back.
func (l *SubsetSource) String() string {
	if l.kind == "tree" {
		return fmt.Sprintf("tree:%s@%d", l.subset, l.depth)
	}
	return fmt.Sprintf("lasso:%s@%s", l.subset, strconv.FormatFloat(l.l1, 'g', -1, 64))
}

// Features returns the feature numbers the regressor may use (after the
// first Scores call).
func (l *SubsetSource) Features() []int { return l.features }

// Scores implements ranker.Source: the predicted relevance of every
// document of ds, training the regressor first if needed.
func (l *SubsetSource) Scores(ctx context.Context, ds *data.Dataset) ([]float64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.model == nil {
		train := l.opt.Train
		if train == nil {
			train = ds
		}
		feats, err := ParseSubset(l.subset, train.NumFeatures)
		if err != nil {
			return nil, fmt.Errorf("rank source %s: %w", l, err)
		}
		l.features = feats
		m, err := l.fit(ctx, train)
		if err != nil {
			return nil, fmt.Errorf("rank source %s: %w", l, err)
		}
		l.model = m
	}
	if ds.NumFeatures != l.opt.trainFeatures(ds) {
		return nil, fmt.Errorf("rank source %s: trained on %d features, %s has %d", l, l.opt.trainFeatures(ds), ds.Source, ds.NumFeatures)
	}
	return l.model.Predict(ctx, ds.Features, ds.NumFeatures)
}

// fit fits the regressor to the labels of train, on a copy of its features
// with every column outside the subset zeroed (Masked): a zero column
// offers no split and gets no L1 weight, so the model scores full feature
// rows unchanged.
func (l *SubsetSource) fit(ctx context.Context, train *data.Dataset) (*trainer.Regression, error) {
	x := Masked(train, l.features)
	y := make([]float32, train.NumDocs())
	for i, g := range train.Labels {
		y[i] = float32(g)
	}
	return fitRegression(ctx, l.kind == "lasso", x, train.NumFeatures, y, l.depth, l.l1,
		trainer.FitOptions{Threads: l.opt.Threads, Seed: l.opt.Seed})
}

func (o Options) trainFeatures(ds *data.Dataset) int {
	if o.Train != nil {
		return o.Train.NumFeatures
	}
	return ds.NumFeatures
}
