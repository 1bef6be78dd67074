package synth

import (
	"math"
	"math/rand/v2"
)

// numFeatures is the number of features of a generated document, as in MSLR.
const numFeatures = 136

// maxDocs is the largest number of documents of a query (MSLR-WEB10K's).
const maxDocs = 908

// Streams in MSLR's order inside each group of five features.
const (
	body = iota
	anchor
	title
	url
	whole
	numStreams
)

// Per-stream constants of the retrieval-model features: average stream
// length (BM25's avgdl), the idf offset over the body's (a term is rarer in
// titles, anchors and URLs than in bodies), and the Dirichlet prior μ.
var (
	avgLen    = [numStreams]float64{900, 40, 7, 8, 955}
	idfOffset = [numStreams]float64{0, 4.5, 3.5, 5, 0}
	dirichlet = [numStreams]float64{2000, 100, 10, 10, 2000}
)

// queryData is one generated query: its documents' labels, hidden relevance
// and features (row-major, numFeatures per document).
type queryData struct {
	qid    int
	labels []uint8
	score  []float64 // the hidden relevance without its noise: what a perfect ranker knows
	value  []float64 // u + shift·ρ, which the thresholds turn into grades
	feat   []float64
}

// grading turns hidden relevance into grades: a query's documents get
// grade = #{thresholds t : u + shift·ρ ≥ t}, ρ ~ N(0,1) per query.
type grading struct {
	shift      float64
	thresholds [4]float64
}

// mslrGrading is calibrated (see calibrate_test.go) so that grades 0..4 come
// out near MSLR-WEB10K's 52/32/13/2/1 % and random slates score NDCG@3 ≈ 0.15.
var mslrGrading = grading{shift: 1.5, thresholds: [4]float64{0.07, 2.12, 4.12, 5.16}}

// docLatent are a document's hidden properties.
type docLatent struct {
	topic     float64 // τ: how much the document is about the query; every stream sees it
	depth     float64 // κ: content depth; only body, title and QualityScore2 see it
	authority float64 // α: only anchors, URL, links, PageRank and SiteRank see it
	quality   float64 // φ: only QualityScore and QualityScore2 see it
	spam      bool    // keyword stuffing: body full of query terms, not relevant
}

// relevance is the hidden model: topicality counts most, content depth next
// and more so on a topical page, authority and quality a little, spam
// ruins a page, and noise stands for what no feature shows.
func relevance(l docLatent, noise float64) float64 {
	u := l.topic + 0.55*l.depth + 0.35*l.authority + 0.25*l.quality +
		0.35*math.Max(l.topic, 0)*math.Max(l.depth, 0) + noise
	if l.spam {
		u -= 2.5
	}
	return u
}

func (gr *grading) grade(v float64) uint8 {
	g := uint8(0)
	for _, t := range gr.thresholds {
		if v >= t {
			g++
		}
	}
	return g
}

// numDocs draws a query's document count: log-normal, heavy-tailed, mean
// about 120, within 1..maxDocs.
func numDocs(r *rand.Rand) int {
	for {
		n := int(math.Round(math.Exp(4.62 + 0.62*r.NormFloat64())))
		if n >= 1 && n <= maxDocs {
			return n
		}
	}
}

// numTerms draws the number of query terms (web queries are short).
func numTerms(r *rand.Rand) int {
	u := r.Float64()
	switch {
	case u < 0.22:
		return 1
	case u < 0.56:
		return 2
	case u < 0.81:
		return 3
	case u < 0.93:
		return 4
	}
	return 5
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// poisson draws a Poisson count (Knuth for small means, a rounded normal
// for large ones, which is plenty for term counts).
func poisson(r *rand.Rand, mean float64) int {
	if mean <= 0 {
		return 0
	}
	if mean > 30 {
		return max(0, int(math.Round(mean+math.Sqrt(mean)*r.NormFloat64())))
	}
	l, k, p := math.Exp(-mean), 0, r.Float64()
	for p > l {
		k++
		p *= r.Float64()
	}
	return k
}

func logNormal(r *rand.Rand, mu, sigma float64) float64 {
	return math.Exp(mu + sigma*r.NormFloat64())
}

// genQuery generates query number q (0-based; qid q+1) from its own random
// stream, so queries can be generated in any order, in parallel, with the
// same result. The helpers below draw from that stream in a fixed order —
// query level, then per document: latents, noise, stream matches, stream
// lengths, term frequencies, document features — which must not change, or
// every generated dataset would.
func genQuery(seed uint64, q int, gr *grading, qd *queryData) {
	r := rand.New(rand.NewPCG(seed, uint64(q)))
	m := numDocs(r)
	nt := numTerms(r)
	qd.qid = q + 1
	qd.labels = qd.labels[:0]
	qd.score = qd.score[:0]
	qd.value = qd.value[:0]
	qd.feat = qd.feat[:0]

	var ql queryLevel
	ql.draw(r, m, nt)
	row := make([]float64, numFeatures)
	for d := range m {
		site, l := ql.drawLatent(r, d)
		u := relevance(l, 0.75*r.NormFloat64())
		qd.score = append(qd.score, relevance(l, 0))
		qd.value = append(qd.value, u+gr.shift*ql.rho)
		qd.labels = append(qd.labels, gr.grade(u+gr.shift*ql.rho))

		match := drawMatch(r, l, d == ql.nav)
		length := drawLengths(r, l)
		tf := ql.drawTermFreqs(r, l, &match, &length)
		length[whole] = length[body] + length[anchor] + length[title] + length[url]

		for s := range numStreams {
			streamFeatures(row, s, tf[s][:nt], ql.idf[s][:nt], ql.idfSum[s], length[s])
		}
		docFeatures(row[125:], r, l, u)
		row[130] = ql.siteRank[site]
		qd.feat = append(qd.feat, row...)
	}
}

// queryLevel is what a query's documents share: term idfs per stream, how
// rich in relevant pages the query is (ρ), its navigational target page
// (−1: none) and its sites.
type queryLevel struct {
	nt       int
	idf      [numStreams][5]float64
	idfSum   [numStreams]float64
	rho      float64
	nav      int
	siteAuth []float64
	siteRank []float64
}

// draw draws the query level of a query of m documents and nt terms.
func (ql *queryLevel) draw(r *rand.Rand, m, nt int) {
	ql.nt = nt
	for t := range nt {
		b := 0.4 + 1.3*r.ExpFloat64() + 0.8*r.Float64()
		for s := range numStreams {
			v := b + idfOffset[s]
			if idfOffset[s] > 0 {
				v += 0.7 * r.NormFloat64()
			}
			ql.idf[s][t] = math.Max(v, 0.1)
			ql.idfSum[s] += ql.idf[s][t]
		}
	}
	ql.rho = r.NormFloat64()
	ql.nav = -1
	if r.Float64() < 0.15 {
		ql.nav = r.IntN(m)
	}
	// Documents of one query often share a site: a few sites per query.
	nsites := 1 + r.IntN(max(1, m/8))
	ql.siteAuth = make([]float64, nsites)
	ql.siteRank = make([]float64, nsites)
	for i := range ql.siteAuth {
		ql.siteAuth[i] = r.NormFloat64()
		ql.siteRank[i] = math.Round(logNormal(r, 10-0.7*ql.siteAuth[i], 1.2))
	}
}

// drawLatent draws document d's site and hidden properties.
func (ql *queryLevel) drawLatent(r *rand.Rand, d int) (int, docLatent) {
	site := r.IntN(len(ql.siteAuth))
	var l docLatent
	l.topic = r.NormFloat64()
	l.depth = r.NormFloat64()
	l.authority = 0.6*ql.siteAuth[site] + 0.8*r.NormFloat64()
	l.quality = 0.3*l.authority + 0.95*r.NormFloat64()
	l.spam = r.Float64() < 0.04
	if d == ql.nav {
		l.topic += 2.5
		l.authority += 2
	}
	return site, l
}

// drawMatch draws how strongly each stream of a document matches the query.
func drawMatch(r *rand.Rand, l docLatent, nav bool) [numStreams]float64 {
	var match [numStreams]float64
	match[body] = 0.75*l.topic + 0.55*l.depth + 0.7*r.NormFloat64()
	match[title] = 0.65*l.topic + 0.6*l.depth + 0.9*r.NormFloat64()
	match[anchor] = 0.5*l.topic + 0.8*l.authority + 0.9*r.NormFloat64()
	match[url] = 0.45*l.topic + 0.5*l.authority + 1.0*r.NormFloat64()
	if nav {
		match[url] += 2
		match[title] += 1.5
	}
	return match
}

// drawLengths draws a document's stream lengths; the whole document's is
// left for the caller to sum.
func drawLengths(r *rand.Rand, l docLatent) [numStreams]float64 {
	var length [numStreams]float64
	length[body] = math.Round(20 + logNormal(r, 6.2, 1.0))
	length[anchor] = 0
	if r.Float64() < sigmoid(0.6+0.9*l.authority) {
		length[anchor] = math.Round(1 + logNormal(r, 3+0.6*l.authority, 1.2))
	}
	length[title] = 0
	if r.Float64() > 0.03 {
		length[title] = float64(1 + poisson(r, 6))
	}
	length[url] = float64(3 + poisson(r, 5))
	return length
}

// drawTermFreqs draws a document's frequency of every query term in every
// stream.
func (ql *queryLevel) drawTermFreqs(r *rand.Rand, l docLatent, match, length *[numStreams]float64) [numStreams][5]float64 {
	var tf [numStreams][5]float64
	for t := range ql.nt {
		mt := r.NormFloat64() * 0.6
		rate := length[body] * 0.004 * math.Exp(0.9*(match[body]+mt)+0.3-0.15*ql.idf[body][t])
		if l.spam {
			rate *= 8
		}
		tf[body][t] = float64(poisson(r, rate))
		tf[anchor][t] = 0
		if length[anchor] > 0 {
			tf[anchor][t] = float64(min(int(length[anchor]), poisson(r, length[anchor]*0.05*math.Exp(match[anchor]+mt))))
		}
		tf[title][t] = 0
		if length[title] > 0 && r.Float64() < sigmoid(-0.3+1.6*(match[title]+mt)) {
			tf[title][t] = 1
			if r.Float64() < 0.1 {
				tf[title][t] = 2
			}
		}
		tf[url][t] = 0
		if r.Float64() < sigmoid(-1.2+1.5*(match[url]+mt)) {
			tf[url][t] = 1
		}
		tf[whole][t] = tf[body][t] + tf[anchor][t] + tf[title][t] + tf[url][t]
	}
	return tf
}

// streamFeatures fills the 25 features of stream s (feature 5g+s+1 of group
// g) from the query terms' frequencies in the stream.
func streamFeatures(row []float64, s int, tf, idf []float64, idfSum, length float64) {
	nt := float64(len(tf))
	set := func(g int, v float64) { row[5*g+s] = v }
	covered := 0.0
	for _, f := range tf {
		if f > 0 {
			covered++
		}
	}
	set(0, covered)
	set(1, covered/nt)
	set(2, length)
	set(3, idfSum)
	stats := func(g int, val func(t int) float64) {
		sum, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
		for t := range tf {
			v := val(t)
			sum += v
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		mean := sum / nt
		vr := 0.0
		for t := range tf {
			d := val(t) - mean
			vr += d * d
		}
		set(g, sum)
		set(g+1, lo)
		set(g+2, hi)
		set(g+3, mean)
		set(g+4, vr/nt)
	}
	norm := math.Max(length, 1)
	stats(4, func(t int) float64 { return tf[t] })
	stats(9, func(t int) float64 { return tf[t] / norm })
	stats(14, func(t int) float64 { return tf[t] * idf[t] })
	if covered == nt {
		set(19, 1)
	} else {
		set(19, 0)
	}
	// Vector space model: cosine of the tf·idf and idf vectors.
	dot, nd, nq := 0.0, 0.0, 0.0
	for t := range tf {
		w := tf[t] * idf[t]
		dot += w * idf[t]
		nd += w * w
		nq += idf[t] * idf[t]
	}
	if nd > 0 {
		set(20, dot/math.Sqrt(nd*nq))
	} else {
		set(20, 0)
	}
	// BM25 (k1 = 1.2, b = 0.75) and three smoothed language models.
	bm25, abs, dir, jm := 0.0, 0.0, 0.0, 0.0
	unique := math.Pow(norm, 0.8)
	for t := range tf {
		f := tf[t]
		bm25 += idf[t] * f * 2.2 / (f + 1.2*(0.25+0.75*length/avgLen[s]))
		pc := math.Exp(-idf[t]) * 2 / avgLen[s]
		abs += math.Log(math.Max(f-0.7, 0)/norm + 0.7*unique/norm*pc)
		dir += math.Log((f + dirichlet[s]*pc) / (length + dirichlet[s]))
		jm += math.Log(0.9*f/norm + 0.1*pc)
	}
	set(21, bm25)
	set(22, abs)
	set(23, dir)
	set(24, jm)
}

// docFeatures fills features 126..136 (row[0] is feature 126): URL shape,
// links, PageRank, quality scores and clicks.
func docFeatures(row []float64, r *rand.Rand, l docLatent, u float64) {
	slashes := float64(1 + poisson(r, 2))
	row[0] = slashes
	row[1] = math.Round(15 + 6*slashes + float64(poisson(r, 20)))
	row[2] = math.Max(0, math.Round(logNormal(r, 1.5+1.6*l.authority, 2)-1))
	row[3] = math.Round(logNormal(r, 2.5, 1.2))
	row[4] = math.Round(logNormal(r, 4.3+0.45*l.authority, 0.5))
	// row[5], SiteRank, is per site and set by the caller.
	row[6] = math.Min(255, math.Round(logNormal(r, 2+0.8*l.quality, 0.6)))
	row[7] = math.Min(255, math.Round(logNormal(r, 1.5+0.5*l.quality+0.3*l.depth, 0.7)))
	// Clicks: rare, and only loosely tied to relevance.
	row[8], row[9], row[10] = 0, 0, 0
	if r.Float64() < 0.03*math.Exp(0.3*math.Min(u, 3)) {
		row[8] = float64(1 + poisson(r, 2))
	}
	if r.Float64() < 0.08 {
		row[9] = math.Round(logNormal(r, 2+0.5*l.authority, 1.5))
		row[10] = math.Round(logNormal(r, 4, 1)*10) / 10
	}
}
