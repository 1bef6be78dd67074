// Command piopt learns rankings from logged slates that carry one page-level
// reward each, with the pseudoinverse estimator of Swaminathan et al. (NIPS
// 2017), and evaluates ranking policies off-policy from such logs.
//
// The commands follow the data flow: synth and stats (datasets), simulate
// (a slate log drawn by a logging policy μ), impute (φ̂ = Γ_μ,x† θ̂_x targets
// per query, doc and slot), train and predict (XGBoost models), rank (slates
// of every model against uniformly random slates), evaluate (PI, wPI, IPS,
// wIPS, DM and dr estimates of a target policy's value with their
// intervals) and select (models ranked by their estimated value on one
// log). The paper's lab reproduces its tables and figures: experiment
// (Table 1 over LETOR folds), evaluate-sweep and evaluate-grid (the
// semi-synthetic evaluation of Sec. 4.1 and Fig. 2).
//
// This package is thin: each command reads its flags into a Config, makes
// one call and prints the result. simulate, impute, train, predict, rank,
// evaluate, evaluate-sweep and select call their verb in internal/pipeline;
// experiment calls internal/lab/experiment.Run and evaluate-grid
// internal/lab/evalgrid.Evaluate, which build on the same verbs; synth
// calls data/synth.Generate. Below them, internal/policy builds every
// logging setup and target policy from its spelling, ope estimates, and
// eval scores. opeflags.go holds the flags evaluate, evaluate-sweep,
// evaluate-grid and select share.
//
// Run `piopt --help` for the commands, or `piopt COMMAND --help` for one.
package main
