package ope

// Doubly-robust PI (dr, wdr). A slot-additive reward model φ̄_x(j, a)
// predicts the value of every slate, 1_sᵀφ̄_x; PI is applied to what the
// model gets wrong and the model's value of the target is added:
//
//	dr   V̂ = (1/n) Σ_i [b_i + G_i (r_i − c_i)]
//	wdr  V̂ = (1/n) Σ_i b_i + Σ_i G_i (r_i − c_i) / Σ_i G_i
//
// with G_i the PI weight q_πᵀΓ†1_{s_i}, b_i = q_πᵀφ̄_{x_i} the model's value
// of the target and c_i = 1_{s_i}ᵀφ̄_{x_i} its value of the logged slate.
// wdr self-normalises the correction term exactly as wPI self-normalises
// PI (Σ r w / Σ w): with φ̄ ≡ 0, dr is PI and wdr is wPI.
//
// E_μ[G·1_sᵀφ̄] = q_πᵀΓ†Γφ̄ = q_πᵀφ̄ whenever PI is unbiased (q_π in the
// range of Γ), so under an additive reward dr is unbiased for every fixed
// φ̄, and its terms are b + G(r − c): the closer φ̄ is to the true φ, the
// smaller the residual r − c that the weights multiply. With φ̄(j, a) = β/ℓ
// every slate is worth β and dr is the control-variate estimate with
// coefficient β (cv.go).
//
// The model must be fixed before the log is read (fitted on other data or
// cross-fitted): fitted on the same samples, φ̄ correlates with the
// residuals and dr loses its unbiasedness.

// DRSums are the sufficient statistics of dr and wdr over a log. The zero
// value is an empty log.
type DRSums struct {
	// Terms holds Z_i = b_i + G_i(r_i − c_i) with weight 1: dr is its mean,
	// and its empirical-Bernstein interval is dr's.
	Terms Sums
	// Base holds b_i with weight 1; Corr holds the residual r_i − c_i with
	// weight G_i. wdr is Base's mean plus Corr's self-normalised mean.
	Base, Corr Sums
}

// Add records one sample: reward r, PI weight w, the model's value b of
// the target's slate and its value c of the logged slate.
func (d *DRSums) Add(r, w, b, c float64) {
	e := r - c
	d.Terms.Add(b+w*e, 1)
	d.Base.Add(b, 1)
	d.Corr.Add(e, w)
}

// Merge adds the statistics of another log to d: a cross-fitted dr is the
// merge of its folds' sums, each computed with its own fold's model.
func (d *DRSums) Merge(o *DRSums) {
	d.Terms = mergeSums(d.Terms, o.Terms)
	d.Base = mergeSums(d.Base, o.Base)
	d.Corr = mergeSums(d.Corr, o.Corr)
}

// Value returns dr, or 0 for an empty log.
func (d *DRSums) Value() float64 { return d.Terms.Mean() }

// SelfNormalized returns wdr. When Σ G_i = 0 the correction is dropped and
// ok is false (the caller must warn), as wPI does.
func (d *DRSums) SelfNormalized() (v float64, ok bool) {
	corr, ok := d.Corr.SelfNormalized()
	return d.Base.Mean() + corr, ok
}

// DRSpec is what the intervals of dr and wdr know besides the log: the
// confidence level, the PI weights' range, the rewards' range (Bound;
// Sigma2 is not used) and the range [ModelLo, ModelHi] of the model's value
// 1_sᵀφ̄_x over every context and every slate μ can log (which also holds
// q_πᵀφ̄_x, a mean of slate values).
type DRSpec struct {
	Bound            BoundSpec
	ModelLo, ModelHi float64
}

// residualRange is the range of r − c.
func (p DRSpec) residualRange() (lo, hi float64) {
	return p.Bound.RewardLo - p.ModelHi, p.Bound.RewardHi - p.ModelLo
}

// EmpiricalBernstein returns Maurer and Pontil's interval for dr: the
// terms Z_i are i.i.d. with range [ModelLo, ModelHi] + w·[residual range],
// so EmpiricalBernstein applies to their Sums as is; the result is
// intersected with the reward range, which holds V.
func (d *DRSums) EmpiricalBernstein(p DRSpec) Interval {
	b := p.Bound
	elo, ehi := p.residualRange()
	glo, ghi := productRange(elo, ehi, b.WeightLo, b.WeightHi)
	zb := BoundSpec{Delta: b.Delta, WeightLo: 1, WeightHi: 1, RewardLo: p.ModelLo + glo, RewardHi: p.ModelHi + ghi}
	iv := EmpiricalBernstein(&d.Terms, zb)
	return b.Intersect(iv.Lo, iv.Hi, d.Value())
}

// EmpiricalBernsteinSelfNormalized returns an interval for wdr by a union
// bound: each of its two parts gets half of δ, the model's mean value of
// the target (EmpiricalBernstein on the b_i, range [ModelLo, ModelHi]) and
// the self-normalised correction (EmpiricalBernsteinSelfNormalized on the
// residuals weighted by G, whose target is E[G(r − c)]/E[G] = E[G(r − c)]).
// The expectations of the two parts add up to V; so do the intervals' ends.
func (d *DRSums) EmpiricalBernsteinSelfNormalized(p DRSpec) Interval {
	b := p.Bound
	v, _ := d.SelfNormalized()
	if d.Terms.N < 2 {
		return Interval{b.RewardLo, b.RewardHi}
	}
	half := b.Delta / 2
	base := EmpiricalBernstein(&d.Base, BoundSpec{Delta: half, WeightLo: 1, WeightHi: 1, RewardLo: p.ModelLo, RewardHi: p.ModelHi})
	elo, ehi := p.residualRange()
	corr := EmpiricalBernsteinSelfNormalized(&d.Corr, BoundSpec{Delta: half, WeightLo: b.WeightLo, WeightHi: b.WeightHi, RewardLo: elo, RewardHi: ehi})
	return b.Intersect(base.Lo+corr.Lo, base.Hi+corr.Hi, v)
}
