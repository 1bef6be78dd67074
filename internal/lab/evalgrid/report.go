package evalgrid

import (
	"encoding/json"
	"fmt"
	"github.com/piopt/piopt/internal/evalreport"
	"github.com/piopt/piopt/internal/provenance"
	"io"
	"path/filepath"
	"time"

	"github.com/piopt/piopt/internal/atomicfile"
	"github.com/piopt/piopt/internal/parallel"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/ranker"
)

// Report is grid.json: the setup, every condition's RMSE curves, the
// queries each slate space skipped, and the aggregates. It holds nothing
// that varies between runs of the same command on the same inputs (that
// is Run, written to run.json), so it keeps its bytes.
type Report struct {
	Data         string                 `json:"data"`
	Queries      int                    `json:"queries"`
	Conventions  ranker.ConventionsJSON `json:"conventions"`
	CandidatesBy string                 `json:"candidates_by"`
	Samples      int64                  `json:"samples"`
	Runs         int                    `json:"runs"`
	Seed         uint64                 `json:"seed"`
	Grid         []int64                `json:"grid"`
	AggregateAt  []int64                `json:"aggregate_at"`
	Estimators   []string               `json:"estimators"`
	DMMaxTrain   int                    `json:"dm_max_train"`
	Spaces       []SpaceInfo            `json:"spaces"`
	Conditions   []ConditionResult      `json:"conditions"`
	Aggregates   []Aggregate            `json:"aggregates"`
	Provenance   provenance.Record      `json:"provenance"`
	Run          *RunRecord             `json:"-"`
}

// SpaceInfo is a slate space and the queries it kept and skipped (those
// with fewer than M documents).
type SpaceInfo struct {
	Space   string    `json:"space"`
	M       int       `json:"m"`
	L       int       `json:"l"`
	Alphas  []float64 `json:"alphas"`
	Queries int       `json:"queries"`
	Skipped int       `json:"skipped_queries"`
}

// ConditionResult is one condition's sweep as the grid reports it (the
// full sweep report, with every run's estimates, is its conditions/ file).
type ConditionResult struct {
	Name      string                 `json:"name"`
	Metric    string                 `json:"metric"` // as swept, e.g. ndcg@5
	Space     string                 `json:"space"`
	Logging   string                 `json:"logging"`
	RankBy    string                 `json:"rank_by"`
	Target    string                 `json:"target"`
	Queries   int                    `json:"queries"`
	TrueValue ope.Float              `json:"true_value"`
	Sigma2    ope.Float              `json:"sigma2"`
	Rho       ope.Float              `json:"rho"`
	RMSE      map[string][]ope.Float `json:"rmse"`
	Bias      map[string][]ope.Float `json:"bias"`
	Std       map[string][]ope.Float `json:"std"`

	combo string // Condition.Combo, for the charts
}

// RunRecord is run.json: when and where the grid ran, and per condition
// whether it was loaded and how long it took.
type RunRecord struct {
	Start string `json:"start"`
	provenance.Machine
	Threads    int            `json:"threads"`
	Seconds    float64        `json:"seconds"`
	Conditions []RunCondition `json:"conditions"`
}

// RunCondition is one condition's line of the run record.
type RunCondition struct {
	Name    string  `json:"name"`
	Loaded  bool    `json:"loaded"` // finished by an earlier run
	Seconds float64 `json:"seconds"`
}

func newReport(cfg Config, grid []int64) *Report {
	inputs := cfg.Inputs
	if inputs == nil {
		inputs = []provenance.Input{} // [] in the JSON, not null
	}
	r := &Report{Data: cfg.Data.Source, Queries: cfg.Data.NumQueries(), Conventions: ranker.NewConventionsJSON(cfg.Conventions),
		CandidatesBy: cfg.Grid.CandidatesBy, Samples: cfg.Samples, Runs: cfg.Runs, Seed: cfg.Seed, Grid: grid,
		AggregateAt: cfg.AggregateAt, Estimators: cfg.Estimators.Names(), DMMaxTrain: cfg.DMMaxTrain,
		Conditions: []ConditionResult{}, Aggregates: []Aggregate{},
		Provenance: provenance.Record{Command: cfg.Command, PioptVersion: cfg.PioptVersion, XGBoostVersion: cfg.XGBoostVersion, Inputs: inputs},
		Run:        &RunRecord{Start: provenance.StartTime(time.Now()), Machine: provenance.ThisMachine(), Threads: parallel.Workers(cfg.Threads)}}
	if src, err := policy.Resolve(cfg.Grid.CandidatesBy, policy.Options{}); err == nil {
		r.CandidatesBy = src.String() // the canonical spelling, as the sweeps'
	}
	for _, sp := range cfg.Grid.Spaces {
		r.Spaces = append(r.Spaces, SpaceInfo{Space: sp.String(), M: sp.M, L: sp.L, Alphas: sp.Alphas, Skipped: -1})
	}
	return r
}

// add records condition c's sweep.
func (r *Report) add(c Condition, cf *conditionFile) {
	s := cf.Report
	r.Conditions = append(r.Conditions, ConditionResult{Name: c.Name(), Metric: s.Metric, Space: c.Space.String(),
		Logging: s.Logging, RankBy: s.RankBy, Target: s.Target, Queries: s.Queries, TrueValue: s.TrueValue, Sigma2: s.Sigma2, Rho: s.Rho,
		RMSE: s.RMSE, Bias: s.Bias, Std: s.Std, combo: c.Combo()})
	for i := range r.Spaces {
		if sp := &r.Spaces[i]; sp.Space == c.Space.String() {
			sp.Queries, sp.Skipped = s.Queries, cf.SkippedQueries
		}
	}
}

// SkippedLines says, per slate space, how many queries it left out.
func (r *Report) SkippedLines() []string {
	var out []string
	for _, sp := range r.Spaces {
		if sp.Skipped >= 0 {
			out = append(out, fmt.Sprintf("%d of %d queries skipped for (%d,%d): fewer than %d documents", sp.Skipped, r.Queries, sp.M, sp.L, sp.M))
		}
	}
	return out
}

// WriteSummary prints the skipped queries and, per aggregate, every
// estimator's median normalised RMSE over the conditions and how often it
// was the best.
func (r *Report) WriteSummary(w io.Writer) {
	for _, l := range r.SkippedLines() {
		fmt.Fprintln(w, l)
	}
	for _, a := range r.Aggregates {
		fmt.Fprintf(w, "%s %s at n = %d: normalised RMSE (best 0.001, worst 1) over %d conditions, median / times best:\n",
			a.Metric, a.Space, a.Samples, len(a.Conditions))
		for _, name := range a.Estimators {
			fmt.Fprintf(w, "  %-16s %8s  %d\n", name, evalreport.FormatNum(median(a.Normalized[name])), countBest(a.Normalized[name]))
		}
	}
}

// WriteFiles writes grid.json, grid.html, aggregate-N.svg for every
// aggregate size N and run.json into dir.
func (r *Report) WriteFiles(dir string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "grid.json"), append(b, '\n')); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "grid.html"), r.HTML()); err != nil {
		return err
	}
	for _, n := range r.AggregateAt {
		if err := atomicfile.WriteFile(filepath.Join(dir, fmt.Sprintf("aggregate-%d.svg", n)), r.AggregateSVG(n)); err != nil {
			return err
		}
	}
	if r.Run == nil {
		return nil
	}
	return provenance.WriteRun(filepath.Join(dir, "run.json"), r.Run)
}
