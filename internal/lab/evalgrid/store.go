package evalgrid

import (
	"encoding/json"
	"github.com/piopt/piopt/internal/lab/sweep"
	"github.com/piopt/piopt/internal/provenance"
	"math"
	"os"
	"path/filepath"

	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/atomicfile"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/ope"
)

// storeVersion is part of every settings hash: bump it when a condition's
// results would change for the same settings (a fix in the sweep), so that
// older files are rerun rather than loaded.
const storeVersion = "evalgrid-1"

// conditionFile is OUT/conditions/NAME.json: the report evaluate-sweep
// writes for the condition, the hash of the settings it was computed with,
// and the queries its slate space left out.
type conditionFile struct {
	*sweep.Report
	Settings       string `json:"settings"`
	SkippedQueries int    `json:"skipped_queries"`
}

// WrittenNames are the files Evaluate writes in its output folder, as
// filepath.Match patterns relative to it: inputs must not be among them.
var WrittenNames = []string{"grid.json", "grid.html", "run.json", "aggregate-*.svg", "conditions/*.json"}

// conditionPath is where condition c's sweep is stored.
func (c Config) conditionPath(cond Condition) string {
	return filepath.Join(c.Out, "conditions", cond.Name()+".json")
}

// settings hashes everything condition c's results depend on: the inputs'
// contents, the conventions, the condition's policies in their canonical
// spellings, the sweep's sizes, seed and estimators, and DM's settings.
// Threads are left out: results do not depend on them.
func (r *runner) settings(c Condition) (string, error) {
	cfg := r.cfg
	lg, err := impute.ParseLogging(c.Logging)
	if err != nil {
		return "", err
	}
	canon := func(spec string) (string, error) {
		if spec == "" {
			return "", nil
		}
		src, err := policy.Resolve(spec, policy.Options{})
		if err != nil {
			return "", err
		}
		return src.String(), nil
	}
	var specs []any
	for _, s := range []string{cfg.Grid.CandidatesBy, c.RankBy, c.Target} {
		v, err := canon(s)
		if err != nil {
			return "", err
		}
		specs = append(specs, v)
	}
	var parts []any
	add := func(p ...any) { parts = append(parts, p...) }
	add(storeVersion)
	for _, in := range cfg.Inputs {
		add(in.SHA256, in.Bytes)
	}
	add(cfg.Conventions.Discount, cfg.Conventions.EmptyOne, cfg.Conventions.MaxRel)
	add(c.Metric, c.Space.M, c.Space.L, lg.String())
	add(specs...)
	add(cfg.Samples, cfg.Runs, cfg.Seed, r.grid, cfg.Estimators.Names())
	add(cfg.DM.Depth, cfg.DM.L1, cfg.DMMaxTrain)
	if cfg.Estimators.FitsModels() {
		add("fit points", cfg.FitPoints())
	}
	if cfg.Estimators.PICV {
		add(cfg.CVFolds)
	}
	if cfg.Estimators.Baseline() {
		b := policy.DefaultBaselineOptions()
		add(cfg.baselineFolds(), b.Trees, b.EarlyStopping, policy.DefaultPhiLeaves, policy.DefaultPhiLearningRate)
	}
	return provenance.Key(parts...), nil
}

// write stores the condition atomically: an interrupted write leaves the
// previous file or none.
func (cf *conditionFile) write(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(cf, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, atomicfile.SealJSON(append(b, '\n')))
}

// loadCondition reads a stored condition computed with settings key; ok
// is false when there is none, it does not parse, or its settings differ,
// and also when its seal (atomicfile.SealJSON) is missing or does not
// match its bytes: then sealErr says so, for a notice.
func loadCondition(path, key string) (cf *conditionFile, ok bool, sealErr error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false, nil
	}
	if err := atomicfile.CheckJSON(b); err != nil {
		return nil, false, err
	}
	cf, ok = parseCondition(b, key)
	return cf, ok, nil
}

// parseCondition reads a stored condition's bytes b, computed with
// settings key (ok false otherwise or when b does not parse).
func parseCondition(b []byte, key string) (*conditionFile, bool) {
	var cf conditionFile
	if err := json.Unmarshal(b, &cf); err != nil || cf.Settings != key || cf.Report == nil {
		return nil, false
	}
	// ope.Float writes NaN (an estimate not computed, such as DM
	// below its smallest training set) as null, which reads back as 0:
	// the numbers the grid uses are read again with null as NaN.
	var nan struct {
		TrueValue nullFloat              `json:"true_value"`
		Sigma2    nullFloat              `json:"sigma2"`
		Rho       nullFloat              `json:"rho"`
		RMSE      map[string][]nullFloat `json:"rmse"`
		Bias      map[string][]nullFloat `json:"bias"`
		Std       map[string][]nullFloat `json:"std"`
	}
	if err := json.Unmarshal(b, &nan); err != nil {
		return nil, false
	}
	s := cf.Report
	s.TrueValue, s.Sigma2, s.Rho = ope.Float(nan.TrueValue), ope.Float(nan.Sigma2), ope.Float(nan.Rho)
	for _, m := range []struct {
		dst map[string][]ope.Float
		src map[string][]nullFloat
	}{{s.RMSE, nan.RMSE}, {s.Bias, nan.Bias}, {s.Std, nan.Std}} {
		for name, xs := range m.src {
			out := make([]ope.Float, len(xs))
			for i, x := range xs {
				out[i] = ope.Float(x)
			}
			m.dst[name] = out
		}
	}
	return &cf, true
}

// nullFloat reads JSON null as NaN.
type nullFloat float64

// UnmarshalJSON implements json.Unmarshaler.
func (f *nullFloat) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = nullFloat(math.NaN())
		return nil
	}
	var x float64
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	*f = nullFloat(x)
	return nil
}
