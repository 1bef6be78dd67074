package experiment

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/features"
	"github.com/piopt/piopt/internal/pipeline"
	"github.com/piopt/piopt/ranker"
	"github.com/piopt/piopt/trainer"
)

// Grid is a grid of PI-OPT's training settings (experiment --grid): PI-OPT
// is trained at every combination of the settings' values, and the
// combination whose selected round has the best estimated value on the
// validation log is PI-OPT. Settings keep the order they were given in.
//
// Its text form is KEY=V1,V2,...;KEY=V1,... : settings separated by ';',
// values by ','. Keys: trees (the round cap, Params.Trees; early stopping
// and the value selection may keep fewer), leaves (Params.Leaves) and lr
// (Params.LearningRate). Settings not in the grid keep the experiment's.
type Grid struct {
	Settings []GridSetting
}

// GridSetting is one setting of a Grid and its values, in the order given.
type GridSetting struct {
	Key    string // "trees", "leaves" or "lr"
	Values []float64
}

// gridKeys are the keys of a grid, with their checks.
var gridKeys = []string{"trees", "leaves", "lr"}

// ParseGrid reads a grid's text form (see Grid), strictly: an unknown or
// repeated key, an empty setting or value, a value that is not a number
// of the key's range, or a repeated value is an error. Settings may also
// be separated by ',' as in "trees=100,300,leaves=31,70" (the form issue
// 15 writes, needing no shell quotes): a value holding '=' starts a new
// setting, which is unambiguous because values are plain numbers.
func ParseGrid(s string) (Grid, error) {
	var g Grid
	if strings.TrimSpace(s) == "" {
		return g, fmt.Errorf("empty grid: want KEY=V1,V2,... settings separated by ';', keys %s", strings.Join(gridKeys, ", "))
	}
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			return Grid{}, fmt.Errorf("empty setting (settings are separated by ';', values by ',')")
		}
		if !strings.Contains(strings.SplitN(part, ",", 2)[0], "=") {
			return Grid{}, fmt.Errorf("setting %q: want KEY=V1,V2,... with KEY one of %s", part, strings.Join(gridKeys, ", "))
		}
		for _, v := range strings.Split(part, ",") {
			var err error
			if g, err = g.add(v); err != nil {
				return Grid{}, err
			}
		}
	}
	return g, nil
}

// add adds one comma-separated item of a grid's text form: KEY=V starts a
// setting, a bare V is one more value of the last one.
func (g Grid) add(item string) (Grid, error) {
	k, v, isKey := strings.Cut(item, "=")
	if isKey {
		k = strings.TrimSpace(k)
		if !slices.Contains(gridKeys, k) {
			return g, fmt.Errorf("unknown key %q: want %s", k, strings.Join(gridKeys, ", "))
		}
		if slices.ContainsFunc(g.Settings, func(st GridSetting) bool { return st.Key == k }) {
			return g, fmt.Errorf("key %s given twice", k)
		}
		g.Settings = append(g.Settings, GridSetting{Key: k})
	} else {
		v = item
	}
	st := &g.Settings[len(g.Settings)-1]
	v = strings.TrimSpace(v)
	if v == "" {
		return g, fmt.Errorf("%s: empty value", st.Key)
	}
	x, err := parseGridValue(st.Key, v)
	if err != nil {
		return g, err
	}
	if slices.Contains(st.Values, x) {
		return g, fmt.Errorf("%s: value %s given twice", st.Key, v)
	}
	st.Values = append(st.Values, x)
	return g, nil
}

func parseGridValue(k, v string) (float64, error) {
	if k == "lr" {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || !(x > 0) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("lr %q: want a positive number", v)
		}
		return x, nil
	}
	least := 1
	if k == "leaves" {
		least = 2
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < least {
		return 0, fmt.Errorf("%s %q: want a whole number ≥ %d", k, v, least)
	}
	return float64(n), nil
}

// String is the grid's canonical text form ("" for no grid).
func (g Grid) String() string {
	parts := make([]string, len(g.Settings))
	for i, st := range g.Settings {
		vs := make([]string, len(st.Values))
		for j, v := range st.Values {
			vs[j] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		parts[i] = st.Key + "=" + strings.Join(vs, ",")
	}
	return strings.Join(parts, ";")
}

// gridPoint is one combination of a grid's values.
type gridPoint struct {
	label string // "leaves=31 lr=0.05", the grid's keys only
	set   func(p *trainer.Params)
}

// points are the grid's combinations, the last setting varying fastest.
func (g Grid) points() []gridPoint {
	pts := []gridPoint{{set: func(*trainer.Params) {}}}
	for _, st := range g.Settings {
		var next []gridPoint
		for _, pt := range pts {
			for _, v := range st.Values {
				label := st.Key + "=" + strconv.FormatFloat(v, 'g', -1, 64)
				if pt.label != "" {
					label = pt.label + " " + label
				}
				prev, key, v := pt.set, st.Key, v
				next = append(next, gridPoint{label: label, set: func(p *trainer.Params) {
					prev(p)
					switch key {
					case "trees":
						p.Trees = int(v)
					case "leaves":
						p.Leaves = int(v)
					case "lr":
						p.LearningRate = v
					}
				}})
			}
		}
		pts = next
	}
	return pts
}

// CheckGrid checks the grid against the rest of c before any work: the
// grid chooses by the value selection's estimates, so PI-OPT must select
// its rounds by value on a validation log.
func (c Config) CheckGrid() error {
	if len(c.Grid.Settings) == 0 {
		return nil
	}
	p := c.pioptParams()
	if p.SelectBy != trainer.SelectValue || p.EarlyStopping < 1 {
		return fmt.Errorf("--grid chooses by the estimated value on the validation log: it needs --select-by %s and --early-stopping > 0", trainer.SelectValue)
	}
	for _, pt := range c.Grid.points() {
		q := p
		pt.set(&q)
		if err := q.Validate(); err != nil {
			return fmt.Errorf("--grid %s: %w", pt.label, err)
		}
	}
	return nil
}

// GridResult is one metric's grid in a fold: every point, the point chosen
// by the validation estimate (PI-OPT in the table), and, for reference
// only, the point best by the test labels (never used to choose).
type GridResult struct {
	Criterion string      `json:"criterion"` // the validation estimate, e.g. "pi-ndcg@3"
	Points    []GridPoint `json:"points"`
	Chosen    string      `json:"chosen"` // Setting of the point with the best validation estimate
	// TestBest is the Setting of the point with the best test value: an
	// oracle reported for reference, not a choice.
	TestBest string `json:"test_best_reference_only"`
}

// GridPoint is one trained point of a grid.
type GridPoint struct {
	Setting  string  `json:"setting"`   // "leaves=31 lr=0.05"
	MaxTrees int     `json:"max_trees"` // round cap
	Leaves   int     `json:"leaves"`
	LR       float64 `json:"lr"`
	Trees    int     `json:"trees"`   // rounds kept by the value selection
	Trained  int     `json:"trained"` // rounds trained before early stopping
	Valid    jfloat  `json:"valid"`   // estimate at the kept round
	ValidLo  jfloat  `json:"valid_lo"`
	ValidHi  jfloat  `json:"valid_hi"`
	Test     float64 `json:"test"` // test-fold mean of the metric
}

// gridRun is a metric's grid being run in a fold: the policy name of every
// point's model for scoring.
type gridRun struct {
	k     eval.Kind
	res   *GridResult
	names []string
}

// gridModelName is the policy name under which a grid point's model is
// scored; the chosen point is scored as PI-OPT instead.
func gridModelName(k eval.Kind, label string) string {
	return PIOPT + "-" + k.String() + " [" + label + "]"
}

// trainGrid trains PI-OPT for metric k at every point of the grid, each
// cached like the single PI-OPT model under its own parameters' key, and
// chooses the point whose kept round has the best estimated value on the
// validation log: no label is read. The chosen model is ranked first (so
// that the greedy/exact comparison keeps looking at a PI-OPT model) and
// named PI-OPT; the others are ranked under their settings.
func (r *runner) trainGrid(ctx context.Context, fr *foldRun, k eval.Kind, tKey, vKey string, value *trainer.SlateValue,
	build func(ds *data.Dataset, vali bool) (*features.Matrix, error)) error {
	if value == nil {
		return fmt.Errorf("--grid needs PI-OPT selected by value on a validation log")
	}
	base := r.cfg.pioptParams()
	g := &GridResult{}
	var models []*ranker.Model
	var sels []*Selection
	for _, pt := range r.cfg.Grid.points() {
		p := base
		pt.set(&p)
		what := fmt.Sprintf("pi-opt %s %s", k, pt.label)
		path := filepath.Join(fr.dir, fmt.Sprintf("pi-opt-%s-%s.model", k, key("pi-opt", tKey, vKey, p)))
		m, err := r.trainStage(ctx, fr, what, path, p, value, true, build)
		if err != nil {
			return err
		}
		sel := fr.res.Selection[what]
		delete(fr.res.Selection, what)
		g.Criterion = sel.Criterion
		g.Points = append(g.Points, GridPoint{Setting: pt.label, MaxTrees: p.Trees, Leaves: p.Leaves, LR: p.LearningRate,
			Trees: sel.Trees, Trained: sel.Trained, Valid: sel.Value, ValidLo: sel.Lo, ValidHi: sel.Hi})
		models, sels = append(models, m), append(sels, sel)
	}
	best := chooseByValid(g.Points)
	g.Chosen = g.Points[best].Setting
	fr.res.Selection["pi-opt "+k.String()] = sels[best]
	gr := &gridRun{k: k, res: g, names: make([]string, len(g.Points))}
	for i, pt := range g.Points {
		gr.names[i] = gridModelName(k, pt.Setting)
	}
	gr.names[best] = PIOPT + "-" + k.String()
	fr.models, fr.names = append(fr.models, models[best]), append(fr.names, gr.names[best])
	for i, m := range models {
		if i != best {
			fr.models, fr.names = append(fr.models, m), append(fr.names, gr.names[i])
		}
	}
	if fr.res.Grid == nil {
		fr.res.Grid = map[string]*GridResult{}
	}
	fr.res.Grid[r.metric(k).Name()] = g
	fr.grids = append(fr.grids, gr)
	r.logf("fold %d: grid %s chose %s (valid %s %.4f)", fr.f.Number, k, g.Chosen, g.Criterion, float64(g.Points[best].Valid))
	return nil
}

// scoreGrid records every grid point's test value and the point best by
// the test labels, for reference only.
func (r *runner) scoreGrid(fr *foldRun, rep *pipeline.RankReport) {
	for _, gr := range fr.grids {
		name := r.metric(gr.k).Name()
		for i := range gr.res.Points {
			gr.res.Points[i].Test = rep.Mean[name][gr.names[i]]
		}
		gr.res.TestBest = gr.res.Points[bestByTest(gr.res.Points)].Setting
	}
}

// chooseByValid is the index of the point with the best estimated value
// on the validation log, the grid's only criterion: the first of equals,
// and a point without an estimate (NaN) only when no point has one. It
// reads nothing else of the points, so no test value can sway it.
func chooseByValid(pts []GridPoint) int {
	best := 0
	for i, pt := range pts {
		v, b := float64(pt.Valid), float64(pts[best].Valid)
		if v > b || math.IsNaN(b) && !math.IsNaN(v) {
			best = i
		}
	}
	return best
}

// bestByTest is the index of the point with the best test value (the
// first of equals): the oracle reported for reference only.
func bestByTest(pts []GridPoint) int {
	best := 0
	for i, pt := range pts {
		if pt.Test > pts[best].Test {
			best = i
		}
	}
	return best
}

// gridLines are the table's lines about the grids: per metric and fold
// the point chosen by the validation estimate and, for reference only, the
// point best by the test labels; with several folds, a line of their means
// (the chosen points' mean is PI-OPT's row of the table).
func (s *Summary) gridLines() []string {
	var lines []string
	for _, m := range s.Metrics {
		var chosen, oracle []float64
		for _, f := range s.Folds {
			g := f.Grid[m]
			if g == nil {
				continue
			}
			c, o := g.point(g.Chosen), g.point(g.TestBest)
			if c == nil || o == nil {
				continue
			}
			lines = append(lines, fmt.Sprintf("grid %s fold %d: chose %s (valid %s %.4f, %d trees, test %.4f); test-label best %s %.4f (reference only)",
				m, f.Fold, c.Setting, g.Criterion, float64(c.Valid), c.Trees, c.Test, o.Setting, o.Test))
			chosen, oracle = append(chosen, c.Test), append(oracle, o.Test)
		}
		if len(chosen) > 1 {
			// eval.MeanStd, as the table's means: the chosen mean is PI-OPT's.
			cm, _ := eval.MeanStd(chosen)
			om, _ := eval.MeanStd(oracle)
			lines = append(lines, fmt.Sprintf("grid %s mean over %d folds: chosen %.4f; test-label best %.4f (reference only: an oracle reading test labels)",
				m, len(chosen), cm, om))
		}
	}
	return lines
}

func (g *GridResult) point(setting string) *GridPoint {
	for i := range g.Points {
		if g.Points[i].Setting == setting {
			return &g.Points[i]
		}
	}
	return nil
}
