package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// shardRun runs cmd (impute or evaluate with its flags) once per shard of
// n, writing partials into dir, and returns their paths.
func shardRun(t *testing.T, dir, name string, n int, cmd []string) []string {
	t.Helper()
	var parts []string
	for i := 1; i <= n; i++ {
		p := filepath.Join(dir, fmt.Sprintf("%s.%d-%d.part", name, i, n))
		if err := runPiopt(t, append(cmd, "--shard", fmt.Sprintf("%d/%d", i, n), "--partial", p)...); err != nil {
			t.Fatalf("%s shard %d/%d: %v", name, i, n, err)
		}
		parts = append(parts, p)
	}
	return parts
}

// shardLogs are the test's logs: uniform and pa from simulate, and the
// hand-made log of testdata/reallog whose policy file mixes uniform, pa,
// pl, eps and explicit slates per context.
func shardLogs(t *testing.T) map[string][]string {
	t.Helper()
	dir, common := letorCommand(t, letorSpec{file: "d.txt", seed: 3, queries: 40, minDocs: 3, maxDocs: 9})
	logs := map[string][]string{}
	for _, lg := range []string{"uniform", "pa:1"} {
		log := filepath.Join(dir, strings.ReplaceAll(lg, ":", "")+".log")
		sim := append([]string{"simulate", "--slots", "3", "--logging", lg, "--rank-by", "feature:2", "--samples", "2000", "--seed", "4", "--out", log}, common...)
		if err := runPiopt(t, sim...); err != nil {
			t.Fatal(err)
		}
		logs[lg] = append([]string{"--logs", log}, common...)
	}
	rl := filepath.Join("testdata", "reallog")
	logs["policy file (pl, slates, eps)"] = []string{"--data", filepath.Join(rl, "data.txt"), "--logs", filepath.Join(rl, "log.txt"),
		"--doc-ids", "comment", "--no-cache", "--max-label", "2"}
	return logs
}

// TestShardedImpute: impute in 1, 2, 3 and 7 shards, merged, writes the
// unsharded targets byte for byte, with and without --per-sample.
func TestShardedImpute(t *testing.T) {
	tmp := t.TempDir()
	for name, args := range shardLogs(t) {
		for _, ps := range [][]string{nil, {"--per-sample"}} {
			cmd := append(append([]string{"impute"}, args...), ps...)
			full := filepath.Join(tmp, "full.targets")
			if err := runPiopt(t, append(cmd, "--out", full)...); err != nil {
				t.Fatal(err)
			}
			want := mustRead(t, full)
			for _, n := range []int{1, 2, 3, 7} {
				parts := shardRun(t, tmp, "imp", n, cmd)
				merged := filepath.Join(tmp, "merged.targets")
				if err := runPiopt(t, append([]string{"merge", "--out", merged}, parts...)...); err != nil {
					t.Fatalf("%s %v n=%d: merge: %v", name, ps, n, err)
				}
				if got := mustRead(t, merged); !bytes.Equal(got, want) {
					t.Errorf("%s %v: %d shards merged differ from the unsharded targets (%d vs %d bytes)", name, ps, n, len(got), len(want))
				}
			}
		}
	}
}

// commandField is the JSON's command line, which a test binary's os.Args
// gives (merge writes the shards' without --shard and --partial, with
// --json FILE last: mergedCommand's tests check that).
var commandField = regexp.MustCompile(`"command": "[^"]*"`)

// TestShardedEvaluate: evaluate in 1, 2, 3 and 7 shards, merged, gives the
// unsharded JSON byte for byte (bootstrap included) but for the command
// line.
func TestShardedEvaluate(t *testing.T) {
	tmp := t.TempDir()
	for name, args := range shardLogs(t) {
		cmd := append(append([]string{"evaluate"}, args...), "--target", "feature:2", "--estimators", "pi,wpi,pi-cv,ips,wips,onpolicy", "--bootstrap", "40")
		est := filepath.Join(tmp, "est.json")
		if _, err := runCapture(t, append(cmd, "--json", est)...); err != nil {
			t.Fatal(err)
		}
		want := commandField.ReplaceAll(mustRead(t, est), nil)
		for _, n := range []int{1, 2, 3, 7} {
			parts := shardRun(t, tmp, "ev", n, cmd)
			if err := runPiopt(t, append([]string{"merge", "--json", est}, parts...)...); err != nil {
				t.Fatalf("%s n=%d: merge: %v", name, n, err)
			}
			if got := commandField.ReplaceAll(mustRead(t, est), nil); !bytes.Equal(got, want) {
				t.Errorf("%s: %d shards merged differ from the unsharded JSON:\n%s\nwant\n%s", name, n, got, want)
			}
		}
	}
}

// TestShardedRowLog: a JSON-lines log with a policy in every row, read
// without a dataset, in 2 and 3 shards merged, gives the unsharded JSON
// byte for byte (bootstrap included) but for the command line; a shard
// holds only its own impressions.
func TestShardedRowLog(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join("testdata", "targets")
	cmd := []string{"evaluate", "--logs", filepath.Join(dir, "log.jsonl"), "--target-scores", filepath.Join(dir, "scores.txt"), "--bootstrap", "40"}
	est := filepath.Join(tmp, "est.json")
	if _, err := runCapture(t, append(cmd, "--json", est)...); err != nil {
		t.Fatal(err)
	}
	want := commandField.ReplaceAll(mustRead(t, est), nil)
	for _, n := range []int{2, 3} {
		parts := shardRun(t, tmp, "row", n, cmd)
		samples := 0
		for _, p := range parts {
			m := regexp.MustCompile(`samples=(\d+)`).FindSubmatch(mustRead(t, p))
			if m == nil {
				t.Fatalf("%s: no samples= in its header", p)
			}
			k := 0
			fmt.Sscan(string(m[1]), &k)
			if k == 400 {
				t.Errorf("%s: shard holds all 400 impressions", p)
			}
			samples += k
		}
		if samples != 400 {
			t.Errorf("%d shards hold %d impressions, want 400", n, samples)
		}
		if err := runPiopt(t, append([]string{"merge", "--json", est}, parts...)...); err != nil {
			t.Fatalf("n=%d: merge: %v", n, err)
		}
		if got := commandField.ReplaceAll(mustRead(t, est), nil); !bytes.Equal(got, want) {
			t.Errorf("%d shards merged differ from the unsharded JSON:\n%s\nwant\n%s", n, got, want)
		}
	}
}

// TestMergeRefuses: a missing shard, a repeated one, a partial of another
// setting and an edited partial are refused in one line naming the cause;
// no output is written.
func TestMergeRefuses(t *testing.T) {
	tmp := t.TempDir()
	var args []string
	for name, a := range shardLogs(t) {
		if name == "uniform" {
			args = a
		}
	}
	cmd := append([]string{"impute"}, args...)
	parts := shardRun(t, tmp, "a", 3, cmd)
	other := shardRun(t, tmp, "b", 3, append(cmd, "--per-sample"))
	edited := filepath.Join(tmp, "edited.part")
	b := mustRead(t, parts[1])
	b[len(b)/2] ^= 1
	if err := os.WriteFile(edited, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out.targets")
	for _, c := range []struct {
		parts []string
		want  string
	}{
		{parts[:2], "shard 3/3 is missing"},
		{[]string{parts[0], parts[1], parts[1]}, "shard 2/3 given twice"},
		{[]string{parts[0], other[1], parts[2]}, `per-sample="false" and per-sample="true"`},
		{[]string{parts[0], edited, parts[2]}, "checksum mismatch"},
		{append(parts, shardRun(t, tmp, "c", 2, cmd)[0]), "shard 1/3 and"},
	} {
		err := runPiopt(t, append([]string{"merge", "--out", out}, c.parts...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("merge %v: %v, want one line with %q", c.parts, err, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("a refused merge wrote %s", out)
		}
	}
	if err := runPiopt(t, append(cmd, "--shard", "0/3", "--partial", out)...); err == nil || !strings.Contains(err.Error(), "I = 0 outside 1..3") {
		t.Errorf("--shard 0/3: %v", err)
	}
	if err := runPiopt(t, append(cmd, "--shard", "1/2000000", "--partial", out)...); err == nil || !strings.Contains(err.Error(), "outside 1..1000000") {
		t.Errorf("--shard 1/2000000: %v", err)
	}
	// dm, dr and wdr cannot be split.
	ev := append(append([]string{"evaluate"}, args...), "--target", "feature:2", "--estimators", "pi,dm", "--shard", "1/2", "--partial", out)
	if err := runPiopt(t, ev...); err == nil || !strings.Contains(err.Error(), "dm, dr and wdr") {
		t.Errorf("evaluate --shard with dm: %v", err)
	}
}
