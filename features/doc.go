// Package features builds the design matrices piopt trains on, with no
// per-row allocation:
//
//   - PI-OPT: one row [f(x,a); onehot(j)] of F + ℓ columns per imputed
//     target (query x, doc a, slot j), labelled with the target φ̂ and
//     weighted with the target's row weight. Its rows are not stored but
//     made from the dataset when read (Matrix.Fill), batch by batch: at
//     MSLR-WEB10K size that saves 1.2 GB;
//   - SUP: one row f(x,a) per document (the dataset's own features, not a
//     copy), labelled with its gain 2^rel − 1 (or its grade), weighted 1/m_x
//     so that every query weighs 1 in total;
//   - LambdaMART: one row f(x,a) per document, labelled with its grade, in
//     query groups.
//
// ScoringRows is the one builder of the rows a model scores: for a PI-OPT
// model the slot-action rows [f(x,a); onehot(j)] of every document a and
// slot j ≤ ℓ_x = min(ℓ, m_x), for a pointwise model f(x,a); ranker scores
// them batch by batch, Scoring builds them all at once. Meta is the model
// metadata (kind, ℓ, feature count, metric, targets) stored with a model
// as booster attributes.
//
// It knows nothing about how the targets were estimated, nor about XGBoost.
package features
