package impute

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// plBrute enumerates every ordered slate of l distinct candidates (class c
// has sizes[c] candidates of weight w[c]) with its Plackett–Luce
// probability Π_j w_{s_j} / Σ_{a ∉ s_1..s_{j−1}} w_a and returns the
// class-level moments.
func plBrute(sizes []int, w []float64, l int) *moments {
	var cls []int
	for c, n := range sizes {
		for range n {
			cls = append(cls, c)
		}
	}
	mo := newMoments(l, len(sizes))
	used := make([]bool, len(cls))
	slate := make([]int, l)
	var walk func(j int, prob float64)
	walk = func(j int, prob float64) {
		if j == l {
			for a := range l {
				mo.p1[a*mo.nc+slate[a]] += prob
				for b := a + 1; b < l; b++ {
					mo.setPair(a, b, slate[a], slate[b], mo.pair(a, b, slate[a], slate[b])+prob)
				}
			}
			return
		}
		// Summing what is left afresh, not subtracting from the total,
		// keeps extreme weight ratios exact to rounding.
		left := 0.0
		for i, c := range cls {
			if !used[i] {
				left += w[c]
			}
		}
		for i, c := range cls {
			if used[i] {
				continue
			}
			used[i] = true
			slate[j] = c
			walk(j+1, prob*w[c]/left)
			used[i] = false
		}
	}
	walk(0, 1)
	return mo
}

// plScores returns m Plackett–Luce weights exp((s − max s)/τ) of scores
// s ~ N(0, 1) drawn from seed, one class each.
func plScores(m int, tau float64, seed uint64) (sizes []int, w []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	s := make([]float64, m)
	for i := range s {
		s[i] = rng.NormFloat64()
	}
	top := slices.Max(s)
	sizes, w = make([]int, m), make([]float64, m)
	for i, v := range s {
		sizes[i], w[i] = 1, math.Exp((v-top)/tau)
	}
	return sizes, w
}

// checkWithin fails unless every moment of got is within tol of want.
func checkWithin(t *testing.T, what string, got, want *moments, tol float64) float64 {
	t.Helper()
	err := momentsDiff(got, want)
	if !(err <= tol) {
		t.Errorf("%s: max |error| %.3g > %.3g", what, err, tol)
	}
	return err
}

func TestPlackettLuceBrute(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sizes []int
		w     []float64
		l     int
	}{
		{"distinct", []int{1, 1, 1, 1, 1, 1, 1}, []float64{3, 1.7, 1, 0.6, 0.25, 0.1, 0.02}, 4},
		{"distinct-l3", []int{1, 1, 1, 1, 1, 1}, []float64{0.2, 0.9, 0.4, 1.3, 0.7, 0.05}, 3},
		{"tied", []int{2, 3, 1, 1}, []float64{1, 0.5, 0.5, 2}, 4},
		{"p_alpha-like", []int{1, 2, 4}, []float64{1, 0.5, 0.25}, 3},
		{"one-class", []int{6}, []float64{2}, 3},
		{"extreme-small", []int{1, 1, 1, 1, 1, 1}, []float64{1, 1e-6, 3e-6, 1e-3, 0.5, 5e-7}, 3},
		{"extreme-large", []int{1, 1, 2, 1}, []float64{1e6, 1, 2, 3}, 4},
		{"permutations", []int{1, 1, 1, 1}, []float64{1, 1e-6, 1e-3, 10}, 4},
		{"one-slot", []int{1, 2, 1, 1}, []float64{0.3, 1, 1e-4, 2}, 1},
		{"tiny-scale", []int{1, 1, 1, 1, 1}, []float64{1e-300, 2e-300, 5e-301, 3e-300, 1e-301}, 3},
		{"empty-class", []int{2, 0, 3}, []float64{1, 5, 0.2}, 3},
		{"single", []int{1}, []float64{0.7}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := plBrute(tc.sizes, tc.w, tc.l)
			exact, err := plackettLuceMoments(tc.sizes, tc.w, tc.l, plOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if exact.method != "exact-dp" || !exact.exact || exact.bound != 0 {
				t.Errorf("default: method %q exact %v bound %g, want the exact programme", exact.method, exact.exact, exact.bound)
			}
			checkWithin(t, exact.method, exact, want, 1e-12)
			for _, tol := range []float64{0, 1e-6} {
				quad, err := plackettLuceMoments(tc.sizes, tc.w, tc.l, plOptions{ExactBudget: -1, Tol: tol})
				if err != nil {
					t.Fatal(err)
				}
				if quad.method != "clock-quadrature" || quad.exact || !(quad.bound > 0) {
					t.Errorf("forced: method %q exact %v bound %g", quad.method, quad.exact, quad.bound)
				}
				limit := max(tol, defaultPLTol)
				if quad.bound > limit {
					t.Errorf("Tol %g: bound %.3g", tol, quad.bound)
				}
				got := checkWithin(t, fmt.Sprintf("quadrature Tol %g", tol), quad, want, min(quad.bound, limit, 1e-9+tol))
				t.Logf("Tol %g: error %.2g, bound %.2g", tol, got, quad.bound)
			}
		})
	}
}

func TestPlackettLuceVsDP(t *testing.T) {
	for _, tc := range []struct {
		m, l int
		tau  float64
	}{{20, 5, 1}, {20, 5, 0.2}, {20, 5, 5}, {25, 4, 1}, {25, 5, 0.5}, {22, 6, 2}, {14, 9, 1}, {18, 8, 0.3}, {30, 3, 1}, {30, 4, 0.5}} {
		t.Run(fmt.Sprintf("m=%d,l=%d,tau=%g", tc.m, tc.l, tc.tau), func(t *testing.T) {
			sizes, w := plScores(tc.m, tc.tau, uint64(tc.m*100+tc.l))
			want, ok := weightedMoments(sizes, w, tc.l, 1<<22)
			if !ok {
				t.Fatal("programme too large")
			}
			got, err := plackettLuceMoments(sizes, w, tc.l, plOptions{ExactBudget: -1})
			if err != nil {
				t.Fatal(err)
			}
			e := checkWithin(t, "quadrature", got, want, min(got.bound, 1e-9))
			// A coarse tolerance makes the discretisation, and so the
			// contraction model of the bound, matter.
			coarse, err := plackettLuceMoments(sizes, w, tc.l, plOptions{ExactBudget: -1, Tol: 1e-6})
			if err != nil {
				t.Fatal(err)
			}
			if !(coarse.bound <= 1e-6) {
				t.Errorf("Tol 1e-6: bound %g", coarse.bound)
			}
			ec := checkWithin(t, "quadrature, Tol 1e-6", coarse, want, coarse.bound)
			t.Logf("error %.2g, bound %.2g; Tol 1e-6: error %.2g, bound %.2g", e, got.bound, ec, coarse.bound)
		})
	}
}

// TestPlackettLuceInterp checks the interpolation over the light classes
// (plinterp.go) against the same quadrature dividing by every class: the
// difference is the interpolation error, which the bound must cover, and
// is at rounding level with plInterpK's points. (TestPlackettLuceVsDP's
// shapes m = 20, ℓ = 5, τ = 0.2 and m = 30 interpolate too, checked there
// against the exact programme.)
func TestPlackettLuceInterp(t *testing.T) {
	shapes := []struct {
		m, l int
		tau  float64
	}{{80, 3, 1}, {60, 4, 1}, {50, 5, 0.3}, {100, 10, 5}}
	if testing.Short() {
		shapes = shapes[:3]
	}
	for _, tc := range shapes {
		t.Run(fmt.Sprintf("m=%d,l=%d,tau=%g", tc.m, tc.l, tc.tau), func(t *testing.T) {
			sizes, w := plScores(tc.m, tc.tau, uint64(tc.m*100+tc.l))
			pb := newPLProblem(sizes, w, tc.l, defaultPLTol*1e-3)
			if pb.wv == nil {
				t.Fatal("no light classes to interpolate")
			}
			got := pb.integrate(len(sizes), defaultPLTol, 2)
			direct := newPLProblem(sizes, w, tc.l, defaultPLTol*1e-3)
			direct.wv = nil
			want := direct.integrate(len(sizes), defaultPLTol, 2)
			if !(got.bound <= defaultPLTol) {
				t.Errorf("bound %g", got.bound)
			}
			e := checkWithin(t, "interpolated vs divided", got, want, min(got.bound, 1e-14))
			t.Logf("%d light classes, %d points: difference %.2g, bound %.2g", tc.m-pb.cL, len(pb.wv), e, got.bound)
		})
	}
}

// TestPlackettLuceManyPerClass forces the quadrature on shapes with large
// classes, where the exact programme is cheap: p_α-like rank classes, a
// heavy class of 40 (whose factors all drop below r = 1/2 together) and a
// single class (the uniform distribution).
func TestPlackettLuceManyPerClass(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sizes []int
		w     []float64
		l     int
	}{
		{"p_alpha,m=100,l=10", []int{1, 2, 4, 8, 16, 32, 37}, []float64{1, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625}, 10},
		{"heavy-40", []int{40, 60}, []float64{1, 0.01}, 10},
		{"uniform", []int{30}, []float64{3}, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, ok := weightedMoments(tc.sizes, tc.w, tc.l, 1<<20)
			if !ok {
				t.Fatal("programme too large")
			}
			got, err := plackettLuceMoments(tc.sizes, tc.w, tc.l, plOptions{ExactBudget: -1})
			if err != nil {
				t.Fatal(err)
			}
			e := checkWithin(t, "quadrature", got, want, min(got.bound, 1e-9))
			t.Logf("error %.2g, bound %.2g", e, got.bound)
		})
	}
}

// TestPlackettLuceClasses checks classes of several candidates against the
// same weights given one class per candidate.
func TestPlackettLuceClasses(t *testing.T) {
	sizes := []int{3, 1, 5, 2, 9}
	w := []float64{1, 0.3, 0.1, 2.5, 0.02}
	l := 6
	var flatW []float64
	var flatSizes []int
	for c, n := range sizes {
		for range n {
			flatW = append(flatW, w[c])
			flatSizes = append(flatSizes, 1)
		}
	}
	opt := plOptions{ExactBudget: -1}
	got, err := plackettLuceMoments(sizes, w, l, opt)
	if err != nil {
		t.Fatal(err)
	}
	flat, err := plackettLuceMoments(flatSizes, flatW, l, opt)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := weightedMoments(sizes, w, l, 1<<20)
	checkWithin(t, "classes vs exact", got, want, got.bound)
	// Sum the flat moments over the members of each class.
	nc, m := len(sizes), len(flatSizes)
	of := make([]int, 0, m)
	for c, n := range sizes {
		for range n {
			of = append(of, c)
		}
	}
	agg := newMoments(l, nc)
	for j := range l {
		for a := range m {
			agg.p1[j*nc+of[a]] += flat.p1[j*m+a]
			for k := range l {
				for b := range m {
					if k != j {
						agg.p2[(j*l+k)*nc*nc+of[a]*nc+of[b]] += flat.p2[(j*l+k)*m*m+a*m+b]
					}
				}
			}
		}
	}
	checkWithin(t, "classes vs candidates", got, agg, got.bound+float64(m*m)*flat.bound)
}

// TestPlackettLuceIdentities checks at m = 100, ℓ = 10 that every slot is
// filled once (Σ_c P_j(c) = 1), that pairs sum to singles
// (Σ_c' P_jk(c,c') = P_j(c)), symmetry, and that the results do not depend
// on the number of workers.
func TestPlackettLuceIdentities(t *testing.T) {
	taus := []float64{1, 0.2, 5}
	if testing.Short() {
		taus = taus[:1]
	}
	const m, l = 100, 10
	for _, tau := range taus {
		t.Run(fmt.Sprintf("tau=%g", tau), func(t *testing.T) {
			sizes, w := plScores(m, tau, 1)
			mo, err := plackettLuceMoments(sizes, w, l, plOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if mo.method != "clock-quadrature" || !(mo.bound > 0 && mo.bound <= defaultPLTol) {
				t.Fatalf("method %q bound %g", mo.method, mo.bound)
			}
			// Each identity sums m entries, each within the bound.
			worst := plIdentities(t, mo, float64(m)*mo.bound)
			t.Logf("bound %.2g, largest identity residual %.2g", mo.bound, worst)
			if tau == 1 {
				one := plQuadrature(sizes, w, l, defaultPLTol, 1)
				if momentsDiff(one, mo) != 0 {
					t.Errorf("1 worker and %d differ by %g", runtime.GOMAXPROCS(0), momentsDiff(one, mo))
				}
			}
		})
	}
}

// plIdentities checks the identities of moments mo to tol and returns the
// largest residual.
func plIdentities(t *testing.T, mo *moments, tol float64) float64 {
	t.Helper()
	l, nc := mo.l, mo.nc
	worst := 0.0
	check := func(what string, got, want float64) {
		r := math.Abs(got - want)
		worst = max(worst, r)
		if !(r <= tol) {
			t.Errorf("%s: %.17g, want %.17g", what, got, want)
		}
	}
	for j := range l {
		sum := 0.0
		for c := range nc {
			sum += mo.p1[j*nc+c]
			for k := range l {
				if k == j {
					continue
				}
				row := 0.0
				for c2 := range nc {
					row += mo.pair(j, k, c, c2)
					check("symmetry", mo.pair(j, k, c, c2), mo.pair(k, j, c2, c))
				}
				check(fmt.Sprintf("Σ_c' P_%d%d(%d,c')", j, k, c), row, mo.p1[j*nc+c])
			}
		}
		check(fmt.Sprintf("Σ_c P_%d(c)", j), sum, 1)
	}
	return worst
}

func TestPlackettLuceErrors(t *testing.T) {
	for _, tc := range []struct {
		sizes []int
		w     []float64
		l     int
		opt   plOptions
	}{
		{[]int{1, 1}, []float64{1}, 1, plOptions{}},
		{[]int{1, 1}, []float64{1, 0}, 2, plOptions{}},
		{[]int{1, 1}, []float64{1, -1}, 1, plOptions{}},
		{[]int{1, 1}, []float64{1, math.Inf(1)}, 1, plOptions{}},
		{[]int{1, 1}, []float64{1, math.NaN()}, 1, plOptions{}},
		{[]int{1, -1}, []float64{1, 1}, 1, plOptions{}},
		{[]int{1, 1}, []float64{1, 1}, 3, plOptions{}},
		{[]int{1, 1}, []float64{1, 1}, 0, plOptions{}},
		{[]int{1, 1}, []float64{1, 1}, 1, plOptions{Tol: -1}},
	} {
		if _, err := plackettLuceMoments(tc.sizes, tc.w, tc.l, tc.opt); err == nil {
			t.Errorf("%v %v ℓ=%d %+v: no error", tc.sizes, tc.w, tc.l, tc.opt)
		}
	}
}

func BenchmarkPlackettLuce(b *testing.B) {
	for _, bc := range []struct {
		name string
		m, l int
		tau  float64
	}{
		{"m=50,l=5", 50, 5, 1},
		{"m=100,l=10", 100, 10, 1},
		{"m=100,l=10,tau=0.2", 100, 10, 0.2},
		{"m=100,l=10,tau=5", 100, 10, 5},
	} {
		b.Run(bc.name, func(b *testing.B) {
			sizes, w := plScores(bc.m, bc.tau, 1)
			start := processCPU()
			for b.Loop() {
				if _, err := plackettLuceMoments(sizes, w, bc.l, plOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}
