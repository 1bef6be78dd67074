// Package policy owns the policies of off-policy evaluation as a user names
// them, and turns those names into the values the other packages work on:
//
//   - Setup, the logging side: a logging policy μ (impute.Logging), the rank
//     source that orders each query's documents, the candidate limit M that
//     keeps each query's top M documents as its candidates A(x), and the
//     slate length ℓ. Optionally a second rank source (CandidatesBy) chooses
//     the top M instead, the rank source then only ordering them, as the
//     paper takes every logging policy's candidates by one fixed ranker.
//     It is parsed from flags, written to and read from a
//     slate log's header (checking the flags against it), and resolved to
//     impute.Candidates. simulate, impute, evaluate, evaluate-sweep and the
//     experiment all go through it.
//   - Rank sources (ranker.Source): ranker's `feature:K` and `model:PATH`,
//     and the paper's feature-subset regressors fitted to the relevance
//     labels on one group of feature streams (e.g. the url-side or the
//     body-side features of MSLR), spelled `tree:SUBSET[@DEPTH]` and
//     `lasso:SUBSET[@L1]` (SubsetSource, Resolve).
//   - Target policies: ResolveTarget builds the deterministic target π
//     (ope.Target, with q_π = 1_{s*}) from a rank source or a PI-OPT
//     model, on the logging setup's candidates.
//   - The direct method's regression models (DMRegressors).
//
// Fitting goes through package trainer (trainer.FitTree, trainer.FitLasso);
// this package has no cgo.
package policy
