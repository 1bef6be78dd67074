package sweep

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/internal/atomicfile"
	"github.com/piopt/piopt/internal/evalreport"
	"github.com/piopt/piopt/internal/provenance"
	"github.com/piopt/piopt/internal/report"
	"github.com/piopt/piopt/ope"
	"github.com/piopt/piopt/ranker"
)

// Setup describes a sweep for its report, besides what the plan and
// the result hold.
type Setup struct {
	Data       string // the dataset's file
	Queries    int
	Metric     eval.Metric // the reward
	Slots      int
	Candidates int // per query (0: all)
	Logging    string
	RankBy     string // logging-side ranker ("" for document order)
	// CandidatesBy is the ranker choosing the candidates, which RankBy
	// then orders ("": RankBy chooses them).
	CandidatesBy string
	Target       string
	Samples      int64 // largest log size
	Runs         int
	DMMaxTrain   int
	Command      string // the command line, for the record
	// PioptVersion and XGBoostVersion are the versions that ran, and
	// Inputs the data file(s) with their hashes (HashInputs), for the
	// report's provenance.
	PioptVersion, XGBoostVersion string
	Inputs                       []provenance.Input
}

// Report is the JSON summary of piopt evaluate-sweep: the setup, the
// plan's σ² and ρ, and the RMSE, bias and standard deviation of every
// estimator on the grid of log sizes.
type Report struct {
	Data         string                   `json:"data"`
	Queries      int                      `json:"queries"`
	Conventions  ranker.ConventionsJSON   `json:"conventions"`
	Metric       string                   `json:"metric"`
	Slots        int                      `json:"slots"`
	Candidates   int                      `json:"candidates"`
	Logging      string                   `json:"logging"`
	RankBy       string                   `json:"rank_by"`
	CandidatesBy string                   `json:"candidates_by,omitempty"`
	Target       string                   `json:"target"`
	Samples      int64                    `json:"samples"`
	Runs         int                      `json:"runs"`
	Seeds        []uint64                 `json:"seeds"`
	TrueValue    ope.Float                `json:"true_value"`
	Sigma2       ope.Float                `json:"sigma2"`
	Rho          ope.Float                `json:"rho"`
	IPSSigma2    ope.Float                `json:"ips_sigma2"`
	IPSRho       ope.Float                `json:"ips_rho"`
	Grid         []int64                  `json:"grid"`
	Estimators   []string                 `json:"estimators"`
	RMSE         map[string][]ope.Float   `json:"rmse"`
	Bias         map[string][]ope.Float   `json:"bias"`
	Std          map[string][]ope.Float   `json:"std"`
	Values       map[string][][]ope.Float `json:"values"`
	DMMaxTrain   int                      `json:"dm_max_train"`
	Gamma        []ope.GammaInfo          `json:"gamma"`
	Command      string                   `json:"command"`
	Provenance   provenance.Record        `json:"provenance"`
	// Run is the run record, written beside the JSON (run.json): what
	// varies between runs of the same command, kept out of the report so
	// that the same flags and data give the same bytes.
	Run *RunRecord `json:"-"`
}

// RunRecord is the run record of a sweep.
type RunRecord struct {
	Start string `json:"start"` // provenance.StartTime
	provenance.Machine
	Threads int `json:"threads"` // runs simulated (and DM-fitted) at once
	// Seconds is the wall time of every stage and in total.
	Seconds map[string]float64 `json:"seconds"`
}

// NewRunRecord makes a sweep's run record: it started at start and its
// stages took stages; "total" is the time since start.
func NewRunRecord(start time.Time, threads int, stages map[string]time.Duration) *RunRecord {
	r := &RunRecord{Start: provenance.StartTime(start), Machine: provenance.ThisMachine(), Threads: threads,
		Seconds: map[string]float64{"total": time.Since(start).Seconds()}}
	for k, d := range stages {
		r.Seconds[k] = d.Seconds()
	}
	return r
}

// WriteFiles writes the report as JSON to jsonPath and as HTML to
// htmlPath (either "": not written), and the run record beside the first
// of them written (RunPath).
func (s *Report) WriteFiles(jsonPath, htmlPath string) error {
	if jsonPath != "" {
		b, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(jsonPath, append(b, '\n')); err != nil {
			return err
		}
	}
	if htmlPath != "" {
		if err := atomicfile.WriteFile(htmlPath, s.HTML()); err != nil {
			return err
		}
	}
	if s.Run == nil {
		return nil
	}
	switch {
	case jsonPath != "":
		return provenance.WriteRun(provenance.RunPath(jsonPath), s.Run)
	case htmlPath != "":
		return provenance.WriteRun(provenance.RunPath(htmlPath), s.Run)
	}
	return nil
}

// NewReport gathers the report of a sweep planned by p.
func NewReport(s Setup, p *ope.Plan, res *Result) *Report {
	out := &Report{
		Data: s.Data, Queries: s.Queries, Conventions: ranker.NewConventionsJSON(s.Metric.Conventions), Metric: s.Metric.Name(),
		Slots: s.Slots, Candidates: s.Candidates, Logging: s.Logging, RankBy: s.RankBy, CandidatesBy: s.CandidatesBy, Target: s.Target, Samples: s.Samples, Runs: s.Runs,
		Seeds: res.Seeds, TrueValue: ope.Float(res.TrueValue), Sigma2: ope.Float(p.Sigma2), Rho: ope.Float(p.Rho()),
		IPSSigma2: ope.Float(p.IPSSigma2), IPSRho: ope.Float(p.IPSMax), Grid: res.Grid, Estimators: res.Names,
		RMSE: map[string][]ope.Float{}, Bias: map[string][]ope.Float{}, Std: map[string][]ope.Float{},
		Values: map[string][][]ope.Float{}, DMMaxTrain: s.DMMaxTrain, Gamma: p.Spectra(),
		Command:    s.Command,
		Provenance: provenance.Record{Command: s.Command, PioptVersion: s.PioptVersion, XGBoostVersion: s.XGBoostVersion, Inputs: s.Inputs},
	}
	if out.Provenance.Inputs == nil {
		out.Provenance.Inputs = []provenance.Input{} // [] in the JSON, not null
	}
	for _, name := range res.Names {
		out.RMSE[name], out.Bias[name], out.Std[name] = floats(res.RMSE[name]), floats(res.Bias[name]), floats(res.Std[name])
		for _, run := range res.Values[name] {
			out.Values[name] = append(out.Values[name], floats(run))
		}
	}
	return out
}

func floats(xs []float64) []ope.Float {
	out := make([]ope.Float, len(xs))
	for i, x := range xs {
		out[i] = ope.Float(x)
	}
	return out
}

func (s *Report) setupLines() []string {
	return []string{
		fmt.Sprintf("data %s (%d queries), reward %s (%s)", s.Data, s.Queries, s.Metric, s.Conventions.Text),
		fmt.Sprintf("candidates: top %d by %s; %d slots; logging %s; target %s", s.Candidates, s.candidatesSource(), s.Slots, s.Logging, s.Target),
		fmt.Sprintf("V(π) = %.6f   PI: σ² = %.4g, ρ = %.4g   IPS: σ² = %.4g, ρ = %.4g", float64(s.TrueValue), float64(s.Sigma2), float64(s.Rho), float64(s.IPSSigma2), float64(s.IPSRho)),
		fmt.Sprintf("%d runs, seeds %d..%d, up to %d samples", s.Runs, s.Seeds[0], s.Seeds[len(s.Seeds)-1], s.Samples),
	}
}

// candidatesSource names the ranker choosing the candidates, and the one
// ordering them when it differs.
func (s *Report) candidatesSource() string {
	if s.CandidatesBy == "" {
		return orNone(s.RankBy)
	}
	if s.RankBy == "" || s.RankBy == s.CandidatesBy {
		return s.CandidatesBy
	}
	return s.CandidatesBy + " in " + s.RankBy + "'s order"
}

func orNone(s string) string {
	if s == "" {
		return "document order"
	}
	return s
}

// WriteTable prints the setup and the RMSE of every estimator at every log
// size.
func (s *Report) WriteTable(w io.Writer) {
	for _, l := range s.setupLines() {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintf(w, "RMSE against V(π) over %d runs:\n%10s", s.Runs, "n")
	for _, name := range s.Estimators {
		fmt.Fprintf(w, " %11s", name)
	}
	fmt.Fprintln(w)
	for g, n := range s.Grid {
		fmt.Fprintf(w, "%10d", n)
		for _, name := range s.Estimators {
			fmt.Fprintf(w, " %11s", evalreport.FormatNum(float64(s.RMSE[name][g])))
		}
		fmt.Fprintln(w)
	}
}

// HTML is a self-contained page with the setup, the log-log RMSE chart
// with its spread across runs, and the RMSE and bias tables.
func (s *Report) HTML() []byte {
	p := report.NewPage(fmt.Sprintf("Off-policy evaluation: %s of %s", s.Metric, s.Target))
	for _, l := range s.setupLines() {
		// HTML collapses the text table's three-space gaps into one.
		p.Paragraph(strings.ReplaceAll(l, "   ", "; "))
	}
	p.Figure(report.LogLogChart(s.chartSeries(), report.Title(fmt.Sprintf("RMSE of the estimates of V(π) = %.4f, %d runs", float64(s.TrueValue), s.Runs)),
		report.XLabel("logged samples n"), report.YLabel("RMSE")), s.chartCaption())
	header := append([]string{"n"}, s.Estimators...)
	p.Heading(2, "RMSE")
	p.Table(header, s.gridRows(s.RMSE))
	p.Heading(2, "Bias (mean estimate − V(π))")
	p.Table(header, s.gridRows(s.Bias))
	s.Provenance.AddTo(p)
	return p.HTML()
}

// chartSeries is one line per estimator: its RMSE at every log size, with
// the band rmseBand gives.
func (s *Report) chartSeries() []report.Series {
	xs := make([]float64, len(s.Grid))
	for i, n := range s.Grid {
		xs[i] = float64(n)
	}
	var series []report.Series
	for _, name := range s.Estimators {
		r := report.Series{Name: name, X: xs, Y: make([]float64, len(s.Grid))}
		for g := range s.Grid {
			r.Y[g] = float64(s.RMSE[name][g])
		}
		if s.Runs > 1 {
			r.BandLo, r.BandHi = make([]float64, len(s.Grid)), make([]float64, len(s.Grid))
			for g := range s.Grid {
				r.BandLo[g], r.BandHi[g] = rmseBand(s.Values[name], float64(s.TrueValue), g)
			}
		}
		series = append(series, r)
	}
	return series
}

// chartCaption says what the chart shows, and what its bands are.
func (s *Report) chartCaption() string {
	c := fmt.Sprintf("Logging %s on the top %d candidates by %s, target %s, %d slots.", s.Logging, s.Candidates, s.candidatesSource(), s.Target, s.Slots)
	if s.Runs > 1 {
		c += fmt.Sprintf(" Shaded: the RMSE ± one standard error across the %d runs, √(MSE ± SE) with SE the standard error of the runs' mean squared error;"+
			" curves whose bands overlap are not told apart by this many runs. With 2 runs a band spans the two runs' |errors|; one reaching 0 runs down to the axis.", s.Runs)
	}
	return c
}

// rmseBand is the spread of the RMSE at grid point g across the runs: the
// RMSE is the root of the mean squared error over the runs, so the band is
// √(MSE ± SE) with SE the standard error of that mean, sd(e²)/√R (sample
// standard deviation), the square root of the one-standard-error interval
// of the MSE (the root being monotone, no delta method). It is (NaN, NaN)
// below two runs with a value. An error band of the RMSE rather than the
// min–max of the runs' |errors|: that range widens with more runs and its
// lower end nears 0, unbounded on a log axis.
func rmseBand(values [][]ope.Float, v float64, g int) (lo, hi float64) {
	var sq []float64
	for _, run := range values {
		if g < len(run) && !math.IsNaN(float64(run[g])) {
			e := float64(run[g]) - v
			sq = append(sq, e*e)
		}
	}
	if len(sq) < 2 {
		return math.NaN(), math.NaN()
	}
	mse, sd := eval.MeanStd(sq)
	se := sd / math.Sqrt(float64(len(sq)))
	return math.Sqrt(max(mse-se, 0)), math.Sqrt(mse + se)
}

// gridRows is one table row per log size: n in the charts' notation, then
// every estimator's value, all with the same decimals (enough to show the
// table's smallest magnitude to two significant digits), so the column
// lines up.
func (s *Report) gridRows(v map[string][]ope.Float) [][]string {
	var all []float64
	for _, name := range s.Estimators {
		for _, x := range v[name] {
			all = append(all, float64(x))
		}
	}
	d := report.Decimals(all, 2, 4, 6)
	var rows [][]string
	for g, n := range s.Grid {
		row := []string{report.Number(float64(n))}
		for _, name := range s.Estimators {
			row = append(row, report.Fixed(float64(v[name][g]), d))
		}
		rows = append(rows, row)
	}
	return rows
}
