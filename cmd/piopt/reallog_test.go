package main

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A log written by another program (testdata/reallog/make_fixture.py:
// documents by id, 17 contexts of one or more per qid, every policy spec)
// gives the PI, wPI, IPS and wIPS values and the φ̂ targets that an
// independent computation by brute-force enumeration (reference.py, numpy)
// gives.
func TestRealLogMatchesIndependentReference(t *testing.T) {
	dir := filepath.Join("testdata", "reallog")
	var want struct {
		PI               float64 `json:"pi"`
		WPI              float64 `json:"wpi"`
		IPS              float64 `json:"ips"`
		WIPS             float64 `json:"wips"`
		N                int64   `json:"n"`
		Targets          [][]any `json:"targets"`
		TargetsPerSample [][]any `json:"targets_per_sample"`
	}
	if err := json.Unmarshal(mustRead(t, filepath.Join(dir, "expected.json")), &want); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	common := []string{"--data", filepath.Join(dir, "data.txt"), "--logs", filepath.Join(dir, "log.txt"),
		"--doc-ids", "comment", "--no-cache", "--max-label", "2"}
	est := filepath.Join(tmp, "est.json")
	args := append([]string{"evaluate"}, common...)
	if _, err := runCapture(t, append(args, "--target", "feature:2", "--estimators", "pi,wpi,ips,wips", "--json", est)...); err != nil {
		t.Fatal(err)
	}
	var got map[string]struct {
		Value float64 `json:"value"`
		N     int64   `json:"n"`
	}
	if err := json.Unmarshal(mustRead(t, est), &got); err != nil {
		t.Fatal(err)
	}
	for name, w := range map[string]float64{"pi": want.PI, "wpi": want.WPI, "ips": want.IPS, "wips": want.WIPS} {
		if g := got[name]; math.Abs(g.Value-w) > 1e-12*math.Abs(w) || g.N != want.N {
			t.Errorf("%s = %.17g over %d impressions, reference %.17g over %d", name, g.Value, g.N, w, want.N)
		}
	}
	for _, tc := range []struct {
		flags []string
		want  [][]any
	}{{nil, want.Targets}, {[]string{"--per-sample"}, want.TargetsPerSample}} {
		out := filepath.Join(tmp, "t.targets")
		args := append(append([]string{"impute"}, common...), tc.flags...)
		if err := runPiopt(t, append(args, "--out", out)...); err != nil {
			t.Fatal(err)
		}
		compareTargets(t, mustRead(t, out), tc.want)
	}
}

// compareTargets compares a targets file's rows with the reference's
// [qid, doc, slot, target, weight] rows, in order.
func compareTargets(t *testing.T, file []byte, want [][]any) {
	t.Helper()
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSpace(string(file)), "\n") {
		if !strings.HasPrefix(line, "#") {
			rows = append(rows, strings.Split(line, "\t"))
		}
	}
	if len(rows) != len(want) {
		t.Fatalf("%d target rows, reference %d", len(rows), len(want))
	}
	for i, r := range rows {
		w := want[i]
		target, _ := strconv.ParseFloat(r[3], 64)
		weight, _ := strconv.ParseFloat(r[4], 64)
		wt, ww := w[3].(float64), w[4].(float64)
		same := r[0] == w[0] && r[1] == w[1] && r[2] == strconv.Itoa(int(w[2].(float64)))
		if !same || math.Abs(target-wt) > 1e-10*max(1, math.Abs(wt)) || math.Abs(weight-ww) > 1e-12*ww {
			t.Fatalf("row %d: %v, reference %v", i+1, r, w)
		}
	}
}

// simulate --policy-out writes the policy file of what it logged; impute
// and evaluate reading the log through it give the same bytes as through
// the named policy (uniform and pa: the same Γ, bit for bit). For pl, the
// log read back with its policy file gives the same targets as impute
// --simulate's fused path.
func TestSimulatePolicyOutRoundTrip(t *testing.T) {
	dir, common := letorCommand(t, letorSpec{file: "d.txt", seed: 3, queries: 12, minDocs: 3, maxDocs: 9, qid0: 40})
	for _, logging := range []string{"uniform", "pa:1", "eps:0.3,pa:2", "pl:0.5", "eps:0.2,pl:2"} {
		log := filepath.Join(dir, "l.log")
		pol := filepath.Join(dir, "l.policy")
		sim := append([]string{"simulate", "--slots", "3", "--logging", logging, "--rank-by", "feature:2", "--candidates", "6",
			"--samples", "3000", "--seed", "5", "--out", log, "--policy-out", pol}, common...)
		if err := runPiopt(t, sim...); err != nil {
			t.Fatalf("%s: %v", logging, err)
		}
		viaPolicy, named, fused := filepath.Join(dir, "p.t"), filepath.Join(dir, "n.t"), filepath.Join(dir, "f.t")
		if err := runPiopt(t, append([]string{"impute", "--logs", log, "--policy", pol, "--out", viaPolicy}, common...)...); err != nil {
			t.Fatalf("%s: %v", logging, err)
		}
		fusedArgs := []string{"impute", "--samples", "3000", "--seed", "5", "--slots", "3", "--logging", logging,
			"--rank-by", "feature:2", "--candidates", "6", "--out", fused}
		if err := runPiopt(t, append(fusedArgs, common...)...); err != nil {
			t.Fatalf("%s: %v", logging, err)
		}
		a, b := targetRows(mustRead(t, viaPolicy)), targetRows(mustRead(t, fused))
		if !bytes.Equal(a, b) {
			t.Errorf("%s: targets through the policy file differ from the fused path", logging)
		}
		if strings.HasPrefix(logging, "pl") || strings.Contains(logging, "pl:") {
			continue
		}
		// The named policy from the log's header (no policy= key: strip it).
		stripped := filepath.Join(dir, "s.log")
		text := strings.Replace(string(mustRead(t, log)), " policy=l.policy", "", 1)
		writeText(t, dir, "s.log", text)
		if err := runPiopt(t, append([]string{"impute", "--logs", stripped, "--out", named}, common...)...); err != nil {
			t.Fatalf("%s: %v", logging, err)
		}
		if !bytes.Equal(targetRows(mustRead(t, named)), a) {
			t.Errorf("%s: targets through the policy file differ from the named policy's", logging)
		}
	}
}

// targetRows drops a targets file's header line.
func targetRows(b []byte) []byte {
	_, rows, _ := bytes.Cut(b, []byte{'\n'})
	return rows
}

// Every way a real log and its policy file can disagree is an error naming
// the file, the line and the field, before any estimate is printed.
func TestRealLogErrors(t *testing.T) {
	dir := t.TempDir()
	data := writeText(t, dir, "d.txt", "2 qid:5 1:1 # A\n1 qid:5 1:2 # B\n0 qid:5 1:3 # C\n0 qid:5 1:4 # D\n1 qid:6 1:1 # A\n0 qid:6 1:2 # E\n")
	const policy = "# piopt-policy v1 slots=2\n5@x\tpl:0.5\tA:1,B:0.5,C:0\n5@y\tslates\tA B=0.5,C D=0.5\n6\tuniform\tA,E\n"
	writeText(t, dir, "p.policy", policy)
	common := []string{"--data", data, "--doc-ids", "comment", "--no-cache", "--max-label", "2"}
	const head = "# piopt-log v1 slots=2 policy=p.policy\n"
	for _, tc := range []struct {
		name, policy, log string
		flags             []string
		want              string
	}{
		{"fine", policy, head + "5@x\tA,B\t1\n5@y\tC,D\t0.5\n6\tE,A\t0\n", nil, ""},
		{"context not in policy", policy, head + "5@x\tA,B\t1\n5@z\tA,B\t1\n", nil, `l.log:3: field 1 ("5@z"): context "5@z" is not in the policy file`},
		{"qid not in data", policy, head + "7@x\tA,B\t1\n", nil, `l.log:2: field 1 ("7@x"): context "7@x": qid "7" is not in`},
		{"slate not listed", policy, head + "5@y\tA,C\t1\n", nil, `l.log:2: field 2 ("A,C"): the slate has probability 0 under context "5@y"'s policy (slates)`},
		{"doc not a candidate", policy, head + "5@x\tA,D\t1\n", nil, `l.log:2: field 2 ("A,D"): slot 2: document D of context "5@x" is not one of its 3 candidates`},
		{"unknown doc", policy, head + "5@x\tA,Z\t1\n", nil, `l.log:2: field 2 ("A,Z")`},
		{"tau 0", strings.Replace(policy, "pl:0.5", "pl:0", 1), head + "5@x\tA,B\t1\n", nil, `p.policy:2: field 2 ("pl:0"): logging pl:0: τ must be a positive finite number`},
		{"probabilities", strings.Replace(policy, "C D=0.5", "C D=0.4", 1), head + "5@x\tA,B\t1\n", nil, "p.policy:3: field 3 (\"A B=0.5,C D=0.4\"): slate probabilities sum to 0.9, not 1"},
		{"slots disagree", "# piopt-policy v1 slots=3\n5@x\tpl:0.5\tA:1,B:0.5,C:0\n", head + "5@x\tA,B\t1\n", nil, "slots=3 but the log"},
		{"no policy file", policy, strings.Replace(head, "p.policy", "q.policy", 1) + "5@x\tA,B\t1\n", nil, "header policy=q.policy: no file"},
		{"logging with a policy file", policy, head + "5@x\tA,B\t1\n", []string{"--logging", "uniform"}, "--logging: the log's policy file gives the logging policy"},
	} {
		writeText(t, dir, "p.policy", tc.policy)
		log := writeText(t, dir, "l.log", tc.log)
		args := append(append([]string{"impute", "--logs", log, "--out", filepath.Join(dir, "t")}, common...), tc.flags...)
		err := runPiopt(t, args...)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}
