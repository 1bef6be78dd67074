package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// opeLETOR is 30 queries of 3..20 docs.
var opeLETOR = letorSpec{file: "data.txt", seed: 8, queries: 30, minDocs: 3, maxDocs: 20, qid0: 100}

// TestEvaluateJSONAndSweepAgree simulates a log, evaluates a target on it,
// and checks the JSON keys and that evaluate-sweep's estimate of the same
// seed at the same n is the same number.
func TestEvaluateJSONAndSweepAgree(t *testing.T) {
	dir, common := letorCommand(t, opeLETOR)
	log := filepath.Join(dir, "x.log")
	if err := runPiopt(t, append([]string{"simulate", "--slots", "3", "--metric", "ndcg", "--logging", "pa:1", "--rank-by", "feature:2",
		"--candidates", "8", "--samples", "20000", "--seed", "5", "--out", log}, common...)...); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "est.json")
	if err := runPiopt(t, append([]string{"evaluate", "--logs", log, "--target", "feature:3", "--estimators", "pi,wpi,ips,wips,onpolicy",
		"--delta", "0.1", "--bootstrap", "50", "--json", out}, common...)...); err != nil {
		t.Fatal(err)
	}
	var est map[string]json.RawMessage
	if err := json.Unmarshal(mustRead(t, out), &est); err != nil {
		t.Fatal(err)
	}
	// Every top-level key is an estimator with a value.
	for name, raw := range est {
		var e struct {
			Value *float64 `json:"value"`
			Setup *struct {
				Slots int `json:"slots"`
			} `json:"setup"`
		}
		if err := json.Unmarshal(raw, &e); err != nil || e.Value == nil || e.Setup == nil || e.Setup.Slots == 0 {
			t.Errorf("top-level key %q is not an estimator with value and setup: %.200s (%v)", name, raw, err)
		}
	}
	values := map[string]float64{}
	for _, name := range []string{"pi", "wpi", "ips", "wips", "onpolicy"} {
		var e struct {
			Value     *float64 `json:"value"`
			Bernstein *struct{ Lo, Hi float64 }
		}
		if err := json.Unmarshal(est[name], &e); err != nil || e.Value == nil {
			t.Fatalf("estimator %q: no value in %s (%v)", name, est[name], err)
		}
		if name != "onpolicy" && (e.Bernstein == nil || e.Bernstein.Lo > *e.Value || e.Bernstein.Hi < *e.Value) {
			t.Errorf("%s: Bernstein interval %+v does not hold the estimate %g", name, e.Bernstein, *e.Value)
		}
		values[name] = *e.Value
	}
	sweep := filepath.Join(dir, "sweep.json")
	html := filepath.Join(dir, "sweep.html")
	sweepArgs := append([]string{"evaluate-sweep", "--slots", "3", "--logging", "pa:1", "--rank-by", "feature:2", "--candidates", "8",
		"--target", "feature:3", "--samples", "20000", "--runs", "2", "--seed", "5", "--estimators", "pi,wpi,ips,wips,onpolicy",
		"--json", sweep, "--html", html}, common...)
	if err := runPiopt(t, sweepArgs...); err != nil {
		t.Fatal(err)
	}
	var sw struct {
		Grid   []int64                 `json:"grid"`
		RMSE   map[string][]*float64   `json:"rmse"`
		Values map[string][][]*float64 `json:"values"`
		Seeds  []uint64                `json:"seeds"`
	}
	first := mustRead(t, sweep)
	if err := json.Unmarshal(first, &sw); err != nil {
		t.Fatal(err)
	}
	if sw.Grid[len(sw.Grid)-1] != 20000 || sw.Seeds[0] != 5 || sw.Seeds[1] != 6 {
		t.Fatalf("grid %v, seeds %v", sw.Grid, sw.Seeds)
	}
	for name, v := range values {
		if got := *sw.Values[name][0][len(sw.Grid)-1]; got != v {
			t.Errorf("%s: evaluate %.17g, evaluate-sweep run 1 at n = 20000 %.17g", name, v, got)
		}
	}
	// Same seed, same bytes.
	if err := runPiopt(t, sweepArgs...); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, mustRead(t, sweep)) {
		t.Error("same flags, different JSON")
	}
	if h := string(mustRead(t, html)); !strings.Contains(h, "<svg") || strings.Contains(h, "<script") {
		t.Error("HTML report lacks its inline chart or has scripts")
	}
}

func TestEvaluateRefusesMismatchedLog(t *testing.T) {
	dir, common := letorCommand(t, opeLETOR)
	log := filepath.Join(dir, "x.log")
	if err := runPiopt(t, append([]string{"simulate", "--slots", "3", "--logging", "uniform", "--samples", "100", "--out", log}, common...)...); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--slots", "4"}, "slots"},
		{[]string{"--logging", "pa:1"}, "logging"},
		{[]string{"--estimators", "pi,bogus"}, "bogus"},
		{[]string{"--delta", "1.5"}, "delta"},
		{[]string{"--reward-range", "1,0"}, "reward-range"},
	} {
		args := append(append([]string{"evaluate", "--logs", log, "--target", "feature:1"}, common...), tc.args...)
		err := runPiopt(t, args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one naming %q", tc.args, err, tc.want)
		}
	}
	// A slate the logging policy cannot draw: 3 documents where the header
	// allows 2 candidates.
	lines := strings.SplitN(string(mustRead(t, log)), "\n", 3)
	hdr := strings.Replace(lines[0], "logging=uniform", "logging=uniform candidates=2", 1)
	bad := writeText(t, dir, "bad.log", hdr+"\n"+lines[1]+"\n")
	err := runPiopt(t, append([]string{"evaluate", "--logs", bad, "--target", "feature:1"}, common...)...)
	if err == nil || !strings.Contains(err.Error(), "bad.log") {
		t.Errorf("log naming non-candidates: error %v, want one naming the file", err)
	}
}
