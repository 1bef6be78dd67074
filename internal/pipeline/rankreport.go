package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/ranker"
)

// PolicyRandom names uniformly random slates in reports.
const PolicyRandom = "random"

// recordedRandomSamples is the random_samples of rank's JSON summary: the
// number of Monte Carlo slates per query behind random ERR before it became
// exact (eval.RandomERR), written unchanged so that summaries keep their
// bytes.
const recordedRandomSamples = 1000

// RankOptions control RankModels.
type RankOptions struct {
	// Slots is ℓ, the slate length and the metrics' cut-off; 0 means the
	// PI-OPT model's ℓ, or 3 without a PI-OPT model.
	Slots int
	// Slate is how PI-OPT pair scores become slates.
	Slate ranker.SlateMethod
	// Metrics to report; nil means NDCG and ERR.
	Metrics []eval.Kind
	// Conventions of the metrics.
	Conventions eval.Conventions
	// Seed is unused (random ERR used to be a Monte Carlo estimate); it is
	// kept for old configurations and recorded in the report.
	Seed uint64
	// Threads for inference; 0 means all cores. Results do not depend on it.
	Threads int
	// Progress, when not nil, is called with the number of documents scored
	// after each batch (e.g. a progress bar's Add).
	Progress func(n int64)
	// Names, when not nil, gives each model's policy name (one per model,
	// distinct, not "random"); otherwise a model is named by its kind.
	Names []string
}

// RankReport is what `piopt rank` computes: every model's slates on a test set
// and the mean of each metric per policy (each model by its kind, plus
// random), with per-query values.
type RankReport struct {
	Data        string // the dataset's source
	Conventions eval.Conventions
	Slots       int
	Queries     int
	Slate       ranker.SlateMethod
	Seed        uint64
	Metrics     []eval.Metric
	// Policies are the model names (kinds unless RankOptions.Names) in the
	// order given, then PolicyRandom.
	Policies []string
	// Models maps a model policy to its file.
	Models map[string]string
	// Rankings maps a model policy to its slates.
	Rankings map[string]*ranker.Ranking
	// Mean maps a metric name ("ndcg@3") and a policy to the mean over
	// queries; random NDCG and random ERR are exact expectations.
	Mean map[string]map[string]float64
	// PerQuery maps a metric name and a policy to the values per query, in
	// dataset order.
	PerQuery map[string]map[string][]float64
	// RandomStderr maps a metric name to the standard error of random's
	// mean: always 0, since random NDCG and ERR are exact. It is kept for the
	// JSON summary's err@ℓ_random_stderr key.
	RandomStderr map[string]float64
	// GreedyVsExact compares the two slate methods on the PI-OPT model;
	// nil without one.
	GreedyVsExact *SlateComparison
}

// RankModels ranks ds with every model (PI-OPT models by slot-action slates,
// pointwise models by score) and scores the slates, together with uniformly
// random slates, with every metric at cut-off ℓ. Models are named by their
// kind (or opt.Names), so names must not repeat.
func RankModels(ctx context.Context, ds *data.Dataset, models []*ranker.Model, opt RankOptions) (*RankReport, error) {
	kinds := opt.Metrics
	if kinds == nil {
		kinds = []eval.Kind{eval.KindNDCG, eval.KindERR}
	}
	names, slots, err := policyNames(models, opt)
	if err != nil {
		return nil, err
	}
	rep := &RankReport{
		Data: ds.Source, Conventions: opt.Conventions, Slots: slots, Queries: ds.NumQueries(),
		Slate: opt.Slate, Seed: opt.Seed,
		Models: map[string]string{}, Rankings: map[string]*ranker.Ranking{},
		Mean: map[string]map[string]float64{}, PerQuery: map[string]map[string][]float64{},
		RandomStderr: map[string]float64{},
	}
	for _, k := range kinds {
		rep.Metrics = append(rep.Metrics, eval.Metric{Kind: k, K: slots, Conventions: opt.Conventions})
	}
	for i, m := range models {
		if err := rep.rankModel(ctx, ds, m, names[i], opt); err != nil {
			return nil, err
		}
	}
	rep.Policies = append(rep.Policies, PolicyRandom)
	for _, met := range rep.Metrics {
		rep.score(ds, met)
	}
	return rep, nil
}

// policyNames returns the models' policy names (kinds unless opt.Names),
// checked to be distinct and not "random", and the slate length ℓ: opt.Slots,
// else the first PI-OPT model's ℓ, else 3.
func policyNames(models []*ranker.Model, opt RankOptions) (names []string, slots int, err error) {
	if opt.Names != nil && len(opt.Names) != len(models) {
		return nil, 0, fmt.Errorf("%d names for %d models", len(opt.Names), len(models))
	}
	names = make([]string, len(models))
	slots = opt.Slots
	seen := map[string]bool{PolicyRandom: true}
	for i, m := range models {
		names[i] = m.Meta().Kind
		if opt.Names != nil {
			names[i] = opt.Names[i]
		}
		if seen[names[i]] {
			return nil, 0, fmt.Errorf("policy name %q given twice (or reserved); models are named by kind unless RankOptions.Names says otherwise", names[i])
		}
		seen[names[i]] = true
		if m.Meta().Kind == features.KindPIOPT && slots == 0 {
			slots = m.Meta().Slots
		}
	}
	if slots == 0 {
		slots = 3
	}
	return names, slots, nil
}

// rankModel scores ds with m and adds its slates to the report as policy
// name. The first PI-OPT model is ranked both ways for the greedy/exact
// comparison; its slates are the chosen method's.
func (rep *RankReport) rankModel(ctx context.Context, ds *data.Dataset, m *ranker.Model, name string, opt RankOptions) error {
	sc, err := m.Score(ctx, ds, ranker.ScoreOptions{Threads: opt.Threads, Progress: opt.Progress})
	if err != nil {
		return err
	}
	var r *ranker.Ranking
	if sc.Slots > 0 && rep.GreedyVsExact == nil {
		g, e, err := rankBoth(ds, sc, rep.Slots)
		if err != nil {
			return fmt.Errorf("model %s: %w", m.Name(), err)
		}
		rep.GreedyVsExact = compareRankings(ds, g, e, rep.Metrics)
		r = g
		if opt.Slate == ranker.SlateExact {
			r = e
		}
	} else if r, err = ranker.Rank(ds, sc, rep.Slots, opt.Slate); err != nil {
		return fmt.Errorf("model %s: %w", m.Name(), err)
	}
	rep.Policies = append(rep.Policies, name)
	rep.Models[name] = m.Name()
	rep.Rankings[name] = r
	return nil
}

// score fills the report's per-query values and means of metric met for
// every model policy and for uniformly random slates (exact expectations,
// so random's standard error is 0).
func (rep *RankReport) score(ds *data.Dataset, met eval.Metric) {
	nq := ds.NumQueries()
	name := met.Name()
	rep.Mean[name] = map[string]float64{}
	rep.PerQuery[name] = map[string][]float64{}
	scorer := eval.NewScorer(met, ds.Labels, ds.QueryOffsets)
	for _, p := range rep.Policies[:len(rep.Policies)-1] {
		r := rep.Rankings[p]
		v := make([]float64, nq)
		for q := range v {
			v[q] = scorer.Score(q, r.Slate(q))
		}
		rep.PerQuery[name][p] = v
		rep.Mean[name][p], _ = eval.MeanStd(v)
	}
	v := make([]float64, nq)
	for q := range v {
		labels := ds.QueryLabels(q)
		if met.Kind == eval.KindERR {
			v[q] = eval.RandomERR(labels, rep.Slots, met.Conventions)
		} else {
			v[q] = eval.RandomNDCG(labels, rep.Slots, met.Conventions)
		}
	}
	rep.PerQuery[name][PolicyRandom] = v
	rep.Mean[name][PolicyRandom], _ = eval.MeanStd(v)
	rep.RandomStderr[name] = 0
}

// SlateComparison compares the greedy and the exact slates of one PI-OPT
// model on a dataset.
type SlateComparison struct {
	Queries int `json:"queries"` // queries compared
	// Differ counts queries whose exact slate differs from the greedy one;
	// Exact keeps the greedy slate whenever it is optimal, so these are the
	// queries where greedy loses objective.
	Differ int `json:"differ"`
	// GapMean and GapMax are the mean over queries and the largest value of
	// the objective difference exact − greedy, objective = Σ_j score(s_j, j).
	GapMean float64 `json:"objective_gap_mean"`
	GapMax  float64 `json:"objective_gap_max"`
	// Greedy and Exact map a metric name to the mean metric of each
	// method's slates.
	Greedy map[string]float64 `json:"greedy"`
	Exact  map[string]float64 `json:"exact"`
}

// CompareSlates builds both the greedy and the exact slates from PI-OPT
// pair scores and compares their objectives and metrics.
func CompareSlates(ds *data.Dataset, sc *ranker.Scores, slots int, metrics []eval.Metric) (*SlateComparison, error) {
	g, e, err := rankBoth(ds, sc, slots)
	if err != nil {
		return nil, err
	}
	return compareRankings(ds, g, e, metrics), nil
}

// rankBoth ranks PI-OPT pair scores with the greedy and the exact method.
func rankBoth(ds *data.Dataset, sc *ranker.Scores, slots int) (g, e *ranker.Ranking, err error) {
	if g, err = ranker.Rank(ds, sc, slots, ranker.SlateGreedy); err != nil {
		return nil, nil, err
	}
	if e, err = ranker.Rank(ds, sc, slots, ranker.SlateExact); err != nil {
		return nil, nil, err
	}
	return g, e, nil
}

// compareRankings compares the greedy ranking g and the exact ranking e of
// the same pair scores.
func compareRankings(ds *data.Dataset, g, e *ranker.Ranking, metrics []eval.Metric) *SlateComparison {
	c := &SlateComparison{Queries: ds.NumQueries(), Greedy: map[string]float64{}, Exact: map[string]float64{}}
	for q := range ds.NumQueries() {
		gs, es := g.Slate(q), e.Slate(q)
		for j := range gs {
			if gs[j] != es[j] {
				c.Differ++
				break
			}
		}
		// A ranking's Scores are its slates' pair scores, slot 1 first, so
		// their sum is the slate's objective Σ_j score(s_j, j).
		gap := slateObjective(e, q) - slateObjective(g, q)
		c.GapMean += gap
		c.GapMax = math.Max(c.GapMax, gap)
	}
	if c.Queries > 0 {
		c.GapMean /= float64(c.Queries)
	}
	for _, met := range metrics {
		scorer := eval.NewScorer(met, ds.Labels, ds.QueryOffsets)
		var sg, se float64
		for q := range ds.NumQueries() {
			sg += scorer.Score(q, g.Slate(q))
			se += scorer.Score(q, e.Slate(q))
		}
		if n := float64(ds.NumQueries()); n > 0 {
			c.Greedy[met.Name()] = sg / n
			c.Exact[met.Name()] = se / n
		}
	}
	return c
}

// object is a JSON object that keeps its keys in insertion order.
type object []keyValue

type keyValue struct {
	k string
	v any
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.k)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(kv.v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kv.k, err)
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// MarshalJSON writes the summary of `piopt rank --json`:
//
//	{"data": "test.txt", "conventions": {...}, "slots": 3, "queries": N,
//	 "slate": "greedy", "random_samples": 1000, "seed": 1,
//	 "models": {"pi-opt": "pi.model", "sup": "sup.model"},
//	 "ndcg@3": {"pi-opt": .., "sup": .., "random": ..},
//	 "err@3": {"pi-opt": .., "sup": .., "random": ..},
//	 "err@3_random_stderr": ..,
//	 "greedy_vs_exact": {"queries": N, "differ": k, "differ_fraction": ..,
//	   "objective_gap_mean": .., "objective_gap_max": ..,
//	   "ndcg@3": {"greedy": .., "exact": ..}, "err@3": {...}}}
//
// Policies appear in Policies order; greedy_vs_exact only with a PI-OPT
// model. Per-query values are not part of it (WritePerQuery). Random ERR is
// exact, so err@3_random_stderr is 0 and random_samples and seed are only
// recorded (random_samples is always 1000); all three are kept for
// compatibility.
func (r *RankReport) MarshalJSON() ([]byte, error) {
	o := object{
		{"data", r.Data},
		{"conventions", ranker.NewConventionsJSON(r.Conventions)},
		{"slots", r.Slots},
		{"queries", r.Queries},
		{"slate", r.Slate.String()},
		{"random_samples", recordedRandomSamples},
		{"seed", r.Seed},
	}
	models := object{}
	for _, p := range r.Policies {
		if f, ok := r.Models[p]; ok {
			models = append(models, keyValue{p, f})
		}
	}
	o = append(o, keyValue{"models", models})
	for _, m := range r.Metrics {
		name := m.Name()
		vals := object{}
		for _, p := range r.Policies {
			vals = append(vals, keyValue{p, r.Mean[name][p]})
		}
		o = append(o, keyValue{name, vals})
	}
	for _, m := range r.Metrics {
		if m.Kind == eval.KindERR {
			o = append(o, keyValue{m.Name() + "_random_stderr", r.RandomStderr[m.Name()]})
		}
	}
	if c := r.GreedyVsExact; c != nil {
		frac := 0.0
		if c.Queries > 0 {
			frac = float64(c.Differ) / float64(c.Queries)
		}
		g := object{
			{"queries", c.Queries},
			{"differ", c.Differ},
			{"differ_fraction", frac},
			{"objective_gap_mean", c.GapMean},
			{"objective_gap_max", c.GapMax},
		}
		for _, m := range r.Metrics {
			g = append(g, keyValue{m.Name(), object{{"greedy", c.Greedy[m.Name()]}, {"exact", c.Exact[m.Name()]}}})
		}
		o = append(o, keyValue{"greedy_vs_exact", g})
	}
	return o.MarshalJSON()
}

// WritePerQuery writes the per-query metric values as tab-separated text:
// a header line `qid docs ndcg@3:pi-opt ndcg@3:sup ndcg@3:random err@3:...`
// (metric:policy columns, metrics then policies in report order) and one line
// per query in dataset order. Random columns are exact expectations.
func (r *RankReport) WritePerQuery(w io.Writer, ds *data.Dataset) error {
	var line []byte
	line = append(line, "qid\tdocs"...)
	for _, m := range r.Metrics {
		for _, p := range r.Policies {
			line = append(line, '\t')
			line = append(line, m.Name()+":"+p...)
		}
	}
	line = append(line, '\n')
	if _, err := w.Write(line); err != nil {
		return err
	}
	for q := range ds.NumQueries() {
		line = append(line[:0], ds.QIDs[q]...)
		line = append(line, '\t')
		line = strconv.AppendInt(line, int64(ds.QuerySize(q)), 10)
		for _, m := range r.Metrics {
			for _, p := range r.Policies {
				line = append(line, '\t')
				line = strconv.AppendFloat(line, r.PerQuery[m.Name()][p][q], 'g', -1, 64)
			}
		}
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// WriteTable prints the report as a table: one row per policy, one column
// per metric, with the conventions and the greedy/exact comparison.
func (r *RankReport) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "%s: %d queries, %d slots, %s slates; %s\n", r.Data, r.Queries, r.Slots, r.Slate, r.Conventions)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "policy")
	for _, m := range r.Metrics {
		fmt.Fprintf(tw, "\t%s", m.Name())
	}
	fmt.Fprintln(tw)
	for _, p := range r.Policies {
		fmt.Fprint(tw, p)
		for _, m := range r.Metrics {
			v := r.Mean[m.Name()][p]
			if p == PolicyRandom && r.RandomStderr[m.Name()] > 0 {
				fmt.Fprintf(tw, "\t%.4f ± %.4f", v, r.RandomStderr[m.Name()])
			} else {
				fmt.Fprintf(tw, "\t%.4f", v)
			}
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if c := r.GreedyVsExact; c != nil {
		fmt.Fprintf(w, "greedy vs exact: %d of %d queries differ", c.Differ, c.Queries)
		fmt.Fprintf(w, "; objective gap mean %.3g, max %.3g", c.GapMean, c.GapMax)
		for _, m := range r.Metrics {
			fmt.Fprintf(w, "; %s greedy %.4f exact %.4f", m.Name(), c.Greedy[m.Name()], c.Exact[m.Name()])
		}
		fmt.Fprintln(w)
	}
	return nil
}

// slateObjective returns the sum of query q's entry scores in slot order:
// Σ_j score(s_j, j) of its slate under the pair scores it was ranked by.
func slateObjective(r *ranker.Ranking, q int) float64 {
	o := 0.0
	for _, v := range r.Scores[r.Offsets[q]:r.Offsets[q+1]] {
		o += v
	}
	return o
}
