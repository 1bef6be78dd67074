package ope

import (
	"context"
	"fmt"
	"io"
	"math"
)

// Regressor fits the direct method's reward model: a regression of the
// logged reward on the concatenated features of the ℓ slotted documents
// (SlateFeatures). Implementations train through package trainer
// (regression tree and lasso, see package policy); tests use pure-Go ones.
type Regressor interface {
	// Fit regresses y on the rows of x (row-major, cols columns each).
	Fit(ctx context.Context, x []float32, cols int, y []float32) (Predictor, error)
}

// Predictor is a fitted reward model. One that also implements io.Closer
// is closed once its predictions are made.
type Predictor interface {
	// Predict writes one prediction per row of x (cols columns) into out.
	Predict(ctx context.Context, x []float32, cols int, out []float64) error
}

// dmSamples are logged samples kept for DM's training part: query, slate
// (slots entries per sample, candidate indices, −1 past ℓ_x) and reward.
type dmSamples struct {
	slots int
	q     []int32
	s     []int32
	r     []float32
	// x caches the design matrix of the first rows samples: the sweep fits
	// on growing prefixes of the same samples.
	x    []float32
	rows int
}

func (d *dmSamples) add(q int, s []int32, r float64) {
	d.q = append(d.q, int32(q))
	d.s = append(d.s, s...)
	for range d.slots - len(s) {
		d.s = append(d.s, -1)
	}
	d.r = append(d.r, float32(r))
}

func (d *dmSamples) len() int { return len(d.q) }

// dmRows returns the DM design matrix of the first n samples: per sample
// the feature rows of its slotted documents, zeros past ℓ_x. Rows already
// built for a longer prefix are reused.
func (p *Plan) dmRows(d *dmSamples, n int) (x []float32, y []float32) {
	ds := p.Candidates.Dataset()
	nf, l := ds.NumFeatures, p.Slots
	cols := l * nf
	if n <= d.rows {
		return d.x[:n*cols], d.r[:n]
	}
	if cap(d.x) < n*cols {
		// Grow to the whole kept part at once: the next prefix is longer.
		x := make([]float32, n*cols, max(n, len(d.q))*cols)
		copy(x, d.x[:d.rows*cols])
		d.x = x
	}
	d.x = d.x[:n*cols]
	x = d.x
	docs := make([]int32, l)
	for i := d.rows; i < n; i++ {
		q := int(d.q[i])
		lo, hi := ds.Query(p.Candidates.Query(q))
		cand := p.Candidates.Docs(q)
		k := 0
		for _, a := range d.s[i*l : (i+1)*l] {
			if a < 0 {
				break
			}
			docs[k] = cand[a]
			k++
		}
		SlateFeatures(x[i*cols:(i+1)*cols], ds.Features[lo*nf:hi*nf], nf, docs[:k], l)
	}
	d.rows = n
	return x, d.r[:n]
}

// targetRows returns the DM covariates of every query's target slate,
// built once per plan.
func (p *Plan) targetRows() []float32 {
	p.targetOnce.Do(func() { p.targetX = p.buildTargetRows() })
	return p.targetX
}

func (p *Plan) buildTargetRows() []float32 {
	ds := p.Candidates.Dataset()
	nf, l := ds.NumFeatures, p.Slots
	nq := p.Candidates.NumQueries()
	x := make([]float32, nq*l*nf)
	docs := make([]int32, l)
	for q := range nq {
		lo, hi := ds.Query(p.Candidates.Query(q))
		cand := p.Candidates.Docs(q)
		star := p.queries[q].star
		for j, a := range star {
			docs[j] = cand[a]
		}
		SlateFeatures(x[q*l*nf:(q+1)*l*nf], ds.Features[lo*nf:hi*nf], nf, docs[:len(star)], l)
	}
	return x
}

// dmFit is what DM's models give at one training size: each model's
// prediction of every query's target slate, and the range of the training
// rewards, which the clipped variants clip to.
type dmFit struct {
	nTrain int
	preds  map[string][]float64
	clip   Interval
}

// directMethod trains every model the DM variants need on the first nTrain
// samples of train and evaluates the variants on the evaluation part,
// described by its per-query sample counts. fit is reused when it was made
// on the same nTrain samples (a sweep whose training part is capped fits
// once for every larger grid point), and made again in place otherwise.
func (p *Plan) directMethod(ctx context.Context, train *dmSamples, nTrain int, evalCounts []int64, regs map[string]Regressor, variants []DMVariant, fit *dmFit) (map[string]*Estimate, error) {
	out := map[string]*Estimate{}
	if len(variants) == 0 {
		return out, nil
	}
	if !p.Target.Deterministic() {
		for _, v := range variants {
			out[v.Name] = &Estimate{Value: Float(math.NaN()), Warnings: []string{"DM needs a deterministic target"}}
		}
		return out, nil
	}
	var nEval int64
	for _, c := range evalCounts {
		nEval += c
	}
	if nTrain == 0 || nEval == 0 {
		for _, v := range variants {
			out[v.Name] = &Estimate{N: nEval, TrainRows: int64(nTrain), Warnings: []string{
				fmt.Sprintf("DM has %d training and %d evaluation samples: estimate set to 0", nTrain, nEval)}}
		}
		return out, nil
	}
	if fit.nTrain != nTrain { // nTrain ≥ 1 here: a new dmFit never matches
		f, err := p.fitDM(ctx, train, nTrain, regs, variants)
		if err != nil {
			return nil, err
		}
		*fit = *f
	}
	for _, v := range variants {
		e := &Estimate{N: nEval, TrainRows: int64(nTrain)}
		var c *Interval
		if v.Clip {
			cl := fit.clip
			c, e.Clip = &cl, &cl
		}
		val, _ := DirectMethod(fit.preds[v.Model], evalCounts, c)
		e.Value = Float(val)
		out[v.Name] = e
	}
	return out, nil
}

// fitDM fits every model the DM variants need on the first nTrain samples
// of train and predicts every query's target slate with it.
func (p *Plan) fitDM(ctx context.Context, train *dmSamples, nTrain int, regs map[string]Regressor, variants []DMVariant) (*dmFit, error) {
	x, y := p.dmRows(train, nTrain)
	f := &dmFit{nTrain: nTrain, preds: map[string][]float64{}, clip: Interval{Lo: math.Inf(1), Hi: math.Inf(-1)}}
	for _, r := range y {
		f.clip.Lo, f.clip.Hi = min(f.clip.Lo, float64(r)), max(f.clip.Hi, float64(r))
	}
	cols := p.Slots * p.Candidates.Dataset().NumFeatures
	tx := p.targetRows()
	for _, v := range variants {
		if f.preds[v.Model] != nil {
			continue
		}
		reg := regs[v.Model]
		if reg == nil {
			return nil, fmt.Errorf("offpolicy: no regressor for DM model %q", v.Model)
		}
		model, err := reg.Fit(ctx, x, cols, y)
		if err != nil {
			return nil, fmt.Errorf("offpolicy: DM %s: %w", v.Model, err)
		}
		pr := make([]float64, p.Candidates.NumQueries())
		err = model.Predict(ctx, tx, cols, pr)
		if c, ok := model.(io.Closer); ok {
			c.Close()
		}
		if err != nil {
			return nil, fmt.Errorf("offpolicy: DM %s: %w", v.Model, err)
		}
		f.preds[v.Model] = pr
	}
	return f, nil
}
