// Package synth generates learning-to-rank data shaped like MSLR-WEB10K, so
// that piopt's whole pipeline can run, and be tested, without the real data.
//
// Generate writes five partitions S1..S5 and five folds Fold1..Fold5, each
// {train,vali,test}.txt, rotating as MSLR does: FoldK trains on partitions
// K, K+1, K+2, validates on K+3 and tests on K+4 (mod 5), so Fold1 is
// S1+S2+S3 / S4 / S5 and Fold2 is S2+S3+S4 / S5 / S1. Lines are LETOR text,
// `<grade> qid:<q> 1:<v> ... 136:<v>`, dense like MSLR's.
//
// # Shape
//
// Documents per query are log-normal (mean ≈ 120, median ≈ 100, at most
// 908, MSLR-WEB10K's maximum). Query terms number 1..5. Features follow
// MSLR's layout: features 1..125 are 25 groups of 5 streams (body, anchor,
// title, url, whole document) — covered query terms (number, ratio), stream
// length, IDF, sum/min/max/mean/variance of TF, of length-normalised TF and
// of TF·IDF, boolean model, vector space model, BM25, LMIR.ABS, LMIR.DIR,
// LMIR.JM — all computed with their usual formulas from generated stream
// lengths and term counts, so they are integers where MSLR's are, heavy-
// tailed and often zero (a third of pages have no anchor text, most titles
// and URLs miss most terms). 126..136 are document-level: slashes and
// length of the URL, inlinks, outlinks, PageRank, SiteRank (shared by pages
// of one site), QualityScore, QualityScore2 and rare click counts.
//
// # Hidden relevance model
//
// Each document has four hidden properties, standard normal: topicality τ,
// content depth κ, authority α (partly shared by a site) and quality φ
// (correlated 0.3 with α); 4 % of pages are keyword-stuffing spam. Its
// relevance is
//
//	u = τ + 0.55κ + 0.35α + 0.25φ + 0.35·max(τ,0)·max(κ,0) − 2.5·spam + ε,  ε ~ N(0, 0.75²)
//
// and its grade counts the thresholds (0.07, 2.12, 4.12, 5.16) that
// u + 1.5ρ reaches, ρ ~ N(0,1) being how rich the query is in relevant
// pages. This gives grades 0..4 near MSLR-WEB10K's 52/32/13/2/1 %, about 1 %
// of queries without a relevant page, and NDCG@3 ≈ 0.15 for uniformly random
// slates, as on MSLR-WEB10K. 15 % of queries are navigational: one page gets
// τ + 2.5, α + 2 and a strong URL and title match.
//
// No feature shows u. Every stream's match with the query mixes τ with
// stream noise; body and title also carry κ, anchor and url carry α instead,
// QualityScore and QualityScore2 carry φ (and κ a little), links, PageRank
// and SiteRank carry α. Spam pages have eight times the body term counts.
// So a ranker on url-side features (anchor, url, 126..131) and one on
// body-side features (body, title, whole document, 132..133) disagree; a
// single feature ranks poorly, and a learner must combine streams, saturate
// counts and recognise spam (high body counts, poor quality scores) to do
// well. The noise ε bounds what any ranker can reach. Measured NDCG@3 (seed
// 1, 3000 queries; go test -run Calibration -synth.report): random 0.148,
// best single feature 0.345 (LMIR.ABS of anchors; BM25 of bodies 0.333),
// ranking by the noiseless u 0.869; gradient-boosted trees (XGBoost, 200
// trees of depth 6, squared loss on 2^grade − 1) trained on Fold1 of a
// 1000-query set reach 0.476 on its test fold.
//
// # Determinism
//
// Query q (qid q+1) is generated from its own PCG stream seeded by (seed,
// q), so queries are generated in parallel and the files are byte-identical
// for a seed whatever the number of threads.
package synth
