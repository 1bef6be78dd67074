// Package pipeline is the one home of piopt's verbs: each command of the
// product is one call here, func Verb(ctx, VerbConfig) (*VerbResult, error),
// that opens the files, reads and checks them, computes, writes its outputs
// atomically and shows progress; the command only reads its flags into the
// Config and prints the Result. The lab (internal/lab) calls the same verbs,
// or the steps they are made of, instead of rebuilding them.
//
// The verbs follow the paper's pipeline (Swaminathan et al. 2017, "Off-policy
// evaluation for slate recommendation"; docs/design.md):
//
//   - Simulate logs n impressions (x, s, r): a context x drawn uniformly from
//     the queries, a slate s = (s_1..s_ℓ) of distinct candidates drawn from
//     the logging policy μ(·|x), and one page-level reward r, the slate's
//     NDCG@ℓ or ERR@ℓ under the hidden labels.
//   - Impute turns a log (read, or simulated in memory: SimulateStats) into
//     per-(query, doc, slot) targets φ̄_x = Γ_μ,x† (S_x/n_x), the
//     pseudoinverse estimator's slot-level values, with S_x(j,a) = Σ r·1{s_j = a}
//     and Γ_μ,x = E_μ[1_s 1_sᵀ] (Targets); or doubly-robust targets
//     φ̄_x + Γ†·mean[(r − 1_sᵀφ̄_x)·1_s] with a reward model φ̄, the log read
//     twice (DoublyRobustTargets, Replay).
//   - Train fits gradient-boosted trees: PI-OPT regresses φ̄_x(a, j) on the
//     rows [f(x,a); onehot(j)], SUP regresses each document's gain on f(x,a),
//     LambdaMART ranks by rank:ndcg on the labels (Matrix, Fit).
//   - Rank builds every model's slates on a test set (PI-OPT's by the greedy
//     or the exact slot-action ranker, the others by score) and scores them
//     with NDCG@ℓ and ERR@ℓ against uniformly random slates, whose values are
//     exact expectations (RankModels, RankReport).
//   - Predict writes a model's scores of every (doc, slot) pair.
//   - Evaluate estimates a target policy π's value from a slate log drawn
//     by μ (PI, wPI, pi-cv, dr, wdr, IPS, wIPS, DM, each with its
//     intervals), Select ranks several targets by one estimator on one log,
//     and Sweep runs the paper's semi-synthetic protocol (Sec. 4.1), RMSE
//     against the true value as simulated logs grow (internal/lab/sweep).
//     All three, and the lab's evaluation grid, build μ's candidates and
//     Γ, the targets and their plans with one function, BuildPlans.
//
// Progress bars go to each Config's Progress writer and show only on a
// terminal; nothing here writes to standard output.
package pipeline
