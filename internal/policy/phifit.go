package policy

import (
	"context"
	"fmt"
	"math"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/trainer"
)

// Defaults of PhiFitOptions: a small ensemble, since dr fits one reward
// model per cross-fitting fold. On MQ2008 Fold1's test file (M = 10,
// ℓ = 5, 6 965 rows) a fit takes about 0.1 s on one thread; larger trees
// fit large logs better and small ones worse (TestPhiFitMQ2008).
const (
	DefaultPhiTrees        = 20
	DefaultPhiLeaves       = 16
	DefaultPhiLearningRate = 0.3
)

// The size rule of dr's default reward model (DefaultBaselineOptions): up
// to DefaultBaselineTrees rounds, stopped once DefaultBaselinePatience
// rounds in a row have not lowered the RMSE on a held-out fifth of the
// fitting samples. A fixed size is wrong at one end: on MQ2008 (M = 10,
// ℓ = 5, pa:1) 20 trees are best at n = 10³–10⁴ and 100 trees at 10⁵,
// while 100 trees fitted on 500 samples make dr worse than PI.
const (
	DefaultBaselineTrees    = 300
	DefaultBaselinePatience = 10
)

// DefaultBaselineOptions are the options of dr's default reward model:
// the size chosen by early stopping.
func DefaultBaselineOptions() PhiFitOptions {
	return PhiFitOptions{Trees: DefaultBaselineTrees, EarlyStopping: DefaultBaselinePatience}
}

// PhiFitOptions are the hyper-parameters of the φ̄ regression; a zero field
// takes its default.
type PhiFitOptions struct {
	Trees        int     // boosting rounds, at most with EarlyStopping (DefaultPhiTrees)
	Leaves       int     // leaves per tree, grown loss-guided (DefaultPhiLeaves)
	LearningRate float64 // shrinkage of each tree (DefaultPhiLearningRate)
	// EarlyStopping, when positive, holds out every fifth sample and stops
	// once that many rounds have not lowered the RMSE of the held-out
	// samples' own targets φ̂ (unbiased for φ, so their expected squared
	// error is the model's plus a constant); the model is the best round's
	// fitted on the other four fifths. With fewer than 10 samples it is
	// ignored.
	EarlyStopping int
	Threads       int // 0: the idle cores; the model does not depend on it
	Seed          uint64
}

// NewPhiFitter returns the default fitter of dr's reward model: PI-OPT's
// regression (trainer.Train, squared loss, loss-guided trees) of the
// per-query averaged targets φ̂_x = Γ_x†θ̂_x of the samples
// (ope.Plan.PhiTargets) on the rows [f(x, a); onehot(j)], every row of
// query x weighted by its n_x samples, as `piopt impute --per-sample` and
// `piopt train` would. Its prediction for (x, a, j) is φ̄_x(j, a), for every
// query of the plan, with samples or not. The model it returns implements
// ope.Rounder.
func NewPhiFitter(opt PhiFitOptions) ope.PhiFitter {
	if opt.Trees == 0 {
		opt.Trees = DefaultPhiTrees
	}
	if opt.Leaves == 0 {
		opt.Leaves = DefaultPhiLeaves
	}
	if opt.LearningRate == 0 {
		opt.LearningRate = DefaultPhiLearningRate
	}
	return phiFitter{opt}
}

type phiFitter struct{ opt PhiFitOptions }

// params are trainer's defaults with the fitter's ensemble.
func (f phiFitter) params() trainer.Params {
	p := trainer.Defaults()
	p.Trees, p.Leaves, p.LearningRate = f.opt.Trees, f.opt.Leaves, f.opt.LearningRate
	p.Threads, p.Seed = f.opt.Threads, int64(f.opt.Seed%math.MaxInt32)
	return p
}

// FittedPhi is the reward model a PhiFitter of this package returns: φ̄
// per query and the boosting rounds it took.
type FittedPhi struct {
	ope.PhiTable
	Trees int
}

// Rounds implements ope.Rounder.
func (f FittedPhi) Rounds() int { return f.Trees }

// FitPhi implements ope.PhiFitter.
func (f phiFitter) FitPhi(ctx context.Context, p *ope.Plan, q []int32, s []int32, r []float32) (ope.RewardModel, error) {
	if len(q) == 0 {
		return nil, fmt.Errorf("policy: φ̄ regression: no samples")
	}
	params := f.params()
	var valid *features.Matrix
	if f.opt.EarlyStopping > 0 && len(q) >= 10 {
		var err error
		var held heldOut
		q, s, r, held = splitFifth(q, s, r, p.Slots)
		if valid, err = phiMatrix(ctx, p, held.q, held.s, held.r); err != nil {
			return nil, err
		}
		params.EarlyStopping = f.opt.EarlyStopping
	}
	train, err := phiMatrix(ctx, p, q, s, r)
	if err != nil {
		return nil, err
	}
	m, err := trainer.Train(ctx, train, valid, params, nil)
	if err != nil {
		return nil, fmt.Errorf("policy: φ̄ regression on %d rows: %w", train.Rows, err)
	}
	defer m.Close()
	phi, err := predictPhi(p.Candidates, p.Slots, m)
	if err != nil {
		return nil, fmt.Errorf("policy: φ̄ regression prediction: %w", err)
	}
	return FittedPhi{phi, m.Rounds}, nil
}

// phiMatrix returns the regression rows of the samples' targets.
func phiMatrix(ctx context.Context, p *ope.Plan, q, s []int32, r []float32) (*features.Matrix, error) {
	t, err := p.PhiTargets(ctx, q, s, r)
	if err != nil {
		return nil, fmt.Errorf("policy: φ̄ regression: %w", err)
	}
	x, err := features.PIOPT(p.Candidates.Dataset(), phiTrainRows(p.Candidates, p.Slots, t))
	if err != nil {
		return nil, fmt.Errorf("policy: φ̄ regression rows: %w", err)
	}
	return x, nil
}

// heldOut are samples in FitPhi's layout.
type heldOut struct {
	q, s []int32
	r    []float32
}

// splitFifth splits the samples into every fifth one (i mod 5 = 4),
// returned as held, and the others.
func splitFifth(q, s []int32, r []float32, slots int) (tq, ts []int32, tr []float32, held heldOut) {
	for i := range q {
		sl := s[i*slots : (i+1)*slots]
		if i%5 == 4 {
			held.q, held.s, held.r = append(held.q, q[i]), append(held.s, sl...), append(held.r, r[i])
			continue
		}
		tq, ts, tr = append(tq, q[i]), append(ts, sl...), append(tr, r[i])
	}
	return tq, ts, tr, held
}

// phiTrainRows lays the targets out as PI-OPT's targets of the dataset: one
// row per (query with samples, candidate, slot ≤ ℓ_x) with φ̂_x(j, a),
// weighted n_x·Q/Σ_x n_x·ℓ_x·m_x over the Q queries with samples. The
// weights are the per-sample weighting scaled so that a query weighs 1 on
// average, as `piopt train`'s targets do, where trainer's defaults
// (MinChildWeight 1, Lambda 1) mean what they say. A policy file's
// contexts of one query give rows of the same (query, doc, slot), each
// with its context's target.
func phiTrainRows(c *impute.Candidates, slots int, t *ope.PhiTargets) *data.Targets {
	var rows, queries int
	var mass float64
	for x, phi := range t.Phi {
		if phi != nil {
			rows += len(phi)
			queries++
			mass += float64(t.Count[x]) * float64(len(phi))
		}
	}
	d := newPhiRows(slots, rows)
	for x, phi := range t.Phi {
		if phi != nil {
			appendPhiRows(d, c, slots, x, phi, float64(t.Count[x])*float64(queries)/mass)
		}
	}
	return d
}

// newPhiRows returns empty targets with room for rows rows.
func newPhiRows(slots, rows int) *data.Targets {
	return &data.Targets{
		Header: map[string]string{"kind": "phi"},
		Slots:  slots,
		Query:  make([]int32, 0, rows),
		Doc:    make([]int32, 0, rows),
		Slot:   make([]uint8, 0, rows),
		Target: make([]float64, 0, rows),
		Weight: make([]float64, 0, rows),
	}
}

// appendPhiRows appends unit x's rows to d, by candidate then slot (the
// order of impute's targets): the value phi[j·m + a], or 0 when phi is nil
// (rows to predict), with weight w.
func appendPhiRows(d *data.Targets, c *impute.Candidates, slots, x int, phi []float64, w float64) {
	m, lx := c.Size(x), c.Slots(x, slots)
	for a, doc := range c.Docs(x) {
		for j := range lx {
			v := 0.0
			if phi != nil {
				v = phi[j*m+a]
			}
			d.Query = append(d.Query, int32(c.Query(x)))
			d.Doc = append(d.Doc, doc)
			d.Slot = append(d.Slot, uint8(j+1))
			d.Target = append(d.Target, v)
			d.Weight = append(d.Weight, w)
		}
	}
}

// phiBatch is the number of rows predicted at once: the prediction's
// targets and matrix stay a few MB whatever the number of queries.
const phiBatch = 1 << 16

// predictPhi predicts φ̄_x(j, a) for every unit of c, batch by batch of
// whole units.
func predictPhi(c *impute.Candidates, slots int, m *trainer.Model) (ope.PhiTable, error) {
	table := make(ope.PhiTable, c.NumQueries())
	if err := predictSome(c, slots, m, table, func(int) bool { return true }); err != nil {
		return nil, err
	}
	return table, nil
}

// predictSome sets table[x] to φ̄_x(j, a) for the units x that keep
// accepts, batch by batch of whole units, a batch never crossing a unit
// left out.
func predictSome(c *impute.Candidates, slots int, m *trainer.Model, table ope.PhiTable, keep func(x int) bool) error {
	for lo := 0; lo < len(table); {
		if !keep(lo) {
			lo++
			continue
		}
		hi, rows := lo, 0
		for hi < len(table) && keep(hi) && (hi == lo || rows+c.Slots(hi, slots)*c.Size(hi) <= phiBatch) {
			rows += c.Slots(hi, slots) * c.Size(hi)
			hi++
		}
		if err := predictUnits(c, slots, m, table, lo, hi, rows); err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

// predictUnits sets table[lo:hi] from the model's predictions of those
// units' rows (rows in all).
func predictUnits(c *impute.Candidates, slots int, m *trainer.Model, table ope.PhiTable, lo, hi, rows int) error {
	var pred []float32
	if rows > 0 { // else units without candidates: nothing to predict
		d := newPhiRows(slots, rows)
		for x := lo; x < hi; x++ {
			appendPhiRows(d, c, slots, x, nil, 1)
		}
		x, err := features.PIOPT(c.Dataset(), d)
		if err != nil {
			return err
		}
		if pred, err = m.Predict(x); err != nil {
			return err
		}
	}
	for u := lo; u < hi; u++ {
		n, lx := c.Size(u), c.Slots(u, slots)
		phi := make([]float64, lx*n)
		for a := range n {
			for j := range lx {
				phi[j*n+a] = float64(pred[0])
				pred = pred[1:]
			}
		}
		table[u] = phi
	}
	return nil
}
