// Package eval owns how slates are scored and how a policy's value is
// estimated from a log; it knows nothing of models, files or Γ.
//
// Metrics: DCG with a positional discount, NDCG@k and ERR@k of a slate
// (Metric, Scorer), the value of uniformly random slates, and the
// Conventions on which ranking tools disagree (discount, the NDCG of a query
// without relevant documents, ERR's maxrel), printed with every result so
// that numbers can be compared across tools. A slate is a list of document
// positions inside one query (0-based), slot 1 first; labels are the
// query's relevance grades in document order.
//
// Estimators: PI, wPI, IPS and wIPS are weighted means of logged rewards,
// computed from running sums (Sums) of n, Σw, Σw², Σrw, ... so that a log of
// any length, and every prefix of it, is evaluated in constant memory. The
// weights come from elsewhere: for PI w_i = q_π(x_i)ᵀ Γ† 1_{s_i}, for IPS
// π(s_i|x_i)/μ(s_i|x_i). The direct method (DM) has its covariates and its
// estimate here; its regression is fitted elsewhere. Bootstrap gives
// percentile intervals of the same estimators.
//
// Bounds: the paper's Theorem 1 (Bernstein) interval with σ² and ρ
// (BoundSpec), the empirical-Bernstein interval, and their self-normalised
// variants, all intersected with the reward range.
package eval
