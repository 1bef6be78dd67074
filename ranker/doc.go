// Package ranker owns turning scores into slates and pure-Go inference of
// piopt models.
//
// A PI-OPT model scores the slot-action pairs of a query x: the score of
// document a in slot j is the model's prediction on the row
// [f(x,a); onehot(j)] (built by features.ScoringRows), an estimate of the
// slot-level value φ̂_x(a, j) the model was trained to regress on. Its slate
// is the greedy slot-action ranker of docs/design.md (take the best remaining
// (document, slot) pair, drop that document and that slot, repeat) or the
// exact maximiser of Σ_j score(s_j, j); both are impute.SlateSolver, the one
// slate solver, here chosen by SlateMethod. Pointwise models (SUP,
// LambdaMART) score f(x,a) and rank by score; the random policy draws uniformly
// random slates; rank sources (`feature:K`, `model:PATH`) are what logging
// and target policies are built from.
//
// Models are the files `piopt train` writes: XGBoost's legacy binary format
// or its JSON format, with piopt's metadata (features.Meta) as booster
// attributes. They are decoded without XGBoost by data/xgbmodel and
// scored with leaves (github.com/dmitryikh/leaves) after a load-time
// transform that makes leaves agree with XGBoost 1.7; scores equal
// XGBoost's predictions up to its float32 rounding. Nothing here needs cgo.
//
// The `piopt rank` workflow built on these pieces (slates of every model,
// NDCG and ERR against uniformly random slates, greedy against exact
// slates, its tables and summaries) is internal/pipeline's Rank.
package ranker
