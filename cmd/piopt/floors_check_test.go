package main

import (
	"slices"
	"strings"
	"testing"
)

// A layered graph that follows every rule: subpackages of one folder, the
// internal workflows importing each other, and every floor reaching down.
func goodGraph() []modPackage {
	return []modPackage{
		{Path: "data", Imports: []string{"internal/atomicfile"}},
		{Path: "internal/atomicfile"},
		{Path: "data/synth", Imports: []string{"data", "internal/atomicfile", "internal/parallel"}},
		{Path: "internal/parallel"},
		{Path: "eval"},
		{Path: "impute", Imports: []string{"data", "eval", "internal/parallel"}},
		{Path: "features", Imports: []string{"data"}},
		{Path: "ranker", Imports: []string{"data/xgbmodel", "features", "eval"}},
		{Path: "data/xgbmodel"},
		{Path: "trainer", Imports: []string{"trainer/xgboost", "features", "internal/atomicfile"}},
		{Path: "trainer/xgboost", Cgo: true},
		{Path: "internal/progress"},
		{Path: "ope", Imports: []string{"internal/parallel", "impute", "eval"}},
		{Path: "internal/policy", Imports: []string{"ope", "trainer", "internal/progress"}},
		{Path: "internal/lab/experiment", Imports: []string{"internal/policy"}},
		{Path: "cmd/piopt", Imports: []string{"internal/policy", "trainer/xgboost", "data"}},
	}
}

func TestCheckFloorsGood(t *testing.T) {
	if bad := checkFloors(goodGraph()); len(bad) > 0 {
		t.Fatalf("violations in a layered graph:\n%s", strings.Join(bad, "\n"))
	}
}

// Each change breaks exactly one rule, and checkFloors names it.
func TestCheckFloorsViolations(t *testing.T) {
	adding := func(p modPackage) func(g []modPackage) []modPackage {
		return func(g []modPackage) []modPackage { return append(g, p) }
	}
	cgo := func(path string, on bool) func(g []modPackage) []modPackage {
		return func(g []modPackage) []modPackage { pkgOf(g, path).Cgo = on; return g }
	}
	for _, c := range []struct {
		name   string
		change func(g []modPackage) []modPackage
		want   string
	}{
		{"upward", importing("features", "ranker"), "features (floor 2) imports ranker (floor 3)"},
		{"data to a workflow", importing("data/synth", "internal/policy"), "data/synth (floor 1) imports internal/policy (floor 4)"},
		{"helper to data", importing("internal/parallel", "data"), "internal/parallel (floor 0) imports data (floor 1)"},
		{"public ope to a workflow", importing("ope", "internal/policy"), "ope (floor 3) imports internal/policy (floor 4)"},
		{"ope sideways", importing("ope", "ranker"), "ope imports ranker on its own floor 3"},
		{"library to cmd", importing("internal/policy", "cmd/piopt"), "internal/policy (floor 4) imports cmd/piopt (floor 5)"},
		{"sideways on floor 1", importing("impute", "features"), "impute imports features on its own floor 2"},
		{"sideways on floor 1", importing("eval", "data"), "eval imports data on its own floor 1"},
		{"sideways into a subpackage of another folder", importing("ranker", "trainer/xgboost"), "ranker imports trainer/xgboost on its own floor 3"},
		{"unknown folder", adding(modPackage{Path: "util", Imports: []string{"data"}}), "util: on no floor"},
		{"internal itself", adding(modPackage{Path: "internal"}), "internal: on no floor"},
		{"module root", adding(modPackage{Path: ""}), ": on no floor"},
		{"import of an unknown folder", importing("cmd/piopt", "tools"), "cmd/piopt imports tools, which is on no floor"},
		{"second cgo package", cgo("ranker", true), "ranker: has cgo files; only trainer/xgboost may"},
		{"no cgo package", cgo("trainer/xgboost", false), "no package has cgo files"},
	} {
		bad := checkFloors(c.change(goodGraph()))
		if len(bad) != 1 || !strings.HasPrefix(bad[0], c.want) {
			t.Errorf("%s: violations %q, want one starting %q", c.name, bad, c.want)
		}
	}
}

// importing returns the change that makes from import to.
func importing(from, to string) func(g []modPackage) []modPackage {
	return func(g []modPackage) []modPackage {
		p := pkgOf(g, from)
		p.Imports = append(p.Imports, to)
		return g
	}
}

// pkgOf returns the package of g with the given path.
func pkgOf(g []modPackage, path string) *modPackage {
	return &g[slices.IndexFunc(g, func(p modPackage) bool { return p.Path == path })]
}

func TestDecodeList(t *testing.T) {
	out := `{"ImportPath": "fmt", "Imports": ["io"], "Standard": true}
{"ImportPath": "github.com/urfave/cli/v2", "Module": {"Path": "github.com/urfave/cli/v2"}}
{"ImportPath": "example.com/m/trainer/xgboost", "CgoFiles": ["x.go"], "Imports": ["C", "unsafe"], "Module": {"Path": "example.com/m", "Main": true}}
{"ImportPath": "example.com/m/cmd/m", "Imports": ["example.com/m/trainer/xgboost", "example.com/mx", "fmt", "github.com/urfave/cli/v2"], "Module": {"Path": "example.com/m", "Main": true}}
`
	pkgs, err := decodeList([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := []modPackage{
		{Path: "trainer/xgboost", Cgo: true},
		{Path: "cmd/m", Imports: []string{"trainer/xgboost"}},
	}
	if len(pkgs) != len(want) {
		t.Fatalf("packages %+v, want %+v", pkgs, want)
	}
	for i := range want {
		if pkgs[i].Path != want[i].Path || pkgs[i].Cgo != want[i].Cgo || !slices.Equal(pkgs[i].Imports, want[i].Imports) {
			t.Errorf("package %d: %+v, want %+v", i, pkgs[i], want[i])
		}
	}
}
