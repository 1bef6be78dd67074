package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/internal/provenance"
	"github.com/piopt/piopt/ope"
)

// The sweep's ope.DM fits report progress: 0 once as they start, then 1 per
// run and grid point with at least 2 training samples, DMPoints in all.
// With grid 1, 100, 1000, 3000 and a cap of 700, n = 1 trains on 0
// samples and the others on 50, 500 and 700: 3 points × 3 runs.
func TestSweepDMProgress(t *testing.T) {
	ds := testData([]int{6, 8, 5, 9, 7, 4, 3}, 3, 31)
	p := prepare(t, setup(t, ds, 5, 3, "pa:1"))
	est, err := ope.ParseEstimators("pi,dm")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var calls []int64
	var simulated int64
	cfg := Config{Samples: 3000, Runs: 3, Seed: 40, Grid: []int64{1, 100, 1000, 3000}, Estimators: est,
		Regressors: map[string]ope.Regressor{"tree": meanRegressor{}}, DMMaxTrain: 700,
		Progress: func(n int64) { mu.Lock(); simulated += n; mu.Unlock() },
		DMProgress: func(n int64) {
			mu.Lock()
			calls = append(calls, n)
			mu.Unlock()
		}}
	if got := cfg.DMPoints(); got != 9 {
		t.Errorf("DMPoints %d, want 9", got)
	}
	if _, err := Sweep(context.Background(), p, cfg); err != nil {
		t.Fatal(err)
	}
	want := []int64{0, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	if !slices.Equal(calls, want) || simulated != 9000 {
		t.Errorf("DM progress %v (want %v), %d samples simulated", calls, want, simulated)
	}
	// Without a cap n = 3000 trains on 1500; without ope.DM nothing is fitted.
	cfg.DMMaxTrain = 0
	if got := cfg.DMPoints(); got != 9 {
		t.Errorf("DMPoints without a cap %d, want 9", got)
	}
	cfg.Grid = []int64{2, 4, 3000}
	if got := cfg.DMPoints(); got != 6 {
		t.Errorf("DMPoints of grid 2, 4, 3000: %d, want 6 (n = 2 trains on 1 sample)", got)
	}
	calls = nil
	cfg.Estimators, _ = ope.ParseEstimators("pi")
	if _, err := Sweep(context.Background(), p, cfg); err != nil || cfg.DMPoints() != 0 || calls != nil {
		t.Errorf("without DM: %d points, progress %v, %v", cfg.DMPoints(), calls, err)
	}
}

// The sweep's JSON and HTML carry the provenance and nothing that varies
// between runs: two reports of the same sweep with different run records
// write the same bytes, and the run record goes beside the JSON.
func TestReportProvenance(t *testing.T) {
	ds := testData([]int{6, 8, 5, 9, 7, 4, 3}, 3, 31)
	p := prepare(t, setup(t, ds, 5, 3, "uniform"))
	est, _ := ope.ParseEstimators("pi,ips")
	res, err := Sweep(context.Background(), p, Config{Samples: 500, Runs: 2, Seed: 1, Estimators: est})
	if err != nil {
		t.Fatal(err)
	}
	in := provenance.Input{Path: "data/all.txt", SHA256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", Bytes: 3}
	setup := Setup{Data: "data/all.txt", Queries: 7, Metric: eval.Metric{Kind: eval.KindNDCG, K: 3}, Slots: 3, Candidates: 5,
		Logging: "uniform", Target: "feature:1", Samples: 500, Runs: 2, Command: "piopt evaluate-sweep --data data/all.txt",
		PioptVersion: "v1.2.3 abc", XGBoostVersion: "1.7.6", Inputs: []provenance.Input{in}}
	write := func(dir string, start time.Time) (js, html, run []byte) {
		out := NewReport(setup, p, res)
		out.Run = NewRunRecord(start, 2, map[string]time.Duration{"simulate": time.Second})
		jp, hp := filepath.Join(dir, "sweep.json"), filepath.Join(dir, "sweep.html")
		if err := out.WriteFiles(jp, hp); err != nil {
			t.Fatal(err)
		}
		js, _ = os.ReadFile(jp)
		html, _ = os.ReadFile(hp)
		run, err := os.ReadFile(filepath.Join(dir, "sweep.run.json"))
		if err != nil {
			t.Fatal(err)
		}
		return js, html, run
	}
	d1, d2 := t.TempDir(), t.TempDir()
	js1, html1, run1 := write(d1, time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	js2, html2, run2 := write(d2, time.Date(2025, 1, 2, 3, 9, 0, 0, time.UTC))
	if !bytes.Equal(js1, js2) || !bytes.Equal(html1, html2) {
		t.Error("same sweep, different JSON or HTML bytes")
	}
	var sw struct {
		Provenance json.RawMessage `json:"provenance"`
	}
	if err := json.Unmarshal(js1, &sw); err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, sw.Provenance)
	wantProv := `{"command":"piopt evaluate-sweep --data data/all.txt","piopt_version":"v1.2.3 abc","xgboost_version":"1.7.6",` +
		`"inputs":[{"path":"data/all.txt","sha256":"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad","bytes":3}]}`
	if compact.String() != wantProv {
		t.Errorf("provenance\n%s\nwant\n%s", compact.String(), wantProv)
	}
	for _, varying := range []string{"start", "hostname", "seconds", "gomaxprocs", "threads"} {
		if bytes.Contains(js1, []byte(`"`+varying+`"`)) {
			t.Errorf("sweep JSON has the key %q", varying)
		}
	}
	for _, varying := range []string{"2025-01-02", "hostname", "gomaxprocs"} {
		if bytes.Contains(js1, []byte(varying)) || bytes.Contains(html1, []byte(varying)) {
			t.Errorf("sweep JSON or HTML contains %q", varying)
		}
	}
	for _, want := range []string{"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "piopt v1.2.3 abc, XGBoost 1.7.6.",
		"piopt evaluate-sweep --data data/all.txt"} {
		if !bytes.Contains(html1, []byte(want)) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	var r1, r2 map[string]any
	if err := json.Unmarshal(run1, &r1); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(run2, &r2)
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range r1 {
			if !yield(k) {
				return
			}
		}
	})
	if want := []string{"cores", "gomaxprocs", "hostname", "seconds", "start", "threads"}; !slices.Equal(keys, want) {
		t.Errorf("run.json keys %v, want %v", keys, want)
	}
	if r1["start"] != "2025-01-02T03:04:05Z" || r2["start"] != "2025-01-02T03:09:00Z" {
		t.Errorf("starts %v, %v", r1["start"], r2["start"])
	}
	if s := r1["seconds"].(map[string]any); s["simulate"] != 1.0 || s["total"] == nil {
		t.Errorf("run.json seconds %v", s)
	}
	delete(r1, "start")
	delete(r2, "start")
	delete(r1, "seconds")
	delete(r2, "seconds")
	if a, b := mustJSON(r1), mustJSON(r2); a != b {
		t.Errorf("run records differ beyond start and seconds:\n%s\n%s", a, b)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
