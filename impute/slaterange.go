package impute

import "math"

// MaxSlate returns the slate of l distinct candidates out of m that
// maximises Σ_j w(j, s_j) for an ℓm vector w, and that maximum: an
// assignment problem, solved exactly by the Hungarian algorithm in O(ℓ²m).
func MaxSlate(w []float64, m, l int) ([]int32, float64) {
	if l < 1 || l > m || len(w) != l*m {
		panic("impute: MaxSlate: need 1 ≤ ℓ ≤ m and len(w) = ℓm")
	}
	// Minimise −w with potentials u (slots) and v (candidates); 1-based
	// indices, column 0 is the virtual start.
	inf := math.Inf(1)
	u := make([]float64, l+1)
	v := make([]float64, m+1)
	p := make([]int, m+1) // p[j]: slot assigned to candidate j (0: none)
	way := make([]int, m+1)
	minv := make([]float64, m+1)
	used := make([]bool, m+1)
	for i := 1; i <= l; i++ {
		p[0] = i
		j0 := 0
		for j := range minv {
			minv[j] = inf
			used[j] = false
		}
		for {
			used[j0] = true
			i0, delta, j1 := p[j0], inf, 0
			for j := 1; j <= m; j++ {
				if used[j] {
					continue
				}
				cur := -w[(i0-1)*m+j-1] - u[i0] - v[j]
				if cur < minv[j] {
					minv[j], way[j] = cur, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			for j := 0; j <= m; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	s := make([]int32, l)
	for j := 1; j <= m; j++ {
		if p[j] != 0 {
			s[p[j]-1] = int32(j - 1)
		}
	}
	return s, SlateSum(w, m, s)
}

// SlateSumRange returns the smallest and largest Σ_j w(j, s_j) over all
// slates of l distinct candidates out of m. With w = Γ†q_π it bounds the PI
// weights q_πᵀΓ†1_s of query x: ρ_x = max(|lo|, |hi|) in the paper's
// deviation bound.
func SlateSumRange(w []float64, m, l int) (lo, hi float64) {
	_, hi = MaxSlate(w, m, l)
	neg := make([]float64, len(w))
	for i, x := range w {
		neg[i] = -x
	}
	_, nlo := MaxSlate(neg, m, l)
	return -nlo, hi
}
