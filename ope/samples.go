package ope

// Samples are logged impressions held in memory: per sample its query, its
// slate padded with −1 to the plan's Slots, and its reward in full
// precision. The estimators that fit models keep them: DM its training
// part, dr and wdr the whole log to cross-fit on (dr with φ̄ ≡ 0 is PI to
// the last bit, so the rewards are not rounded).
type Samples struct {
	slots int
	q     []int32
	s     []int32
	r     []float64
	// x and y cache DM's design matrix and rewards of the first rows
	// samples: a sweep fits on growing prefixes of the same samples.
	x    []float32
	y    []float32
	rows int
}

// NewSamples returns room for capacity samples of slates of slots slots.
func NewSamples(slots int, capacity int64) *Samples {
	return &Samples{slots: slots, q: make([]int32, 0, capacity), s: make([]int32, 0, capacity*int64(slots)),
		r: make([]float64, 0, capacity)}
}

// Add records one sample: query q, slate s (candidate indices, ℓ_x ≤ Slots
// of them) and reward r.
func (d *Samples) Add(q int, s []int32, r float64) {
	d.q = append(d.q, int32(q))
	d.s = append(d.s, s...)
	for range d.slots - len(s) {
		d.s = append(d.s, -1)
	}
	d.r = append(d.r, r)
}

// len returns the number of samples.
func (d *Samples) len() int { return len(d.q) }

// slate returns sample i's ℓ_x slotted candidates.
func (d *Samples) slate(p *Plan, i int) []int32 {
	return d.s[i*d.slots : i*d.slots+p.Candidates.Slots(int(d.q[i]), d.slots)]
}

// foldOut returns the first n samples but those of fold f (i mod k = f),
// in FitPhi's layout.
func (d *Samples) foldOut(n, k, f int) (q, s []int32, r []float32) {
	m := n - (n-f+k-1)/k
	q, s, r = make([]int32, 0, m), make([]int32, 0, m*d.slots), make([]float32, 0, m)
	for i := range n {
		if i%k == f {
			continue
		}
		q = append(q, d.q[i])
		s = append(s, d.s[i*d.slots:(i+1)*d.slots]...)
		r = append(r, float32(d.r[i]))
	}
	return q, s, r
}
