package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/urfave/cli/v2"
)

// An output flag naming an input or another output is refused before any
// work, naming both flags; the input is left as it was.
func TestOutputCollisions(t *testing.T) {
	dir := t.TempDir()
	in := func(name string) string { return writeText(t, dir, name, "precious "+name) }
	data, logs, model, targets := in("data.txt"), in("log.txt"), in("model.bin"), in("targets.txt")
	pol := in("policy.txt")
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink("data.txt", link); err != nil {
		t.Fatal(err)
	}
	folds := filepath.Join(dir, "folds")
	os.Mkdir(folds, 0o755)
	fresh := filepath.Join(dir, "new.json")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--data", data, "--slots", "3", "--logging", "uniform", "--samples", "9", "--out", data}, "--out and --data name the same file (" + data + ")"},
		{[]string{"simulate", "--data", data, "--slots", "3", "--logging", "uniform", "--samples", "9", "--out", link}, "--out and --data name the same file (" + link + ")"},
		{[]string{"impute", "--data", data, "--logs", logs, "--out", logs}, "--out and --logs name the same file (" + logs + ")"},
		{[]string{"train", "--data", data, "--targets", targets, "--out", targets}, "--out and --targets name the same file (" + targets + ")"},
		{[]string{"predict", "--data", data, "--model", model, "--out", model}, "--out and --model name the same file (" + model + ")"},
		{[]string{"rank", "--data", data, "--model", model, "--out", fresh, "--json", fresh}, "--out and --json name the same file (" + fresh + ")"},
		{[]string{"rank", "--data", data, "--model", model, "--per-query", "./" + filepath.Base(data)}, "--per-query and --data name the same file (./data.txt)"},
		{[]string{"evaluate", "--data", data, "--logs", logs, "--target", "model:" + model, "--json", model}, "--json and --target name the same file (" + model + ")"},
		{[]string{"simulate", "--data", data, "--slots", "3", "--logging", "pa:1", "--rank-by", "model:" + model, "--samples", "9", "--out", model}, "--out and --rank-by name the same file (" + model + ")"},
		{[]string{"evaluate-sweep", "--data", data, "--target", "feature:1", "--json", fresh, "--html", fresh}, "--json and --html name the same file (" + fresh + ")"},
		{[]string{"experiment", "--folds", folds, "--out", folds + "/"}, "--out and --folds name the same file (" + folds + "/)"},
		{[]string{"simulate", "--data", data, "--slots", "3", "--logging", "uniform", "--samples", "9", "--out", fresh, "--policy-out", data}, "--policy-out and --data name the same file (" + data + ")"},
		{[]string{"simulate", "--data", data, "--slots", "3", "--logging", "uniform", "--samples", "9", "--out", pol, "--policy-out", pol}, "--policy-out and --out name the same file (" + pol + ")"},
		{[]string{"impute", "--data", data, "--logs", logs, "--policy", pol, "--out", pol}, "--out and --policy name the same file (" + pol + ")"},
		{[]string{"impute", "--data", data, "--logs", logs, "--targets-kind", "dr", "--baseline", "model:" + model, "--out", model}, "--out and --baseline name the same file (" + model + ")"},
		{[]string{"evaluate", "--data", data, "--logs", logs, "--policy", pol, "--target", "feature:1", "--json", pol}, "--json and --policy name the same file (" + pol + ")"},
		{[]string{"simulate", "--data", data, "--slots", "3", "--logging", "pa:1", "--rank-by", "feature:1", "--candidates", "2", "--candidates-by", "model:" + model, "--samples", "9", "--out", model}, "--out and --candidates-by name the same file (" + model + ")"},
		{[]string{"select", "--data", data, "--logs", logs, "--models", "a=feature:1,b=" + model, "--json", model}, "--json and --models name the same file (" + model + ")"},
		{[]string{"select", "--data", data, "--logs", logs, "--models", "model:" + model, "--json", logs}, "--json and --logs name the same file (" + logs + ")"},
	}
	t.Chdir(dir)
	for _, c := range cases {
		err := runPiopt(t, append(c.args, "--no-cache")...)
		if err == nil || err.Error() != c.want {
			t.Errorf("piopt %s: error %v, want %q", strings.Join(c.args, " "), err, c.want)
		}
	}
	for _, p := range []string{data, logs, model, targets, pol} {
		if b := mustRead(t, p); string(b) != "precious "+filepath.Base(p) {
			t.Errorf("%s now reads %q", p, b)
		}
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s is no longer a link", link)
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Errorf("%s was written", fresh)
	}
}

// Distinct outputs, and one special file given twice (a FIFO made here;
// /dev/null is the usual case), pass the check.
func TestOutputsDistinctOrSpecial(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, args := range [][]string{
		{"rank", "--data", "d", "--model", "m", "--out", filepath.Join(dir, "a"), "--json", filepath.Join(dir, "b")},
		{"rank", "--data", "d", "--model", "m", "--out", fifo, "--json", fifo},
	} {
		// The run goes on to fail on the missing --data d.
		err := runPiopt(t, append(args, "--no-cache")...)
		if err == nil || strings.Contains(err.Error(), "the same file") {
			t.Errorf("%v: %v, want the missing data to be reported", args, err)
		}
	}
}

// Every string flag of every command is a file the collision check knows
// (an input or an output) or is named here as not a file: a new file flag
// cannot be left out of checkOutputs unnoticed (--policy and --policy-out
// once were).
func TestFileFlagsChecked(t *testing.T) {
	notFiles := []string{"shard", "doc-ids", "metric", "metrics", "logging", "discount", "slate", "sup-target",
		"select-by", "base-score", "reward-range", "preset", "estimators", "estimator", "interval",
		"only-folds", "objective", "eval-metric", "grid", "samples", "targets-kind", // experiment's --samples: a list of sizes
		"tracker", "python", // train's distributed job: an address, an interpreter to run
		"cache-dir"} // a folder piopt only adds entries to; a bad one is said once and skipped
	for _, cmd := range newApp().Commands {
		for _, f := range cmd.Flags {
			sf, ok := f.(*cli.StringFlag)
			if !ok {
				continue
			}
			if !slices.Contains(inputFlags, sf.Name) && !slices.Contains(outputFlags, sf.Name) && !slices.Contains(notFiles, sf.Name) {
				t.Errorf("piopt %s --%s: neither an input, an output nor known as no file", cmd.Name, sf.Name)
			}
		}
	}
}
