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
// reach up into it. A folder is matched by its longest key (internal/atomicfile
// before internal). The table mirrors the floors table of docs/design.md.
var floors = map[string]int{
	// general helpers that import nothing of the module
	"internal/atomicfile": 0, "internal/parallel": 0, "internal/progress": 0,
	"internal/report": 0, "internal/datatest": 0, "internal/xgboosttest": 0, "internal/xsum": 0,
	"data": 1, "eval": 1,
	"impute": 2, "features": 2, "internal/xgbmodeltest": 2,
	"ranker": 3, "trainer": 3, "ope": 3,
	"internal": 4,
	"cmd":      5,
}

// sharedFloor is the one floor whose folders may import each other: the
// internal workflows build on one another.
const sharedFloor = 4

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

// floorKey returns the key of the floors table a package path relative to
// the module root falls under: the longest key that is the path or one of
// its parent folders. internal itself is on no floor, only its subfolders.
func floorKey(rel string) (string, bool) {
	best := ""
	for k := range floors {
		if (rel == k || strings.HasPrefix(rel, k+"/")) && len(k) > len(best) {
			best = k
		}
	}
	if best == "" || (rel == best && floors[best] == sharedFloor) {
		return "", false
	}
	return best, true
}

// floorOf returns the floor of a package path relative to the module root.
func floorOf(rel string) (int, bool) {
	k, ok := floorKey(rel)
	return floors[k], ok
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
			case fi == fp && fp != sharedFloor && otherKey(imp, p.Path):
				bad = append(bad, fmt.Sprintf("%s imports %s on its own floor %d: only a folder's own subpackages share a floor", p.Path, imp, fp))
			}
		}
	}
	if cgo == 0 {
		bad = append(bad, fmt.Sprintf("no package has cgo files; %s should", cgoPackage))
	}
	return bad
}

// otherKey reports whether two paths fall under different keys of the
// floors table: only a folder's own subpackages share a floor.
func otherKey(a, b string) bool {
	ka, _ := floorKey(a)
	kb, _ := floorKey(b)
	return ka != kb
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
