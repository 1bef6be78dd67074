// Package trainer owns every use of XGBoost in piopt, through its cgo binding
// trainer/xgboost (the only package that uses cgo).
//
// Train fits the gradient-boosted regression trees of PI-OPT and of the
// baselines: hyper-parameters with practical defaults and the paper's preset
// (Params), squared loss on the per-slot regression targets φ̂ = Γ†θ̂ (or
// rank:ndcg), early stopping on a validation matrix whose metric is computed
// here from the predictions so that it does not depend on the number of
// threads, and per-round progress. The training rows reach XGBoost's
// quantile matrix batch by batch (features.Matrix.Fill), and the validation
// rows are predicted in place by walking each new round's trees
// (data/xgbmodel), bit for bit as XGBoost predicts them: neither is ever
// copied whole. Models carry piopt's metadata
// (features.Meta) as booster attributes and are written atomically in
// XGBoost's JSON or legacy binary format.
//
// FitTree and FitLasso are the single regressions Params cannot express:
// the feature-subset rankers' trees and the direct method's models.
//
// Built without cgo the package still compiles; Available is false and every
// fit returns ErrNoCgo.
package trainer
