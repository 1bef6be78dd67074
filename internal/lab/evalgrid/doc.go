// Package evalgrid runs the paper's whole semi-synthetic evaluation
// (Swaminathan et al. 2017, Sec. 4.1 and App. E): 2 reward metrics × 2
// slate spaces (m, ℓ) × 10 logging/target combinations, 40 conditions, each
// one sweep of every estimator (sweep.Sweep, the code path of
// piopt evaluate-sweep), and the paper's aggregate over them (Fig. 2,
// middle and bottom rows): per metric and slate space, the CDF over the
// combinations of the RMSE normalised so that the best estimator is 0.001
// and the worst 1.
//
// Definition lists the conditions. Evaluate is piopt evaluate-grid: it
// reads the data and runs the grid (Run). Run fits each rank source once
// (the paper's four base models: lasso and tree on the url-side features
// for logging, on the body-side features for the targets, and the tree
// that chooses the candidates; a policy.Sources keeps them), builds each
// condition's candidates, Γ cache, target and plan as evaluate-sweep does
// (pipeline.BuildPlans), and sweeps. A query with fewer than m
// documents is left out of the slate space (m, ℓ), and counted. Every
// finished condition is written atomically to OUT/conditions/NAME.json,
// the sweep report evaluate-sweep writes plus the hash of its settings, so
// an interrupted grid loses at most the running condition, and a rerun with
// the same settings loads what is finished.
//
// Report is grid.json, grid.html and aggregate-N.svg: every condition's
// RMSE curves, the skipped-query counts, the normalised RMSEs and their
// CDF charts, with
// the sweep's provenance. What varies between runs (times, the machine,
// which conditions were loaded) goes to run.json beside them.
package evalgrid
