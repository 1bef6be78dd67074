// Package impute owns the pseudoinverse (PI) estimator's side of piopt, the
// part of Swaminathan et al. (2017) that turns a slate log into per-query
// quantities:
//
//   - the logging policies μ that draw a slate from a query's candidate
//     documents (uniform, rank-based p_α, ε-uniform mixtures) and their
//     slate distributions (Logging, Dist);
//   - Γ_μ,x = E_μ[1_s 1_sᵀ | x], the second-moment matrix of the slate
//     indicator, and its Moore–Penrose pseudoinverse Γ† (Gamma, GammaCache),
//     both applied through Γ's block structure and never stored as an
//     ℓm × ℓm matrix; the marginals q_μ;
//   - for the per-context policies (Plackett–Luce, explicit slates with a
//     uniform component; GammaCache.ForDist) a fast Γ†: one Cholesky
//     factorisation of the marginal-scaled Γ on its exact structural range
//     (nullspace.go, rangesolve.go, fastgamma.go), refined to a stated
//     bound (Gamma.SolveBound), with the eigendecomposition as the fallback
//     wherever that cannot be certified; and per target the share of its
//     marginals that Γ† cannot see (Gamma.Coverage);
//   - the per-query sufficient statistics of a log, S_x = Σ_i r_i 1_{s_i}
//     and n_x (Stats), from which θ̂_x = S_x/n_x and the PI-OPT regression
//     targets φ̂_x = Γ†θ̂_x (ComputeTargets), and their doubly-robust form
//     φ̄_x + Γ†θ̂'_x from the residual rewards r − 1_sᵀφ̄_x of a reward
//     model φ̄ (Baseline);
//   - the terms of the estimator and its deviation bound for a target
//     policy π with expected slate indicator q_π: the weights 1_sᵀΓ†q_π
//     (SlateSum, SlateForm), the per-query term q_πᵀΓ†q_π of σ², and, with
//     the one exact slate solver (SlateSolver), the range of the weights
//     over loggable slates that gives ρ;
//   - the semi-synthetic simulation of bandit logs (Simulation).
//
// The dense pseudoinverse of an explicit ℓm × ℓm Γ, by eigendecomposition,
// is the TEST REFERENCE only (densePinvReference and enumerateGamma in
// reference_test.go): production code uses the structured Γ†.
//
// Everything here works in candidate space: a query's candidates are its
// documents in rank order (best first), candidate index i has rank i+1, and a
// slate is a list of distinct candidate indices, slot 1 first. The ℓm vectors
// of the estimator are indexed (j, a) → j·m + a with 0-based slot j and
// candidate a. Candidates maps candidate indices to document positions.
//
// The package never opens files: the cmd layer and package data do I/O.
// Progress reaches it as a plain callback, func(n int64), "n more units
// done".
package impute
