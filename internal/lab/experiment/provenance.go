package experiment

import (
	"encoding/json"
	"github.com/piopt/piopt/internal/provenance"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/piopt/piopt/internal/atomicfile"
	"github.com/piopt/piopt/trainer"
)

// Versions returns piopt's version, from the build information (the main
// module's version, e.g. "v0.0.0-20261122211401-76230d025a7e+dirty", with
// the commit added when the version does not name it: "(devel) commit
// 76230d025a7e+modified"), and the linked XGBoost's ("1.7.4"), for the
// provenance of results (Config.PioptVersion and XGBoostVersion). Both
// are the same for every run of one binary.
func Versions() (piopt, xgb string) {
	piopt = "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev string
		var modified bool
		piopt, rev, modified = BuildVCS(bi)
		// Go 1.24 and later stamp a pseudo-version naming the commit
		// (and +dirty) into Main.Version: the revision is added only
		// when it does not already say it.
		if rev = rev[:min(12, len(rev))]; rev != "" && !strings.Contains(piopt, rev) {
			piopt += " commit " + rev
			if modified {
				piopt += "+modified"
			}
		}
	}
	return piopt, trainer.XGBoostVersion()
}

// BuildVCS reads a binary's build information: the main module's version
// and the commit it was built from, and whether the tree had uncommitted
// changes ("" and false without version-control stamping).
func BuildVCS(bi *debug.BuildInfo) (version, revision string, modified bool) {
	version = bi.Main.Version
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	return version, revision, modified
}

// RunRecord is what varies between runs of the same experiment, written to
// OUT/run.json beside summary.json, which holds none of it.
type RunRecord struct {
	Start string `json:"start"` // provenance.StartTime
	provenance.Machine
	// Seconds: "total" and "hash inputs" (0 when every hash was cached).
	Seconds map[string]float64 `json:"seconds"`
	Folds   []FoldRun          `json:"folds"`
}

// FoldRun is one fold's part of the run record.
type FoldRun struct {
	Fold int `json:"fold"`
	// Samples is the log size of a sample-efficiency curve's fold run
	// (Config.Curve); 0, and absent from run.json, otherwise.
	Samples int64 `json:"samples,omitempty"`
	// TargetsKind is the kind of PI-OPT's targets of a curve run over
	// several kinds (Config.CurveKinds); "", and absent, otherwise.
	TargetsKind string `json:"targets_kind,omitempty"`
	// Reused: the fold's results were read back from an earlier run, and
	// no stage ran.
	Reused bool `json:"reused"`
	// Seconds is the wall time of every stage run (FoldResult.Seconds);
	// none when reused.
	Seconds map[string]float64 `json:"seconds"`
}

// newRunRecord records a run that started at start.
func newRunRecord(start time.Time) *RunRecord {
	return &RunRecord{Start: provenance.StartTime(start), Machine: provenance.ThisMachine(), Seconds: map[string]float64{}, Folds: []FoldRun{}}
}

// addFold records fold f's result in the run record.
func (rr *RunRecord) addFold(res *FoldResult, reused bool) {
	fr := FoldRun{Fold: res.Fold, Reused: reused, Seconds: map[string]float64{}}
	if !reused {
		fr.Seconds = res.Seconds
	}
	rr.Folds = append(rr.Folds, fr)
}

// provenance records the command, the versions and every fold file with
// its SHA-256.
func (r *runner) provenance() (provenance.Record, error) {
	start := time.Now()
	p := provenance.Record{Command: r.cfg.Command, PioptVersion: r.cfg.PioptVersion, XGBoostVersion: r.cfg.XGBoostVersion, Inputs: []provenance.Input{}}
	seen := map[string]bool{}
	hashed := 0
	for _, f := range r.cfg.Folds {
		for _, path := range []string{f.Train, f.Vali, f.Test} {
			if path == "" || seen[path] {
				continue
			}
			seen[path] = true
			_, fresh := r.ids[path]
			in, err := r.ids.input(path)
			if err != nil {
				return p, err
			}
			if !fresh {
				hashed++
			}
			p.Inputs = append(p.Inputs, in)
		}
	}
	if hashed > 0 {
		r.logf("hashed %d input files in %.1fs", hashed, time.Since(start).Seconds())
	}
	return p, nil
}

// Files written by WriteFiles in the output folder.
const (
	SummaryFile = "summary.json"
	ReportFile  = "report.html"
	RunFile     = "run.json"
)

// WrittenNames are the files Run writes in its output folder, as
// filepath.Match patterns relative to it: the summary, report and run
// record, the input hash and max-label caches, and every stage of a fold
// (models, targets, results, assembled training files) under foldN/.
// Inputs must not be among them.
var WrittenNames = []string{SummaryFile, ReportFile, RunFile, "sha256-*.txt", "maxlabel-*.txt", "fold*/*"}

// WriteFiles writes summary.json, report.html and, when the summary has
// one, the run record run.json into dir, and returns the paths written.
func (s *Summary) WriteFiles(dir string) ([]string, error) {
	b, err := s.MarshalJSON()
	if err != nil {
		return nil, err
	}
	paths := []string{filepath.Join(dir, SummaryFile), filepath.Join(dir, ReportFile)}
	if err := atomicfile.WriteFile(paths[0], append(b, '\n')); err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(paths[1], s.HTML()); err != nil {
		return nil, err
	}
	if s.Run == nil {
		return paths, nil
	}
	if b, err = json.MarshalIndent(s.Run, "", "  "); err != nil {
		return nil, err
	}
	paths = append(paths, filepath.Join(dir, RunFile))
	return paths, atomicfile.WriteFile(paths[2], append(b, '\n'))
}
