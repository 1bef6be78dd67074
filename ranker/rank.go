package ranker

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/impute"
)

// Ranking holds one slate per query of a dataset.
type Ranking struct {
	// Slots is ℓ; query q's slate has ℓ_x = min(ℓ, m_q) documents.
	Slots int
	// Offsets has one entry per query plus one: query q's slate is
	// Docs[Offsets[q]:Offsets[q+1]].
	Offsets []int
	// Docs are document positions inside their query, slot 1 first.
	Docs []int32
	// Scores are the model scores behind each entry: the (document, slot)
	// pair's score for a PI-OPT model, the document's score for a pointwise
	// model, NaN for random slates.
	Scores []float64
}

// Slate returns query q's slate (a sub-slice).
func (r *Ranking) Slate(q int) []int32 { return r.Docs[r.Offsets[q]:r.Offsets[q+1]] }

func newRanking(ds *data.Dataset, slots int) *Ranking {
	r := &Ranking{Slots: slots, Offsets: make([]int, ds.NumQueries()+1)}
	for q := range ds.NumQueries() {
		r.Offsets[q+1] = r.Offsets[q] + min(slots, ds.QuerySize(q))
	}
	r.Docs = make([]int32, r.Offsets[len(r.Offsets)-1])
	r.Scores = make([]float64, len(r.Docs))
	return r
}

// Rank builds every query's slate of ℓ_x = min(slots, m) documents from a
// model's scores: for pair scores (a PI-OPT model, slots ≤ its ℓ) the greedy
// or exact slot-action slate over slots 1..ℓ_x; for document scores the ℓ_x
// best documents in score order (ties to the lower position), which also
// maximises the sum of the slate's scores, so method does not matter.
func Rank(ds *data.Dataset, sc *Scores, slots int, method SlateMethod) (*Ranking, error) {
	if slots < 1 {
		return nil, fmt.Errorf("rank: %d slots", slots)
	}
	if sc.Slots > 0 && slots > sc.Slots {
		return nil, fmt.Errorf("rank: %d slots asked of a PI-OPT model trained for %d", slots, sc.Slots)
	}
	if len(sc.Values) != ds.NumDocs()*sc.Stride() {
		return nil, fmt.Errorf("rank: %d scores for %d documents of %s", len(sc.Values), ds.NumDocs(), ds.Source)
	}
	r := newRanking(ds, slots)
	var s impute.SlateSolver
	var w []float64
	st := sc.Stride()
	for q := range ds.NumQueries() {
		v := sc.query(ds, q)
		slate := r.Slate(q)
		scores := r.Scores[r.Offsets[q]:r.Offsets[q+1]]
		if sc.Slots == 0 {
			impute.Top(v, slate)
			for j, a := range slate {
				scores[j] = v[a]
			}
			continue
		}
		m := len(v) / st
		w = slotMajor(w, v, st, len(slate))
		method.Solve(&s, w, m, slate)
		for j, a := range slate {
			scores[j] = w[j*m+int(a)]
		}
	}
	return r, nil
}

// randomRanking draws a uniformly random slate of min(slots, m) distinct
// documents for every query, from one generator seeded with seed, queries
// in order: the same seed gives the same slates.
func randomRanking(ds *data.Dataset, slots int, seed uint64) *Ranking {
	r := newRanking(ds, slots)
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	var perm []int32
	for q := range ds.NumQueries() {
		perm = randomSlate(perm, ds.QuerySize(q), rng, r.Slate(q))
	}
	for i := range r.Scores {
		r.Scores[i] = math.NaN()
	}
	return r
}

// DocScores returns one score per document such that ranking by score
// descending, ties to the lower position (Order, and every `model:PATH`
// rank source), gives the model's ranking of each query: the model score
// for a SUP or LambdaMART model. A PI-OPT model has no per-document score;
// its ranking is its greedy slate of ℓ_x documents followed by the other
// documents by their best slot score (max over slots 1..ℓ_x), ties to the
// lower position, and the returned score of a document is m − its rank
// (m for the document in slot 1, 1 for the last).
func (m *Model) DocScores(ctx context.Context, ds *data.Dataset, opt ScoreOptions) ([]float64, error) {
	sc, err := m.Score(ctx, ds, opt)
	if err != nil {
		return nil, err
	}
	if sc.Slots == 0 {
		return sc.Values, nil
	}
	out := make([]float64, ds.NumDocs())
	best := make([]float64, ds.MaxQuerySize())
	order := make([]int32, ds.MaxQuerySize())
	slate := make([]int32, sc.Slots)
	var s impute.SlateSolver
	var w []float64
	st := sc.Stride()
	for q := range ds.NumQueries() {
		lo, hi := ds.Query(q)
		n := hi - lo
		lx := min(sc.Slots, n)
		v := sc.query(ds, q)
		sl := slate[:lx]
		w = slotMajor(w, v, st, lx)
		s.Greedy(w, n, sl)
		o := out[lo:hi]
		for i := range o {
			o[i] = math.NaN()
		}
		for j, a := range sl {
			o[a] = float64(n - j)
		}
		// The rest by best slot score: Top over the remaining documents
		// gives their order; masked documents get −Inf and come last.
		b := best[:n]
		for a := range n {
			b[a] = math.Inf(-1)
			if !math.IsNaN(o[a]) {
				continue
			}
			for j := range lx {
				b[a] = math.Max(b[a], v[a*st+j])
			}
		}
		rest := order[:n-lx]
		impute.Top(b, rest)
		for k, a := range rest {
			o[a] = float64(n - lx - k)
		}
	}
	return out, nil
}

// WriteRun writes r in TREC run format, one line per slate entry:
// `qid Q0 docid rank score tag`, with docid the document as ds names it
// (data.Dataset.AppendDoc: its 0-based position inside its query, or the id
// of its line's comment with --doc-ids comment), rank the 1-based slot, and
// score the model score behind the entry.
func WriteRun(w io.Writer, ds *data.Dataset, r *Ranking, tag string) error {
	var line []byte
	for q := range ds.NumQueries() {
		sc := r.Scores[r.Offsets[q]:r.Offsets[q+1]]
		for j, a := range r.Slate(q) {
			line = append(line[:0], ds.QIDs[q]...)
			line = append(line, " Q0 "...)
			line = ds.AppendDoc(line, q, a)
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(j+1), 10)
			line = append(line, ' ')
			line = strconv.AppendFloat(line, sc[j], 'g', -1, 64)
			line = append(line, ' ')
			line = append(line, tag...)
			line = append(line, '\n')
			if _, err := w.Write(line); err != nil {
				return err
			}
		}
	}
	return nil
}
