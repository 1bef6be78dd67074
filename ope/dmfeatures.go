package ope

// The direct method (DM) regresses the logged reward on a description of
// the (context, slate) pair and predicts the target's slate with the fitted
// model. Following the paper's experiments (and the authors' scripts), the
// description is the concatenation of the feature rows of the ℓ slotted
// documents, slot 1 first, with zeros for the slots a short query cannot
// fill. The model is fitted elsewhere (eval trains nothing); this file holds
// the covariates and the estimate.

// SlateFeatures writes the DM covariates of a slate into dst (length
// slots·nf): the feature rows of the slate's documents in slot order, zeros
// for slots past the end of the slate. rows holds the query's documents,
// nf features each (row-major, as data.Dataset.Features); slate holds
// document positions inside the query.
func SlateFeatures(dst []float32, rows []float32, nf int, slate []int32, slots int) {
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

// DirectMethod returns the DM estimate Σ_x c_x·f̂_x / Σ_x c_x from the
// model's prediction f̂_x of the target slate of each context and the number
// c_x of evaluation samples with that context. With clip non-nil each
// prediction is first clipped to [clip.Lo, clip.Hi] (the clipped variant
// uses the range of the rewards seen in the training part). ok is false when
// there is no evaluation sample; the value is then 0.
func DirectMethod(preds []float64, counts []int64, clip *Interval) (v float64, ok bool) {
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
