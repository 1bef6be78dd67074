// Command piopt learns rankings from logged slates that carry one page-level
// reward each, with the pseudoinverse estimator of Swaminathan et al. (NIPS
// 2017), and evaluates ranking policies off-policy from such logs.
//
// The commands follow the data flow: synth and stats (datasets), simulate
// (a slate log drawn by a logging policy μ), impute (φ̂ = Γ_μ,x† θ̂_x targets
// per query, doc and slot), train and predict (XGBoost models), rank (slates
// of every model against uniformly random slates), experiment (the paper's
// Table 1 over LETOR folds), evaluate and evaluate-sweep (PI, wPI, IPS,
// wIPS and DM estimates of a target policy's value with their σ², ρ and
// intervals).
//
// This package is thin: each command reads its flags, makes one call into
// the library (internal/policy builds every logging setup and target policy;
// ope, internal/lab/experiment and the floors below do the work)
// and prints the result.
//
// Run `piopt --help` for the commands, or `piopt COMMAND --help` for one.
package main
