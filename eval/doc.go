// Package eval owns how slates are scored; it knows nothing of models,
// files, Γ or off-policy estimators (package ope has those).
//
// Metrics: DCG with a positional discount, NDCG@k and ERR@k of a slate
// (Metric, Scorer), the value of uniformly random slates, and the
// Conventions on which ranking tools disagree (discount, the NDCG of a query
// without relevant documents, ERR's maxrel), printed with every result so
// that numbers can be compared across tools. A slate is a list of document
// positions inside one query (0-based), slot 1 first; labels are the
// query's relevance grades in document order.
package eval
