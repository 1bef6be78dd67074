package impute

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/piopt/piopt/data"
	"gonum.org/v1/gonum/mat"
)

// drCase is a set of logged units (queries, or a policy file's contexts)
// small enough to enumerate every slate: the candidates, the Γ cache
// ComputeTargets uses, and each unit's slate distribution μ_x.
type drCase struct {
	name  string
	c     *Candidates
	gc    *GammaCache
	dists []*Dist
	slots int
	// deficient: some unit's Γ has a null space that φ̄ reaches, so that
	// E[φ̂_DR] ≠ E[φ̂] there.
	deficient bool
}

// drDataset is a dataset of queries of the given sizes, labels unused.
func drDataset(sizes ...int) *data.Dataset {
	ds := &data.Dataset{NumFeatures: 1, QueryOffsets: []int{0}, Source: "dr.txt"}
	for i, n := range sizes {
		for d := range n {
			ds.Labels = append(ds.Labels, uint8(d%3))
			ds.Features = append(ds.Features, float32(d))
		}
		ds.QueryOffsets = append(ds.QueryOffsets, len(ds.Labels))
		ds.QIDs = append(ds.QIDs, fmt.Sprint(10+i))
	}
	return ds
}

// drNamedCases are the named policies, one Γ per query shape: uniform
// (whose Γ always has a null space), p_α and ε-mixtures, at ℓ = 2 and 3
// over queries of 1 to 5 documents (ℓ_x = m_x where m_x ≤ ℓ: Γ of the
// permutations, rank-deficient too).
func drNamedCases(t *testing.T) []drCase {
	var out []drCase
	for _, spec := range []string{"uniform", "pa:1", "pa:2", "eps:0.3,pa:1", "eps:0.5,uniform"} {
		for _, slots := range []int{2, 3} {
			ds := drDataset(3, 4, 5, 2, 1)
			c, err := NewCandidates(ds, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			lg := mustLogging(t, spec)
			cs := drCase{name: fmt.Sprintf("%s ℓ=%d", spec, slots), c: c, gc: NewGammaCache(lg, GammaOptions{}), slots: slots, deficient: true}
			for q := range c.NumQueries() {
				d, err := lg.Dist(c.Size(q), c.Slots(q, slots))
				if err != nil {
					t.Fatal(err)
				}
				cs.dists = append(cs.dists, d)
			}
			out = append(out, cs)
		}
	}
	return out
}

// drContextCase is a policy file's contexts: several policies per query
// (Plackett–Luce, an explicit slate list whose Γ is rank-deficient, its
// ε-mixture, p_α, uniform), over overlapping candidate lists.
func drContextCase(t *testing.T) drCase {
	ds := drDataset(5, 4)
	src := rand.New(rand.NewPCG(11, 12))
	type ctxSpec struct {
		name, spec string
		query      int
		docs       []int32
	}
	specs := []ctxSpec{
		{"10@a", "pl:0.7", 0, []int32{0, 1, 2, 3}},
		{"10@b", "slates", 0, []int32{4, 2, 1, 0}},
		{"10@c", "eps:0.25,slates", 0, []int32{0, 1, 2, 3, 4}},
		{"10@d", "pa:1", 0, []int32{3, 1}},
		{"11", "eps:0.3,pl:1", 1, []int32{3, 0, 1, 2}},
		{"11@u", "uniform", 1, []int32{2, 1, 0}},
	}
	const slots = 3
	var ctxs []Context
	var dists []*Dist
	for _, s := range specs {
		lg := mustLogging(t, s.spec)
		m := len(s.docs)
		l := min(slots, m)
		var d *Dist
		var err error
		switch {
		case lg.NeedsScores():
			scores := make([]float64, m)
			for a := range scores {
				scores[a] = 1.5 - 0.4*float64(a)
			}
			d, err = lg.ScoredDist(scores, l)
		case lg.NeedsSlates():
			slates, probs := randomSlates(src, m, l, 4)
			d, err = lg.SlateDist(m, l, slates, probs)
		default:
			d, err = lg.Dist(m, l)
		}
		if err != nil {
			t.Fatal(err)
		}
		ctxs = append(ctxs, Context{Name: s.name, Query: s.query, Docs: s.docs, Dist: d})
		dists = append(dists, d)
	}
	c, err := NewContextCandidates(ds, ctxs)
	if err != nil {
		t.Fatal(err)
	}
	return drCase{name: "contexts", c: c, gc: NewContextGammas(dists, GammaOptions{}), dists: dists, slots: slots, deficient: true}
}

// unitRows returns unit x's ℓm vector (index j·m + a) from targets rows in
// which only x contributes to its query's rows.
func unitRows(c *Candidates, x int, tg *data.Targets, slots int) []float64 {
	m, l := c.Size(x), c.Slots(x, slots)
	out := make([]float64, l*m)
	pos := map[int32]int{}
	for a, d := range c.Docs(x) {
		pos[d] = a
	}
	for i := range tg.Len() {
		if int(tg.Query[i]) != c.Query(x) {
			continue
		}
		if a, ok := pos[tg.Doc[i]]; ok {
			out[int(tg.Slot[i]-1)*m+a] = tg.Target[i]
		}
	}
	return out
}

// oneImpression returns unit x's target from a log of the single
// impression (s, r), through the production path: PI targets with base
// nil, else the residual fed into Stats and ComputeTargets adding φ̄ back.
func oneImpression(t *testing.T, cs drCase, x int, s []int32, r float64, base Baseline) []float64 {
	t.Helper()
	st, err := NewStats(cs.c, cs.slots)
	if err != nil {
		t.Fatal(err)
	}
	if base != nil {
		r = base.Residual(x, cs.c.Size(x), s, r)
	}
	st.Add(x, s, r)
	tg, err := ComputeTargets(context.Background(), st, cs.gc, TargetOptions{Baseline: base, threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	return unitRows(cs.c, x, tg, cs.slots)
}

// randomBaseline is an arbitrary (deliberately poor) φ̄ for every unit.
func randomBaseline(c *Candidates, slots int, src *rand.Rand) Baseline {
	b := make(Baseline, c.NumQueries())
	for x := range b {
		b[x] = make([]float64, c.Slots(x, slots)*c.Size(x))
		for i := range b[x] {
			b[x][i] = 2*src.Float64() - 1
		}
	}
	return b
}

// nonAdditive is a reward no slot-additive model explains.
func nonAdditive(s []int32) float64 {
	v := 0.3
	for j, a := range s {
		v += math.Sin(float64((j+2)*(int(a)+1))) * float64(j+1)
	}
	return v * v / 4
}

// expectation returns E_μ[target] of unit x over every slate μ_x can log,
// each slate's target from oneImpression with reward r(s).
func expectation(t *testing.T, cs drCase, x int, r func(s []int32) float64, base Baseline) []float64 {
	d := cs.dists[x]
	acc := make([]float64, d.l*d.m)
	d.EachSlate(func(s []int32, p float64) {
		if p == 0 {
			return
		}
		v := oneImpression(t, cs, x, s, r(s), base)
		for i := range acc {
			acc[i] += p * v[i]
		}
	})
	return acc
}

// nullPart returns (I − Γ†Γ)v with Γ enumerated from μ and Γ† the dense
// reference pseudoinverse: independent of the structured Γ† under test.
func nullPart(t *testing.T, d *Dist, v []float64) []float64 {
	n := d.l * d.m
	ref := make([]float64, n*n)
	d.EachSlate(func(s []int32, p float64) {
		for j, a := range s {
			for k, b := range s {
				ref[(j*d.m+int(a))*n+k*d.m+int(b)] += p
			}
		}
	})
	g := mat.NewSymDense(n, ref)
	pinv, _, err := densePinvReference(g, defaultCutoff)
	if err != nil {
		t.Fatal(err)
	}
	var proj mat.Dense
	proj.Mul(pinv, g)
	out := make([]float64, n)
	for i := range n {
		out[i] = v[i]
		for k := range n {
			out[i] -= proj.At(i, k) * v[k]
		}
	}
	return out
}

// targetPolicies returns q_π and V(π) of target policies whose q_π lies in
// Γ's range: up to three slates μ logs, a mixture of them, and uniform
// over every slate when μ has full support.
func targetPolicies(d *Dist, reward func(s []int32) float64) (qs [][]float64, vs []float64) {
	n := d.l * d.m
	var support [][]int32
	full := true
	d.EachSlate(func(s []int32, p float64) {
		if p == 0 {
			full = false
			return
		}
		support = append(support, append([]int32(nil), s...))
	})
	mix := make([]float64, n)
	vmix := 0.0
	weights := []float64{0.5, 0.3, 0.2}
	for i, s := range support[:min(3, len(support))] {
		qs, vs = append(qs, Indicator(nil, d.m, s)), append(vs, reward(s))
		for k, a := range s {
			mix[k*d.m+int(a)] += weights[i]
		}
		vmix += weights[i] * reward(s)
	}
	if len(support) >= 3 {
		qs, vs = append(qs, mix), append(vs, vmix)
	}
	if full {
		u := make([]float64, n)
		vu := 0.0
		for _, s := range support {
			w := 1 / float64(len(support))
			for k, a := range s {
				u[k*d.m+int(a)] += w
			}
			vu += w * reward(s)
		}
		qs, vs = append(qs, u), append(vs, vu)
	}
	return qs, vs
}

// Doubly-robust targets are unbiased wherever PI targets are, for every
// logging spec, by exact enumeration of every slate of every unit through
// ComputeTargets: with an arbitrary fixed φ̄,
//   - E[φ̂_DR] − E[φ̂] = (I − Γ†Γ)φ̄ for any reward (Γ† the dense
//     reference), so the two differ only in Γ's null space, and do differ
//     where Γ is rank-deficient;
//   - E[q_πᵀφ̂_DR] = E[q_πᵀφ̂] = V(π) under a slot-additive reward, for
//     targets π whose q_π lies in Γ's range;
//   - and with φ̄ the reward's own φ every impression's DR target is φ̄:
//     no variance left.
func TestDRTargetsUnbiasedByEnumeration(t *testing.T) {
	src := rand.New(rand.NewPCG(21, 22))
	cases := append(drNamedCases(t), drContextCase(t))
	for _, cs := range cases {
		base := randomBaseline(cs.c, cs.slots, src)
		truth := randomBaseline(cs.c, cs.slots, src) // φ of the additive reward
		nullSeen := 0.0
		for x, d := range cs.dists {
			name := fmt.Sprintf("%s %s (%s m=%d ℓ=%d)", cs.name, cs.c.Name(x), d.Logging(), d.m, d.l)
			tol := 1e-9 * max(1, 1e-7*cs.gcCondition(t, x))
			pi := expectation(t, cs, x, nonAdditive, nil)
			dr := expectation(t, cs, x, nonAdditive, base)
			want := nullPart(t, d, base[x])
			for i := range pi {
				if got := dr[i] - pi[i]; math.Abs(got-want[i]) > tol {
					t.Fatalf("%s: E[φ̂_DR] − E[φ̂] at %d = %v, (I − Γ†Γ)φ̄ = %v", name, i, got, want[i])
				}
				nullSeen = max(nullSeen, math.Abs(want[i]))
			}
			additive := func(s []int32) float64 { return SlateSum(truth[x], d.m, s) }
			piA := expectation(t, cs, x, additive, nil)
			drA := expectation(t, cs, x, additive, base)
			qs, vs := targetPolicies(d, additive)
			for k, q := range qs {
				if got := dot(q, drA); math.Abs(got-vs[k]) > tol {
					t.Errorf("%s: target %d: E[q_πᵀφ̂_DR] = %v, V(π) = %v", name, k, got, vs[k])
				}
				if got := dot(q, piA); math.Abs(got-vs[k]) > tol {
					t.Errorf("%s: target %d: E[q_πᵀφ̂] = %v, V(π) = %v", name, k, got, vs[k])
				}
			}
			d.EachSlate(func(s []int32, p float64) {
				if p == 0 {
					return
				}
				got := oneImpression(t, cs, x, s, additive(s), truth)
				for i, v := range got {
					if math.Abs(v-truth[x][i]) > 1e-12 {
						t.Fatalf("%s: slate %v with φ̄ = φ: target %v at %d, want φ̄ = %v", name, s, v, i, truth[x][i])
					}
				}
			})
		}
		if cs.deficient && nullSeen < 1e-3 {
			t.Errorf("%s: (I − Γ†Γ)φ̄ vanishes everywhere (%.3g): the case does not test the null space", cs.name, nullSeen)
		}
	}
}

// gcCondition is unit x's Γ condition number, which scales the round-off
// of Γ†.
func (cs drCase) gcCondition(t *testing.T, x int) float64 {
	g, err := cs.gc.Query(x, cs.c.Size(x), cs.c.Slots(x, cs.slots))
	if err != nil {
		t.Fatal(err)
	}
	return g.Spectrum().Condition()
}

// Several contexts of one query: with one impression each, a (doc, slot)
// row averages the DR targets of the contexts listing the doc, so its
// expectation over every pair of slates is the mean of the contexts'
// expectations (each checked unbiased above).
func TestDRTargetsContextAverage(t *testing.T) {
	cs := drContextCase(t)
	src := rand.New(rand.NewPCG(31, 32))
	base := randomBaseline(cs.c, cs.slots, src)
	const x1, x2 = 0, 1 // 10@a and 10@b, both of query 0
	e1 := expectation(t, cs, x1, nonAdditive, base)
	e2 := expectation(t, cs, x2, nonAdditive, base)
	type key struct {
		doc  int32
		slot uint8
	}
	got := map[key]float64{}
	d1, d2 := cs.dists[x1], cs.dists[x2]
	d1.EachSlate(func(s1 []int32, p1 float64) {
		if p1 == 0 {
			return
		}
		s1 = append([]int32(nil), s1...)
		d2.EachSlate(func(s2 []int32, p2 float64) {
			if p2 == 0 {
				return
			}
			st, err := NewStats(cs.c, cs.slots)
			if err != nil {
				t.Fatal(err)
			}
			st.Add(x1, s1, base.Residual(x1, d1.m, s1, nonAdditive(s1)))
			st.Add(x2, s2, base.Residual(x2, d2.m, s2, nonAdditive(s2)))
			tg, err := ComputeTargets(context.Background(), st, cs.gc, TargetOptions{Baseline: base, threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			for i := range tg.Len() {
				got[key{tg.Doc[i], tg.Slot[i]}] += p1 * p2 * tg.Target[i]
			}
		})
	})
	want := map[key]float64{}
	n := map[key]float64{}
	for _, u := range []struct {
		x int
		e []float64
	}{{x1, e1}, {x2, e2}} {
		m := cs.c.Size(u.x)
		for a, doc := range cs.c.Docs(u.x) {
			for j := range cs.c.Slots(u.x, cs.slots) {
				k := key{doc, uint8(j + 1)}
				want[k] += u.e[j*m+a]
				n[k]++
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	shared := 0
	for k, w := range want {
		w /= n[k]
		if n[k] > 1 {
			shared++
		}
		if math.Abs(got[k]-w) > 1e-9 {
			t.Errorf("doc %d slot %d: E[target] = %v, mean of the contexts' = %v", k.doc, k.slot, got[k], w)
		}
	}
	if shared == 0 {
		t.Fatal("the contexts share no row: the average is not tested")
	}
}

// A baseline of the wrong shape, or none for a unit with impressions, is
// refused by name.
func TestDRBaselineChecked(t *testing.T) {
	cs := drNamedCases(t)[0]
	src := rand.New(rand.NewPCG(1, 2))
	st, err := NewStats(cs.c, cs.slots)
	if err != nil {
		t.Fatal(err)
	}
	st.Add(1, []int32{0, 2}, 1)
	short := randomBaseline(cs.c, cs.slots, src)
	short[1] = short[1][:3]
	missing := randomBaseline(cs.c, cs.slots, src)
	missing[1] = nil
	for _, tc := range []struct {
		base Baseline
		want string
	}{
		{short, `impute: baseline of query "11" has 3 values, want ℓ·m = 8`},
		{missing, `impute: no baseline for query "11", which has impressions`},
		{short[:2], `impute: baseline of 2 units, the statistics have 5`},
	} {
		_, err := ComputeTargets(context.Background(), st, cs.gc, TargetOptions{Baseline: tc.base})
		if err == nil || err.Error() != tc.want {
			t.Errorf("error %v, want %s", err, tc.want)
		}
	}
}

// The residual statistics of a simulation are, bit for bit, those of its
// samples (Run, in order) with every reward replaced by r − 1_sᵀφ̄_x,
// whatever the threads; read back from the written log (AddLogResidual)
// they are the same.
func TestResidualStatsEqualSequential(t *testing.T) {
	ctx := context.Background()
	src := rand.New(rand.NewPCG(41, 42))
	for _, spec := range []string{"uniform", "pa:1"} {
		sim := testSimulation(t, spec, 8, 5)
		c := sim.Candidates
		base := randomBaseline(c, sim.Slots, src)
		seq, _ := NewStats(c, sim.Slots)
		var log strings.Builder
		log.WriteString("# piopt-log v1 slots=3 logging=" + spec + "\n")
		err := sim.Run(ctx, 5000, func(q int, s []int32, r float64) error {
			seq.Add(q, s, r-SlateSum(base[q], c.Size(q), s))
			docs := make([]string, len(s))
			for j, a := range s {
				docs[j] = fmt.Sprint(c.Docs(q)[a])
			}
			fmt.Fprintf(&log, "%s\t%s\t%s\n", c.Dataset().QIDs[q], strings.Join(docs, ","), strconv.FormatFloat(r, 'g', -1, 64))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, threads := range []int{1, 3} {
			got, err := sim.ResidualStats(ctx, 5000, threads, base, nil)
			if err != nil {
				t.Fatal(err)
			}
			sameStats(t, fmt.Sprintf("%s/%d threads", spec, threads), seq, got)
		}
		lr, err := data.NewLogReader(strings.NewReader(log.String()), "log.txt", c.Dataset())
		if err != nil {
			t.Fatal(err)
		}
		read, _ := NewStats(c, sim.Slots)
		if err := read.AddLogResidual(ctx, lr, base, nil); err != nil {
			t.Fatal(err)
		}
		sameStats(t, spec+" read back", seq, read)
	}
}
