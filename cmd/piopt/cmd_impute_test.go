package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// imputeLETOR is 25 queries of 1..30 docs.
var imputeLETOR = letorSpec{file: "train.txt", seed: 3, queries: 25, minDocs: 1, maxDocs: 30, qid0: 500}

// simulate followed by impute --logs gives the same bytes as the fused
// impute --simulate, and the same seed gives the same log.
func TestImputeFusedEqualsLog(t *testing.T) {
	dir, common := letorCommand(t, imputeLETOR)
	for i, pol := range [][]string{
		{"--slots", "3", "--logging", "uniform"},
		{"--slots", "4", "--logging", "eps:0.2,pa:1", "--rank-by", "feature:2", "--candidates", "8", "--per-sample"},
	} {
		var simArgs, impArgs []string
		for k := 0; k < len(pol); k++ {
			if pol[k] == "--per-sample" {
				impArgs = append(impArgs, pol[k])
				continue
			}
			simArgs = append(simArgs, pol[k], pol[k+1])
			k++
		}
		log := filepath.Join(dir, fmt.Sprintf("%d.log", i))
		if err := runPiopt(t, append(append([]string{"simulate", "--metric", "err", "--samples", "5000", "--seed", "11", "--out", log}, common...), simArgs...)...); err != nil {
			t.Fatal(err)
		}
		again := log + ".again"
		runPiopt(t, append(append([]string{"simulate", "--metric", "err", "--samples", "5000", "--seed", "11", "--out", again}, common...), simArgs...)...)
		if !bytes.Equal(mustRead(t, log), mustRead(t, again)) {
			t.Fatal("same seed, different logs")
		}
		fromLog := filepath.Join(dir, fmt.Sprintf("%d.log.targets", i))
		if err := runPiopt(t, append(append([]string{"impute", "--logs", log, "--out", fromLog}, common...), impArgs...)...); err != nil {
			t.Fatal(err)
		}
		fused := filepath.Join(dir, fmt.Sprintf("%d.fused.targets", i))
		if err := runPiopt(t, append(append(append([]string{"impute", "--samples", "5000", "--metric", "err", "--seed", "11", "--out", fused}, common...), simArgs...), impArgs...)...); err != nil {
			t.Fatal(err)
		}
		a, b := mustRead(t, fromLog), mustRead(t, fused)
		if !bytes.Equal(a, b) {
			t.Fatalf("policy %v: targets from the log and fused differ\n%s\n%s", pol, a[:min(300, len(a))], b[:min(300, len(b))])
		}
		if !bytes.HasPrefix(a, []byte("# piopt-targets v1 slots=")) || !bytes.Contains(a[:300], []byte("samples=5000")) {
			t.Fatalf("targets header: %s", a[:200])
		}
	}
}

// A log whose header disagrees with the flags is refused, and no output
// file appears.
func TestImputeRefusesMismatchedLog(t *testing.T) {
	dir, common := letorCommand(t, imputeLETOR)
	log := filepath.Join(dir, "u.log")
	if err := runPiopt(t, append([]string{"simulate", "--slots", "2", "--logging", "uniform", "--samples", "100", "--out", log}, common...)...); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "x.targets")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--slots", "3"}, "header slots=2 but --slots 3"},
		{[]string{"--logging", "pa:1", "--rank-by", "feature:1"}, "header logging=uniform but --logging pa:1"},
		{[]string{"--candidates", "5"}, "header candidates=0 but --candidates 5"},
		{[]string{"--metric", "err"}, "header metric=ndcg@2 but --metric err"},
		{[]string{"--samples", "10"}, "not both"},
		{[]string{"--maxrel", "9"}, log + ":1: bad header: header err-maxrel=2 but --maxrel 9"},
		{[]string{"--discount", "max2"}, log + ":1: bad header: header discount=1/log2(j+1) but --discount max2"},
		{[]string{"--empty-ndcg", "1"}, log + ":1: bad header: header empty-query-ndcg=0 but --empty-ndcg 1"},
	} {
		err := runPiopt(t, append(append([]string{"impute", "--logs", log, "--out", out}, common...), tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("%v: output exists after an error", tc.args)
		}
	}
	// Conventions the header states may be repeated.
	if err := runPiopt(t, append([]string{"impute", "--logs", log, "--out", out, "--discount", "log2", "--empty-ndcg", "0"}, common...)...); err != nil {
		t.Fatalf("conventions as the header states them: %v", err)
	}
	os.Remove(out)
	// A log without the keys: a convention flag could have no effect.
	var kept []string
	for _, f := range strings.Fields(strings.SplitN(string(mustRead(t, log)), "\n", 2)[0]) {
		if !strings.HasPrefix(f, "err-maxrel=") {
			kept = append(kept, f)
		}
	}
	bare := writeText(t, dir, "bare.log", strings.Join(kept, " ")+"\n"+strings.SplitN(string(mustRead(t, log)), "\n", 2)[1])
	err := runPiopt(t, append([]string{"impute", "--logs", bare, "--out", out, "--maxrel", "2"}, common...)...)
	if want := "--maxrel 2: " + bare + "'s header has no err-maxrel="; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("maxrel without a header key: %v, want %q", err, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatal("output exists after an error")
	}
	// A bad line deep in the log: error names it, no output.
	text := string(mustRead(t, log))
	lines := strings.Split(text, "\n")
	f := strings.Split(lines[50], "\t")
	lines[50] = f[0] + "\t" + f[1] + "\tinf"
	bad := writeText(t, dir, "bad.log", strings.Join(lines, "\n"))
	err = runPiopt(t, append([]string{"impute", "--logs", bad, "--out", out}, common...)...)
	if err == nil || !strings.Contains(err.Error(), "bad.log:51: field 3") {
		t.Fatalf("bad reward: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatal("output exists after an error")
	}
	for _, args := range [][]string{
		{"simulate", "--slots", "2", "--logging", "pa:1", "--samples", "10", "--out", out},                       // pa needs ranks
		{"simulate", "--slots", "0", "--logging", "uniform", "--samples", "10", "--out", out},                    // slots
		{"simulate", "--slots", "2", "--logging", "uniform", "--samples", "10", "--metric", "map", "--out", out}, // metric
		{"impute", "--out", out}, // no input
		{"impute", "--samples", "10", "--logging", "uniform", "--out", out},                                            // no slots
		{"impute", "--samples", "10", "--slots", "2", "--logging", "uniform", "--rank-by", "feature:99", "--out", out}, // feature
	} {
		if err := runPiopt(t, append(args, common...)...); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}
