package ranker

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
)

// Source scores every document of a dataset; a query's documents are ranked
// by score descending, ties by lower document position.
type Source interface {
	// Scores returns one score per document of ds (global order); ctx can
	// stop a long scoring (a model's).
	Scores(ctx context.Context, ds *data.Dataset) ([]float64, error)
	// String returns the spelling ParseSource reads back.
	String() string
}

// ParseSource reads a rank source: `feature:K` ranks by feature K (1-based)
// descending; `model:PATH` by a piopt model's score.
func ParseSource(spec string) (Source, error) {
	kind, arg, ok := strings.Cut(spec, ":")
	if !ok {
		return nil, fmt.Errorf("rank source %q: want feature:K or model:PATH", spec)
	}
	switch kind {
	case "feature":
		k, err := strconv.Atoi(arg)
		if err != nil || k < 1 {
			return nil, fmt.Errorf("rank source %q: feature index must be an integer ≥ 1", spec)
		}
		return FeatureSource(k), nil
	case "model":
		if arg == "" {
			return nil, fmt.Errorf("rank source %q: missing model path", spec)
		}
		return modelSource(arg), nil
	}
	return nil, fmt.Errorf("rank source %q: unknown kind %q (want feature or model)", spec, kind)
}

// FeatureSource ranks by one feature (1-based index), highest first.
type FeatureSource int

// Scores implements Source.
func (f FeatureSource) Scores(_ context.Context, ds *data.Dataset) ([]float64, error) {
	k := int(f)
	if k < 1 || k > ds.NumFeatures {
		return nil, fmt.Errorf("rank source feature:%d: %s has features 1..%d", k, ds.Source, ds.NumFeatures)
	}
	out := make([]float64, ds.NumDocs())
	nf := ds.NumFeatures
	for i := range out {
		out[i] = float64(ds.Features[i*nf+k-1])
	}
	return out, nil
}

func (f FeatureSource) String() string { return fmt.Sprintf("feature:%d", int(f)) }

// Order returns, for every query, its document positions sorted by score
// descending with ties broken by lower position, flattened in query order
// (query q's order sits at [QueryOffsets[q], QueryOffsets[q+1])).
func Order(ds *data.Dataset, scores []float64) []int32 {
	out := make([]int32, ds.NumDocs())
	for q := range ds.NumQueries() {
		lo, hi := ds.Query(q)
		eval.SortByScore(out[lo:hi], scores[lo:hi])
	}
	return out
}
