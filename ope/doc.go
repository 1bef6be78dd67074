// Package offpolicy evaluates ranking policies from slate logs (Swaminathan
// et al. 2017, Sec. 3 and 4.1). It joins a logging policy μ (package
// impute: Γ_μ,x = E_μ[1_s 1_sᵀ | x] and its pseudoinverse Γ†), a target
// policy π (Target) and a log into the estimators of package eval, with
// their intervals and diagnostics.
//
// A target policy is a Target: deterministic (one slate s*(x) per query,
// built from a rank source or a PI-OPT model by package policy) or
// stochastic, given by its slot marginals q_π(j, a) = P_π(s_j = a) and, when
// known, its slate probabilities π(s|x). Prepare turns a Setup (candidates,
// Γ per query shape, slots, target, the labels' scorer) into a Plan that
// holds per query the PI weight vector g_x = Γ_x† q_π, so a logged slate's
// weight q_πᵀ Γ† 1_s costs O(ℓ), the terms of σ² = E_x[q_πᵀ Γ† q_π] and
// ρ = sup |q_πᵀ Γ† 1_s| (exact over every slate μ can log) that bound the
// PI estimate by the paper's Theorem 1, IPS's μ(s*|x), and the true value
// V(π) when the labels are known (semi-synthetic mode).
//
// The estimators, named as --estimators and the JSON results name them:
//
//	pi        V̂ = (1/n) Σ_i r_i q_πᵀ Γ† 1_{s_i}
//	wpi       the same sum divided by Σ_i q_πᵀ Γ† 1_{s_i} instead of n
//	pi-cv     PI with the control variate G_i − 1 (G_i = q_πᵀΓ†1_{s_i},
//	          E_μ[G] = 1): (1/n) Σ_i [G_i r_i − β_k(i)(G_i − 1)], β_k the
//	          Cov(Gr, G)/Var(G) of the folds other than sample i's
//	          (i mod K, CVEvaluator): exactly unbiased where PI is
//	dr        doubly-robust PI with a slot-additive reward model φ̄_x:
//	          (1/n) Σ_i [q_πᵀφ̄_{x_i} + G_i (r_i − 1_{s_i}ᵀφ̄_{x_i})],
//	          unbiased where PI is, whatever φ̄ (DREvaluator); φ̄ fixed
//	          (Baseline.Model) or fitted on the log's other folds for
//	          each fold (Baseline.Fitter, cross-fitting)
//	wdr       dr with its correction term self-normalised by Σ_i G_i
//	ips       (1/n) Σ_i r_i π(s_i|x_i)/μ(s_i|x_i)
//	wips      self-normalised IPS
//	dm        the direct method: a regression of the reward on the slate's
//	          features (Regressor: dm or dm-tree a regression tree,
//	          dm-linear a lasso; -clip clips predictions to the training
//	          rewards' range), trained on the first part of the log and
//	          averaged over the target's slates on the rest
//	onpolicy  the target's true value on the logged contexts
//
// An Evaluator folds a log in one pass (memory does not grow with it, but
// for DM's training part and, for dr and wdr, the samples themselves) into every estimate with Bernstein, empirical
// Bernstein and bootstrap intervals. Sweep runs the paper's protocol: R
// independent simulated logs, every estimator on the prefixes of each log
// on a log-spaced grid, and the RMSE, bias and spread against V(π).
//
// Everything works in the candidate space of impute: query x's candidates
// A(x) are its top-M documents by the logging-side ranker, and slates are
// lists of candidate indices. A log's document positions are mapped to
// candidate indices on reading.
package ope
