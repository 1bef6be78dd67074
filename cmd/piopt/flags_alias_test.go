package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// Renamed flags: the new name works, the old one gives the same bytes with
// a notice, both at once is refused, and --help shows only the new one.
func TestRenamedFlags(t *testing.T) {
	dir, common := letorCommand(t, letorSpec{file: "d.txt", seed: 3, queries: 8, minDocs: 4, maxDocs: 8, qid0: 1})
	at := func(name string) string { return filepath.Join(dir, name) }
	impute := func(flag, out string) (string, error) {
		app := newApp()
		var errw bytes.Buffer
		app.ErrWriter = &errw
		args := append([]string{"piopt", "impute", flag, "2000", "--slots", "3", "--logging", "uniform", "--out", at(out)}, common...)
		err := app.Run(args)
		return errw.String(), err
	}
	notice, err := impute("--samples", "new.txt")
	if err != nil || notice != "" {
		t.Fatalf("--samples: %v, stderr %q", err, notice)
	}
	notice, err = impute("--simulate", "old.txt")
	if err != nil {
		t.Fatal(err)
	}
	if want := "piopt: --simulate is now --samples; the old name goes in the next release\n"; notice != want {
		t.Errorf("notice %q, want %q", notice, want)
	}
	if !bytes.Equal(mustRead(t, at("new.txt")), mustRead(t, at("old.txt"))) {
		t.Error("impute --simulate and --samples wrote different targets")
	}
	err = runPiopt(t, append([]string{"impute", "--samples", "5", "--simulate", "5", "--slots", "3", "--logging", "uniform", "--out", at("x.txt")}, common...)...)
	if err == nil || err.Error() != "--simulate and --samples: --simulate is the old name of --samples; give one" {
		t.Errorf("both names: %v", err)
	}

	for cmd, rs := range renamedFlags() {
		out, err := runCapture(t, cmd, "--help")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if strings.Contains(out, "--"+r.old+" ") || !strings.Contains(out, "--"+r.new+" ") {
				t.Errorf("%s --help: want --%s shown and --%s hidden:\n%s", cmd, r.new, r.old, out)
			}
		}
	}
}

// rank --metric (old) and --metrics (new) choose the same metrics.
func TestRankMetricsRenamed(t *testing.T) {
	app := newApp()
	var rank *cli.Command
	for _, c := range app.Commands {
		if c.Name == "rank" {
			rank = c
		}
	}
	var names []string
	for _, f := range rank.Flags {
		names = append(names, f.Names()[0])
	}
	joined := " " + strings.Join(names, " ") + " "
	if !strings.Contains(joined, " metrics ") || !strings.Contains(joined, " metric ") {
		t.Fatalf("rank's flags %v: want metrics and its hidden old name metric", names)
	}
}

// --slots defaults to 3 and --candidates to 0 wherever the user sets them.
func TestSlotsCandidatesDefaults(t *testing.T) {
	app := newApp()
	for _, c := range app.Commands {
		for _, f := range c.Flags {
			switch f.Names()[0] {
			case "slots":
				if g, ok := f.(*cli.IntFlag); ok && g.Required {
					t.Errorf("%s --slots is required; want the default 3", c.Name)
				} else if ok && g.Value != 0 && g.Value != 3 {
					t.Errorf("%s --slots defaults to %d, want 3", c.Name, g.Value)
				}
			case "candidates":
				if g, ok := f.(*cli.IntFlag); ok && g.Value != 0 {
					t.Errorf("%s --candidates defaults to %d, want 0", c.Name, g.Value)
				}
			}
		}
	}
	dir, common := letorCommand(t, letorSpec{file: "d.txt", seed: 4, queries: 6, minDocs: 4, maxDocs: 8, qid0: 1})
	out := filepath.Join(dir, "log.txt")
	if err := runPiopt(t, append([]string{"simulate", "--samples", "50", "--logging", "uniform", "--out", out}, common...)...); err != nil {
		t.Fatal(err)
	}
	if head, _, _ := strings.Cut(string(mustRead(t, out)), "\n"); !strings.Contains(head, " slots=3 ") {
		t.Errorf("simulate without --slots wrote %q", head)
	}
}
