package impute

// Dense references for Γ and Γ†: what the structured Gamma is tested
// against. No production code builds an ℓm × ℓm matrix.

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// denseGamma returns Γ as an ℓm × ℓm matrix, for references and small shapes.
func denseGamma(g *Gamma) *mat.SymDense {
	n := g.l * g.m
	out := mat.NewSymDense(n, nil)
	for r := range n {
		for c := r; c < n; c++ {
			out.SetSym(r, c, g.at(r/g.m, r%g.m, c/g.m, c%g.m))
		}
	}
	return out
}

// densePinv returns Gamma's Γ† as an ℓm × ℓm matrix (applying it to unit
// vectors), for comparisons with the references on small shapes.
func densePinv(g *Gamma) *mat.SymDense {
	n := g.l * g.m
	out := mat.NewSymDense(n, nil)
	e := make([]float64, n)
	col := make([]float64, n)
	for c := range n {
		e[c] = 1
		g.PinvMulVec(col, e)
		e[c] = 0
		for r := 0; r <= c; r++ {
			out.SetSym(r, c, col[r])
		}
	}
	return out
}

// densePinvReference returns the Moore–Penrose pseudoinverse of the
// symmetric matrix a by eigendecomposition, dropping eigenvalues at or below
// rel × the largest one, and its spectrum summary: the dense O((ℓm)³) test
// reference that Gamma's structured Γ† must match.
func densePinvReference(a mat.Symmetric, rel float64) (*mat.SymDense, Spectrum, error) {
	var es mat.EigenSym
	if !es.Factorize(a, true) {
		return nil, Spectrum{}, fmt.Errorf("impute: eigendecomposition failed")
	}
	vals := es.Values(nil)
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	n := a.SymmetricDim()
	var sp Spectrum
	for _, v := range vals {
		sp.Max = max(sp.Max, v)
	}
	sp.cutoff = rel * sp.Max
	sp.MinKept = math.Inf(1)
	out := mat.NewSymDense(n, nil)
	for i, v := range vals {
		if v <= sp.cutoff {
			sp.MaxDropped = max(sp.MaxDropped, v)
			continue
		}
		sp.Rank++
		sp.MinKept = min(sp.MinKept, v)
		for r := range n {
			x := vecs.At(r, i) / v
			for c := r; c < n; c++ {
				out.SetSym(r, c, out.At(r, c)+x*vecs.At(c, i))
			}
		}
	}
	return out, sp, nil
}

// enumerateGamma returns Γ = Σ_s μ(s) 1_s 1_sᵀ by visiting every slate of d:
// the brute-force test reference. It refuses shapes of more than maxSlates
// slates.
func enumerateGamma(d *Dist, maxSlates float64) (*mat.SymDense, error) {
	if d.numSlates() > maxSlates {
		return nil, fmt.Errorf("impute: %g slates of %d from %d candidates exceed %g", d.numSlates(), d.l, d.m, maxSlates)
	}
	n := d.l * d.m
	acc := make([]float64, n*n)
	d.EachSlate(func(s []int32, p float64) {
		for j, a := range s {
			r := j*d.m + int(a)
			for k, b := range s {
				acc[r*n+k*d.m+int(b)] += p
			}
		}
	})
	return mat.NewSymDense(n, acc), nil
}
