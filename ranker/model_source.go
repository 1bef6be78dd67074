package ranker

import (
	"errors"

	"github.com/piopt/piopt/data"
)

// modelSource ranks by a piopt model's score. TODO(ranker owner): implement
// with the pure-Go inference of this package.
type modelSource string

func (m modelSource) Scores(ds *data.Dataset) ([]float64, error) {
	return nil, errors.New("rank source model:PATH: not implemented yet")
}

func (m modelSource) String() string { return "model:" + string(m) }
