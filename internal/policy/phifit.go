package policy

import (
	"context"
	"fmt"
	"math"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/offpolicy"
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

// PhiFitOptions are the hyper-parameters of the φ̄ regression; a zero field
// takes its default.
type PhiFitOptions struct {
	Trees        int     // boosting rounds (DefaultPhiTrees)
	Leaves       int     // leaves per tree, grown loss-guided (DefaultPhiLeaves)
	LearningRate float64 // shrinkage of each tree (DefaultPhiLearningRate)
	Threads      int     // 0: the idle cores; the model does not depend on it
	Seed         uint64
}

// NewPhiFitter returns the default fitter of dr's reward model: PI-OPT's
// regression (trainer.Train, squared loss, loss-guided trees) of the
// per-query averaged targets φ̂_x = Γ_x†θ̂_x of the samples
// (offpolicy.Plan.PhiTargets) on the rows [f(x, a); onehot(j)], every row of
// query x weighted by its n_x samples, as `piopt impute --per-sample` and
// `piopt train` would. Its prediction for (x, a, j) is φ̄_x(j, a), for every
// query of the plan, with samples or not.
func NewPhiFitter(opt PhiFitOptions) offpolicy.PhiFitter {
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

// FitPhi implements offpolicy.PhiFitter.
func (f phiFitter) FitPhi(ctx context.Context, p *offpolicy.Plan, q []int32, s []int32, r []float32) (offpolicy.RewardModel, error) {
	if len(q) == 0 {
		return nil, fmt.Errorf("policy: φ̄ regression: no samples")
	}
	t, err := p.PhiTargets(ctx, q, s, r)
	if err != nil {
		return nil, fmt.Errorf("policy: φ̄ regression: %w", err)
	}
	train, err := features.PIOPT(p.Candidates.Dataset(), phiTrainRows(p.Candidates, p.Slots, t))
	if err != nil {
		return nil, fmt.Errorf("policy: φ̄ regression rows: %w", err)
	}
	m, err := trainer.Train(ctx, train, nil, f.params(), nil)
	if err != nil {
		return nil, fmt.Errorf("policy: φ̄ regression on %d rows: %w", train.Rows, err)
	}
	defer m.Close()
	phi, err := predictPhi(p.Candidates, p.Slots, m)
	if err != nil {
		return nil, fmt.Errorf("policy: φ̄ regression prediction: %w", err)
	}
	return phi, nil
}

// phiTrainRows lays the targets out as PI-OPT's targets of the dataset: one
// row per (query with samples, candidate, slot ≤ ℓ_x) with φ̂_x(j, a),
// weighted n_x·Q/Σ_x n_x·ℓ_x·m_x over the Q queries with samples. The
// weights are the per-sample weighting scaled so that a query weighs 1 on
// average, as `piopt train`'s targets do, where trainer's defaults
// (MinChildWeight 1, Lambda 1) mean what they say. A policy file's
// contexts of one query give rows of the same (query, doc, slot), each
// with its context's target.
func phiTrainRows(c *impute.Candidates, slots int, t *offpolicy.PhiTargets) *data.Targets {
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
func predictPhi(c *impute.Candidates, slots int, m *trainer.Model) (offpolicy.PhiTable, error) {
	table := make(offpolicy.PhiTable, c.NumQueries())
	for lo := 0; lo < len(table); {
		hi, rows := lo, 0
		for hi < len(table) && (hi == lo || rows+c.Slots(hi, slots)*c.Size(hi) <= phiBatch) {
			rows += c.Slots(hi, slots) * c.Size(hi)
			hi++
		}
		if err := predictUnits(c, slots, m, table, lo, hi, rows); err != nil {
			return nil, err
		}
		lo = hi
	}
	return table, nil
}

// predictUnits sets table[lo:hi] from the model's predictions of those
// units' rows (rows in all).
func predictUnits(c *impute.Candidates, slots int, m *trainer.Model, table offpolicy.PhiTable, lo, hi, rows int) error {
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
