package ope_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOutsideModule builds a Go module outside piopt's (a go.mod in a
// temporary folder requiring piopt and replacing it with this checkout),
// whose program (testdata/outside/main.go.txt) evaluates a slate log with
// the public API alone, and checks that its PI, wPI, IPS and wIPS are
// `piopt evaluate`'s on the same log to the last bit. It runs offline
// (GOPROXY=off, the module cache and this checkout's go.sum).
func TestOutsideModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds piopt and a module")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := func(wd string, env []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = wd, append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	piopt := filepath.Join(dir, "piopt")
	run(root, nil, goTool, "build", "-o", piopt, "./cmd/piopt")

	dataPath, logPath, jsonPath := filepath.Join(dir, "data.txt"), filepath.Join(dir, "x.log"), filepath.Join(dir, "est.json")
	writeLETOR(t, dataPath)
	run(dir, nil, piopt, "simulate", "--data", dataPath, "--no-cache", "--slots", "2", "--logging", "uniform",
		"--samples", "500", "--seed", "3", "--out", logPath)
	run(dir, nil, piopt, "evaluate", "--data", dataPath, "--no-cache", "--logs", logPath, "--target", "feature:2",
		"--estimators", "pi,wpi,ips,wips", "--json", jsonPath)

	mod := filepath.Join(dir, "outside")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	main, err := os.ReadFile("testdata/outside/main.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	rootMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := "go 1.23"
	for _, l := range strings.Split(string(rootMod), "\n") {
		if strings.HasPrefix(l, "go ") {
			goLine = l // the Go version piopt needs
		}
	}
	goMod := fmt.Sprintf("module example.com/outside\n\n%s\n\nrequire github.com/piopt/piopt v0.0.0\n\nreplace github.com/piopt/piopt => %s\n", goLine, root)
	for name, b := range map[string][]byte{"go.mod": []byte(goMod), "go.sum": sum, "main.go": main} {
		if err := os.WriteFile(filepath.Join(mod, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := run(mod, []string{"GOFLAGS=-mod=mod", "GOPROXY=off", "CGO_ENABLED=0"}, goTool, "run", ".", dataPath, logPath)

	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var cli map[string]struct {
		Value float64 `json:"value"`
	}
	if err := json.Unmarshal(b, &cli); err != nil {
		t.Fatal(err)
	}
	t.Logf("outside module:\n%s", out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("outside program printed %q, want 4 estimates", out)
	}
	for _, line := range lines {
		name, v, _ := strings.Cut(line, " ")
		got, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		want, ok := cli[name]
		if !ok || math.Float64bits(got) != math.Float64bits(want.Value) {
			t.Errorf("%s: outside module %v, piopt evaluate %v", name, got, want.Value)
		}
	}
}

// writeLETOR writes 12 queries of 3 to 6 documents, 3 features, grades 0..2.
func writeLETOR(t *testing.T, path string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 5))
	var b strings.Builder
	for q := range 12 {
		for range 3 + rng.IntN(4) {
			fmt.Fprintf(&b, "%d qid:%d 1:%.2f 2:%.2f 3:%.2f\n", rng.IntN(3), q+1, rng.Float64(), rng.Float64(), rng.Float64())
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
