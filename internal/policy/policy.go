package policy

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/offpolicy"
	"github.com/piopt/piopt/ranker"
)

// Options control how learned rankers are trained.
type Options struct {
	// Train is the labelled data the feature-subset rankers are fitted on;
	// nil means the dataset they are first asked to score.
	Train *data.Dataset
	// Threads for training and inference; 0 means all cores.
	Threads int
	// Seed of training.
	Seed uint64
}

// Default hyper-parameters of the feature-subset rankers: a tree of depth 6
// (the paper's scripts cross-validated depths 3..12) and an L1 weight of
// 0.01 per row for the lasso.
const (
	DefaultTreeDepth = 6
	DefaultLassoL1   = 0.01
)

// Resolve reads a rank source: ranker's `feature:K` and `model:PATH`, or a
// feature-subset regressor fitted to the labels,
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
	l := &Learned{kind: kind, subset: subset, opt: opt}
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

// Learned is a feature-subset regressor of the relevance labels used as a
// rank source (documents ranked by predicted relevance).
type Learned struct {
	kind, subset string
	depth        int
	l1           float64
	opt          Options

	mu       sync.Mutex
	features []int
	model    scorer
}

// scorer predicts one value per row of a dense float32 matrix.
type scorer interface {
	predict(ctx context.Context, x []float32, nf int) ([]float64, error)
}

// String returns the spelling Resolve reads back.
func (l *Learned) String() string {
	if l.kind == "tree" {
		return fmt.Sprintf("tree:%s@%d", l.subset, l.depth)
	}
	return fmt.Sprintf("lasso:%s@%s", l.subset, strconv.FormatFloat(l.l1, 'g', -1, 64))
}

// Features returns the feature numbers the regressor may use (after the
// first Scores call).
func (l *Learned) Features() []int { return l.features }

// Scores implements ranker.Source: the predicted relevance of every
// document of ds, training the regressor first if needed.
func (l *Learned) Scores(ctx context.Context, ds *data.Dataset) ([]float64, error) {
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
		m, err := fitLearned(ctx, l, train)
		if err != nil {
			return nil, fmt.Errorf("rank source %s: %w", l, err)
		}
		l.model = m
	}
	if ds.NumFeatures != l.opt.trainFeatures(ds) {
		return nil, fmt.Errorf("rank source %s: trained on %d features, %s has %d", l, l.opt.trainFeatures(ds), ds.Source, ds.NumFeatures)
	}
	return l.model.predict(ctx, ds.Features, ds.NumFeatures)
}

func (o Options) trainFeatures(ds *data.Dataset) int {
	if o.Train != nil {
		return o.Train.NumFeatures
	}
	return ds.NumFeatures
}

// Target builds the deterministic target policy named by spec on the
// candidates: for a PI-OPT model (`model:PATH` of kind pi-opt) its
// slot-action slate over the candidates (greedy or exact); for every other
// rank source its top ℓ candidates by score.
func Target(ctx context.Context, spec string, c *impute.Candidates, slots int, method ranker.SlateMethod, opt Options) (*offpolicy.Target, error) {
	if path, ok := strings.CutPrefix(spec, "model:"); ok {
		m, err := ranker.LoadModel(path)
		if err != nil {
			return nil, err
		}
		if err := m.Fits(c.Dataset()); err != nil {
			return nil, err
		}
		if m.Meta().Slots > 0 {
			return offpolicy.SlotActionTarget(ctx, spec, c, slots, m, method)
		}
		scores, err := m.DocScores(ctx, c.Dataset(), ranker.ScoreOptions{Threads: opt.Threads})
		if err != nil {
			return nil, err
		}
		return offpolicy.TopTarget(spec, c, slots, scores)
	}
	src, err := Resolve(spec, opt)
	if err != nil {
		return nil, err
	}
	scores, err := src.Scores(ctx, c.Dataset())
	if err != nil {
		return nil, err
	}
	return offpolicy.TopTarget(src.String(), c, slots, scores)
}

// Candidates ranks every query's documents with the logging-side rank
// source spec (any spelling Resolve reads; "" keeps document order) and
// keeps each query's top limit documents (0: all).
func Candidates(ctx context.Context, ds *data.Dataset, spec string, limit int, opt Options) (*impute.Candidates, ranker.Source, error) {
	var order []int32
	var src ranker.Source
	if spec != "" {
		var err error
		if src, err = Resolve(spec, opt); err != nil {
			return nil, nil, err
		}
		scores, err := src.Scores(ctx, ds)
		if err != nil {
			return nil, nil, err
		}
		order = ranker.Order(ds, scores)
	}
	c, err := impute.NewCandidates(ds, order, limit)
	return c, src, err
}
