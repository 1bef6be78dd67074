package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The module's layering: every folder sits on one floor and imports only
// downward, so a concept has one home and nothing below a workflow can
// reach up into it. The table mirrors the architecture in DESIGN.md.
var floors = map[string]int{
	"data": 0, "eval": 0,
	"impute": 1, "features": 1,
	"ranker": 2, "trainer": 2,
	"internal": 3,
	"cmd":      4,
}

// sharedFloor is the one floor whose folders may import each other: the
// internal workflows build on one another.
const sharedFloor = 3

// cgoPackage is the only package allowed cgo files: the XGBoost binding.
// Everything else builds with CGO_ENABLED=0.
const cgoPackage = "trainer/xgboost"

// modPackage is what checkFloors needs of one package of the module, with
// paths relative to the module root.
type modPackage struct {
	Path    string
	Imports []string
	Cgo     bool
}

// floorOf returns the floor of a package path relative to the module root.
// Floor 3 is internal/*, not internal itself.
func floorOf(rel string) (int, bool) {
	top, _, sub := strings.Cut(rel, "/")
	f, ok := floors[top]
	if ok && f == sharedFloor && !sub {
		return 0, false
	}
	return f, ok
}

// checkFloors returns every layering violation of pkgs, one message each,
// in the order of pkgs and their imports.
func checkFloors(pkgs []modPackage) []string {
	var bad []string
	cgo := 0
	for _, p := range pkgs {
		fp, ok := floorOf(p.Path)
		if !ok {
			bad = append(bad, fmt.Sprintf("%s: on no floor (add its folder to the floors table)", p.Path))
			continue
		}
		if p.Cgo {
			cgo++
			if p.Path != cgoPackage {
				bad = append(bad, fmt.Sprintf("%s: has cgo files; only %s may", p.Path, cgoPackage))
			}
		}
		for _, imp := range p.Imports {
			fi, ok := floorOf(imp)
			switch {
			case !ok:
				bad = append(bad, fmt.Sprintf("%s imports %s, which is on no floor", p.Path, imp))
			case fi > fp:
				bad = append(bad, fmt.Sprintf("%s (floor %d) imports %s (floor %d): imports go downward only", p.Path, fp, imp, fi))
			case fi == fp && fp != sharedFloor && topFolder(imp) != topFolder(p.Path):
				bad = append(bad, fmt.Sprintf("%s imports %s on its own floor %d: only a folder's own subpackages share a floor", p.Path, imp, fp))
			}
		}
	}
	if cgo == 0 {
		bad = append(bad, fmt.Sprintf("no package has cgo files; %s should", cgoPackage))
	}
	return bad
}

func topFolder(rel string) string {
	top, _, _ := strings.Cut(rel, "/")
	return top
}

// TestFloors checks the real import graph of the module, as go list sees it
// (non-test imports only).
func TestFloors(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to list the module's packages")
	}
	pkgs, err := listModule(goTool)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < len(floors) {
		t.Fatalf("go list found only %d packages of the module: %v", len(pkgs), pkgs)
	}
	for _, msg := range checkFloors(pkgs) {
		t.Error(msg)
	}
	t.Logf("%d packages of the module checked", len(pkgs))
}

// listModule runs go list -deps -json ./... at the module root and returns
// the module's own packages with module-relative paths.
func listModule(goTool string) ([]modPackage, error) {
	gomod, err := exec.Command(goTool, "env", "GOMOD").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOMOD: %w", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return nil, fmt.Errorf("module root of %q: %w", gomod, err)
	}
	cmd := exec.Command(goTool, "list", "-deps", "-json", "./...")
	cmd.Dir = root
	// CGO_ENABLED=1 so that cgo files count as the package's files (with
	// cgo off, go list would file them as ignored).
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w\n%s", err, stderr.Bytes())
	}
	return decodeList(out)
}

// decodeList keeps the main module's packages of go list -json's stream.
func decodeList(out []byte) ([]modPackage, error) {
	var pkgs []modPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Imports    []string
			CgoFiles   []string
			Module     *struct {
				Path string
				Main bool
			}
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs, nil
		} else if err != nil {
			return nil, fmt.Errorf("go list output: %w", err)
		}
		if p.Module == nil || !p.Module.Main {
			continue
		}
		rel := func(path string) (string, bool) {
			if path == p.Module.Path {
				return "", true
			}
			r, ok := strings.CutPrefix(path, p.Module.Path+"/")
			return r, ok
		}
		mp := modPackage{Cgo: len(p.CgoFiles) > 0}
		mp.Path, _ = rel(p.ImportPath)
		for _, imp := range p.Imports {
			if r, ok := rel(imp); ok {
				mp.Imports = append(mp.Imports, r)
			}
		}
		pkgs = append(pkgs, mp)
	}
}
