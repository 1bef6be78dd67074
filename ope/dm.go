package ope

import (
	"context"
	"fmt"
	"io"
	"math"
)

// Regressor fits the direct method's reward model: a regression of the
// logged reward on the concatenated features of the ℓ slotted documents
// (slateFeatures). Implementations train through package trainer
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

// dmRows returns the DM design matrix of the first n samples: per sample
// the feature rows of its slotted documents, zeros past ℓ_x. Rows already
// built for a longer prefix are reused.
func (p *Plan) dmRows(d *Samples, n int) (x []float32, y []float32) {
	ds := p.Candidates.Dataset()
	nf, l := ds.NumFeatures, p.Slots
	cols := l * nf
	if n <= d.rows {
		return d.x[:n*cols], d.y[:n]
	}
	if cap(d.x) < n*cols {
		// Grow to the whole kept part at once: the next prefix is longer.
		x := make([]float32, n*cols, max(n, len(d.q))*cols)
		copy(x, d.x[:d.rows*cols])
		d.x = x
	}
	d.x = d.x[:n*cols]
	x = d.x
	d.y = d.y[:d.rows]
	docs := make([]int32, l)
	for i := d.rows; i < n; i++ {
		d.y = append(d.y, float32(d.r[i]))
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
		slateFeatures(x[i*cols:(i+1)*cols], ds.Features[lo*nf:hi*nf], nf, docs[:k], l)
	}
	d.rows = n
	return x, d.y[:n]
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
		slateFeatures(x[q*l*nf:(q+1)*l*nf], ds.Features[lo*nf:hi*nf], nf, docs[:len(star)], l)
	}
	return x
}

// DMFit is what DM's models give at one training size: each model's
// prediction of every query's target slate, and the range of the training
// rewards, which the clipped variants clip to. The zero value is no fit.
type DMFit struct {
	nTrain int
	preds  map[string][]float64
	clip   Interval
}

// DirectMethod trains every model the DM variants need on the first nTrain
// samples of train and evaluates the variants on an evaluation part given
// by its per-query sample counts (the estimate averages the models'
// prediction of each query's target slate over them). fit is reused when
// it was made on the same nTrain samples (a sweep whose training part is
// capped fits once for every larger log), and made again in place
// otherwise.
func (p *Plan) DirectMethod(ctx context.Context, train *Samples, nTrain int, evalCounts []int64, regs map[string]Regressor, variants []DMVariant, fit *DMFit) (map[string]*Estimate, error) {
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
	if fit.nTrain != nTrain { // nTrain ≥ 1 here: a new DMFit never matches
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
		val, _ := dmValue(fit.preds[v.Model], evalCounts, c)
		e.Value = Float(val)
		out[v.Name] = e
	}
	return out, nil
}

// fitDM fits every model the DM variants need on the first nTrain samples
// of train and predicts every query's target slate with it.
func (p *Plan) fitDM(ctx context.Context, train *Samples, nTrain int, regs map[string]Regressor, variants []DMVariant) (*DMFit, error) {
	x, y := p.dmRows(train, nTrain)
	f := &DMFit{nTrain: nTrain, preds: map[string][]float64{}, clip: Interval{Lo: math.Inf(1), Hi: math.Inf(-1)}}
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

// dmEstimator gives DM's variants: it keeps the first trainN samples to
// train on and counts the rest's contexts, the evaluation part.
type dmEstimator struct {
	plan       *Plan
	variants   []DMVariant
	regs       map[string]Regressor
	trainN     int64
	train      *Samples
	evalCounts []int64
}

func (e *dmEstimator) Names() []string {
	out := make([]string, len(e.variants))
	for i, v := range e.variants {
		out[i] = v.Name
	}
	return out
}

func (e *dmEstimator) Add(s *Sample) {
	if s.Index < e.trainN {
		e.train.Add(s.Query, s.Slate, s.Reward)
	} else {
		e.evalCounts[s.Query]++
	}
}

func (e *dmEstimator) Estimate(ctx context.Context, _ *Summary) ([]*Estimate, error) {
	dm, err := e.plan.DirectMethod(ctx, e.train, e.train.len(), e.evalCounts, e.regs, e.variants, new(DMFit))
	if err != nil {
		return nil, err
	}
	out := make([]*Estimate, len(e.variants))
	for i, v := range e.variants {
		out[i] = dm[v.Name]
	}
	return out, nil
}

// The direct method (DM) regresses the logged reward on a description of
// the (context, slate) pair and predicts the target's slate with the fitted
// model. Following the paper's experiments (and the authors' scripts), the
// description is the concatenation of the feature rows of the ℓ slotted
// documents, slot 1 first, with zeros for the slots a short query cannot
// fill. The model is fitted elsewhere (eval trains nothing); this file holds
// the covariates and the estimate.

// slateFeatures writes the DM covariates of a slate into dst (length
// slots·nf): the feature rows of the slate's documents in slot order, zeros
// for slots past the end of the slate. rows holds the query's documents,
// nf features each (row-major, as data.Dataset.Features); slate holds
// document positions inside the query.
func slateFeatures(dst []float32, rows []float32, nf int, slate []int32, slots int) {
	dst = dst[:slots*nf]
	for j := range slots {
		out := dst[j*nf : (j+1)*nf]
		if j < len(slate) {
			a := int(slate[j])
			copy(out, rows[a*nf:(a+1)*nf])
		} else {
			clear(out)
		}
	}
}

// dmValue returns the DM estimate Σ_x c_x·f̂_x / Σ_x c_x from the
// model's prediction f̂_x of the target slate of each context and the number
// c_x of evaluation samples with that context. With clip non-nil each
// prediction is first clipped to [clip.Lo, clip.Hi] (the clipped variant
// uses the range of the rewards seen in the training part). ok is false when
// there is no evaluation sample; the value is then 0.
func dmValue(preds []float64, counts []int64, clip *Interval) (v float64, ok bool) {
	var num float64
	var den int64
	for x, c := range counts {
		if c == 0 {
			continue
		}
		p := preds[x]
		if clip != nil {
			p = min(max(p, clip.Lo), clip.Hi)
		}
		num += float64(c) * p
		den += c
	}
	if den == 0 {
		return 0, false
	}
	return num / float64(den), true
}
