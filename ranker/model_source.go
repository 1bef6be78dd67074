package ranker

import (
	"context"

	"github.com/piopt/piopt/data"
)

// modelSource ranks by a piopt model (rank source `model:PATH`): a SUP or
// LambdaMART model by its score, a PI-OPT model by its greedy slate and then
// by best slot score (Model.DocScores).
type modelSource string

// Scores implements Source: it loads the model, checks that it fits ds and
// scores ds on all cores.
func (m modelSource) Scores(ctx context.Context, ds *data.Dataset) ([]float64, error) {
	model, err := LoadModel(string(m))
	if err != nil {
		return nil, err
	}
	return model.DocScores(ctx, ds, ScoreOptions{})
}

func (m modelSource) String() string { return "model:" + string(m) }
