package impute

import "math"

// Γ's structural null space. For a slate distribution of full support over
// m candidates every slate s satisfies Σ_a 1_s(j, a) = 1 for every slot j,
// and, when ℓ = m, Σ_j 1_s(j, a) = 1 for every candidate a. Hence every
// v(j, a) = α_j with Σ_j α_j = 0 (ℓ < m), or v(j, a) = α_j + β_a with
// Σα + Σβ = 0 (ℓ = m), has 1_sᵀv = 0 for every slate and lies in Γ's null
// space N; full support makes N all of it (TestStructuralNullSpace checks
// this against enumeration):
//
//	ℓ < m: dim N = ℓ − 1,  rank Γ = ℓ(m − 1) + 1;
//	ℓ = m: dim N = 2m − 2, rank Γ = (m − 1)² + 1.
//
// In Gamma's block basis N splits in two. Its class-mean part, in the
// orthonormal coordinates y(j, c) = Σ_{a∈c} v(j, a)/√n_c of G, is
// {α ⊗ √n + 1_ℓ ⊗ γ} under the constraint above (γ_c = Σ_{a∈c} β_a/√n_c,
// and γ = 0 when ℓ < m); its within-class part, for ℓ = m only, is 1_ℓ in
// every class block M_c with n_c ≥ 2.

// structuralRank returns the rank of Γ of a full-support distribution over
// l slots of m candidates.
func structuralRank(m, l int) int {
	if l < m {
		return l*(m-1) + 1
	}
	return (m-1)*(m-1) + 1
}

// meanNullBasis returns an orthonormal basis of the class-mean part of N
// in G's coordinates (index j·C + c), for classes of the given sizes and l
// slots: ℓ − 1 vectors when ℓ < m, ℓ + C − 2 when ℓ = m.
func meanNullBasis(sizes []int, l int) [][]float64 {
	nc := len(sizes)
	m := 0
	s := make([]float64, nc) // √n_c
	for c, n := range sizes {
		m += n
		s[c] = math.Sqrt(float64(n))
	}
	n := l * nc
	var gens [][]float64
	// α ⊗ √n with α = e_i − e_0.
	for i := 1; i < l; i++ {
		v := make([]float64, n)
		for c := range nc {
			v[i*nc+c] = s[c]
			v[c] = -s[c]
		}
		gens = append(gens, v)
	}
	if l == m {
		// 1_ℓ ⊗ γ with γ ⟂ √n: γ = e_c/√n_c − e_0/√n_0.
		for c := 1; c < nc; c++ {
			v := make([]float64, n)
			for j := range l {
				v[j*nc+c] = 1 / s[c]
				v[j*nc] = -1 / s[0]
			}
			gens = append(gens, v)
		}
		// α = e_0 with γ = −√n/m, so that Σα + γ·√n = 0.
		v := make([]float64, n)
		for j := range l {
			for c := range nc {
				v[j*nc+c] = -s[c] / float64(m)
			}
		}
		for c := range nc {
			v[c] += s[c]
		}
		gens = append(gens, v)
	}
	return orthonormalize(gens)
}

// orthonormalize returns an orthonormal basis of the span of vs by modified
// Gram–Schmidt applied twice, dropping vectors that fall below 1e-8 of
// their norm (dependent generators). vs is overwritten.
func orthonormalize(vs [][]float64) [][]float64 {
	var out [][]float64
	for _, v := range vs {
		n0 := norm2(v)
		if n0 == 0 {
			continue
		}
		for range 2 {
			for _, q := range out {
				axpy(v, -dot(q, v), q)
			}
		}
		nv := norm2(v)
		if nv <= 1e-8*n0 {
			continue
		}
		for i := range v {
			v[i] /= nv
		}
		out = append(out, v)
	}
	return out
}

// projectOut sets v to (I − QQᵀ)v for the orthonormal columns q of Q.
func projectOut(v []float64, qs [][]float64) {
	for _, q := range qs {
		axpy(v, -dot(q, v), q)
	}
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// axpy sets y += a·x.
func axpy(y []float64, a float64, x []float64) {
	for i, v := range x {
		y[i] += a * v
	}
}

func norm2(v []float64) float64 { return math.Sqrt(dot(v, v)) }
