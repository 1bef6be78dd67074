// Package ope evaluates ranking policies off-policy, from logs of the slates
// another policy showed (Swaminathan et al. 2017, "Off-policy evaluation for
// slate recommendation", Sec. 3 and 4.1): what would a new ranker π have
// earned on the contexts of a log that a logging policy μ drew?
//
// # The estimators
//
// A slate s of ℓ slots over a context x's candidates A(x) (m of them) is
// written as its indicator 1_s ∈ {0,1}^{ℓm}: 1 where slot j holds
// candidate a. The logging policy enters through Γ_μ,x = E_μ[1_s 1_sᵀ | x],
// an ℓm × ℓm matrix, and its pseudoinverse Γ†; the target through its slot
// marginals q_π(x) = E_π[1_s | x] (for a deterministic target, the
// indicator of its one slate s*). If the reward is additive over slots,
// r = 1_sᵀφ_x, then every logged slate s_i has the weight
//
//	G_i = q_π(x_i)ᵀ Γ†_{x_i} 1_{s_i},   with E_μ[G r] = V(π) and E_μ[G] = 1,
//
// and the estimators are weighted means of the logged rewards r_i:
//
//	pi        V̂ = (1/n) Σ_i G_i r_i: unbiased (the pseudoinverse estimator)
//	wpi       Σ_i G_i r_i / Σ_i G_i: self-normalised, biased O(1/n), often
//	          far less variable
//	pi-cv     (1/n) Σ_i [G_i r_i − β (G_i − 1)] with β cross-fitted over
//	          folds: PI with the control variate G − 1, still unbiased
//	dr, wdr   doubly robust: (1/n) Σ_i [q_πᵀφ̂_{x_i} + G_i (r_i − 1_{s_i}ᵀφ̂_{x_i})]
//	          with a slot-additive reward model φ̂ (fixed, or cross-fitted
//	          on the log's other folds: Baseline, PhiFitter), and its
//	          self-normalised version
//	ips, wips inverse propensity scoring: the slate as one action, weight
//	          π(s|x)/μ(s|x), and its self-normalised version
//	dm, dm-*  the direct method: a regression of the reward on the slate's
//	          features (Regressor), trained on the log's first part and
//	          averaged over the target's slates on the rest
//	onpolicy  the target's true value on the logged contexts, when the
//	          labels are known (semi-synthetic mode): what the others
//	          estimate
//
// With σ² = E_x[q_πᵀ Γ† q_π] (which bounds E_μ[G²]) and ρ = sup |G| over
// every slate μ can log, the paper's Theorem 1 gives, with probability at
// least 1 − δ for rewards in [−1, 1],
//
//	|V̂_PI − V(π)| ≤ sqrt(2σ² ln(2/δ)/n) + 2(ρ+1) ln(2/δ)/(3n).
//
// Each Estimate carries that Bernstein interval (Bernstein), Maurer and
// Pontil's empirical-Bernstein interval, a seeded Poisson-bootstrap
// percentile interval (Bootstrap), all intersected with the reward range,
// and the weights' diagnostics (WeightStats: mean weight, share of negative
// weights, effective sample size, σ², ρ).
//
// # From a log to an estimate
//
// The candidates and Γ come from package impute: impute.NewCandidates
// picks each query's candidates, impute.NewGammaCache computes Γ_μ,x and
// Γ† per query shape for a logging policy (or per context of a policy
// file). A Target is the policy to evaluate: NewDeterministicTarget,
// TopTarget (the top ℓ candidates by a score per document) or
// NewStochasticTarget (slot marginals). Prepare turns a Setup into a Plan,
// which holds per query the vector g_x = Γ† q_π, so that a logged slate's
// weight G costs O(ℓ); an Evaluator folds the log into every estimator in
// one pass, and Result gives the estimates:
//
//	plan, err := ope.Prepare(ctx, ope.Setup{Candidates: cands, Gammas: gammas, Slots: 3, Target: target})
//	ev, err := plan.NewEvaluator(ope.EvalOptions{
//		Estimators: ope.Estimators{PI: true, WPI: true},
//		Intervals:  ope.Intervals{Delta: 0.05, RewardLo: 0, RewardHi: 1}})
//	for each logged impression {
//		ev.Add(query, slate, reward) // slate: candidate indices, slot 1 first
//	}
//	res, err := ev.Result(ctx)
//	fmt.Println(res.Estimates[ope.PI].Value, res.Estimates[ope.PI].Bernstein)
//
// Plan.EvaluateLog reads a slate log file of package data instead (mapping
// its document positions to candidate indices), and EvaluateLogs evaluates
// several targets on one log in a single pass.
//
// # Types
//
//   - Setup, Plan: one evaluation problem and its per-query terms (g_x, σ², ρ).
//   - Target: the policy evaluated.
//   - Estimators, ParseEstimators: which built-in estimators to run, by name.
//   - Evaluator, EvalOptions, Result, Estimate: the one-pass evaluation.
//   - Estimator, Sample, Summary: the interface every estimator implements;
//     an estimator of your own goes in EvalOptions.Extra.
//   - Intervals, Interval, BoundSpec, Sums, Bootstrap: the intervals and the
//     running sums they are computed from.
//   - Regressor, Predictor: DM's reward regression (package internal/policy
//     of piopt fits them with XGBoost).
//   - Baseline, RewardModel, PhiTable, PhiFitter: dr's reward model φ̂.
//   - Samples: logged impressions kept in memory, for the estimators that
//     fit models.
//
// Everything works in the candidate space of impute: query x's candidates
// A(x) are its top-M documents by the logging-side ranker, and slates are
// lists of candidate indices. The estimates do not depend on the number of
// threads.
package ope
