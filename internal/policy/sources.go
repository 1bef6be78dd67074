package policy

import (
	"context"
	"sync"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/ranker"
)

// Sources keeps rank sources resolved (and so fitted) once, and each one's
// scores of the last dataset it scored, so that many setups built on the
// same data fit each source once: the evaluation grid builds 40 setups
// from five rank sources, space by space (each space's conditions score
// one dataset). Its sources are resolved with the Options of their first
// use. The zero value is not usable: NewSources.
type Sources struct {
	mu  sync.Mutex
	src map[string]*cachedSource // by canonical spelling
}

type cachedSource struct {
	src    ranker.Source
	ds     *data.Dataset // the dataset of scores
	scores []float64
}

// NewSources returns an empty cache of rank sources.
func NewSources() *Sources { return &Sources{src: map[string]*cachedSource{}} }

// scores returns the canonical spelling of rank source spec and its scores
// of ds: resolved and fitted with o, or taken from o.Sources when it holds
// them.
func (o Options) scores(ctx context.Context, spec string, ds *data.Dataset) (string, []float64, error) {
	src, err := Resolve(spec, o)
	if err != nil {
		return "", nil, err
	}
	name := src.String()
	if o.Sources == nil {
		s, err := src.Scores(ctx, ds)
		return name, s, err
	}
	c := o.Sources
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.src[name]
	if !ok {
		e = &cachedSource{src: src}
		c.src[name] = e
	}
	if e.ds != ds {
		s, err := e.src.Scores(ctx, ds)
		if err != nil {
			return "", nil, err
		}
		e.ds, e.scores = ds, s
	}
	return name, e.scores, nil
}
