package evalgrid

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 30, class 1: an edited condition file (a resume file) was loaded
// as it was. It carries a seal of its own bytes: an edited one is
// recomputed with a one-line notice, and grid.json is the first run's.
func TestSilentWrongResults_EditedCondition(t *testing.T) {
	ds := handMade(6, 4, 9, 3, 5)
	out := t.TempDir()
	first, _ := runGrid(t, tinyConfig(t, ds, out, 1))
	conds, _ := filepath.Glob(filepath.Join(out, "conditions", "*.json"))
	if len(conds) != 2 {
		t.Fatalf("conditions: %v", conds)
	}
	b, err := os.ReadFile(conds[0])
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte(`"true_value": 0.`)) + len(`"true_value": 0.`)
	if b[i] == '9' {
		b[i] = '1'
	} else {
		b[i] = '9'
	}
	if err := os.WriteFile(conds[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := tinyConfig(t, ds, out, 1)
	var lines []string
	cfg.Log = func(l string) { lines = append(lines, l) }
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteFiles(out); err != nil {
		t.Fatal(err)
	}
	if n := loadedCount(rep); n != 1 {
		t.Errorf("%d conditions loaded, want the unedited one", n)
	}
	log := strings.Join(lines, "\n")
	if want := "recomputed: " + conds[0] + ": its sha256 seal does not match"; !strings.Contains(log, want) {
		t.Errorf("log lacks %q:\n%s", want, log)
	}
	again, _ := os.ReadFile(filepath.Join(out, "grid.json"))
	if !bytes.Equal(first, again) {
		t.Error("grid.json after an edited condition differs from the first run's")
	}
}
