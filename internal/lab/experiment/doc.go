// Package experiment runs the paper's off-policy optimisation experiment
// (Swaminathan et al. 2017, Sec. 4.2, Table 1) over LETOR folds: for every
// fold and metric, simulate uniformly logged slates on the training fold
// (the logging setup of package policy, μ uniform over every document) and
// impute PI targets φ̂ = Γ_μ,x† θ̂_x, train PI-OPT on them, train SUP on the
// training labels (once per fold), optionally a LambdaMART anchor, and
// score the test fold's slates of every model against uniformly random
// slates (pipeline.PolicyRandom).
//
// Every stage writes its result (targets, models, fold results) atomically
// under the output folder, named by a hash of everything it depends on, so
// re-running with the same settings reuses finished stages and an interrupted
// run resumes where it stopped.
package experiment
