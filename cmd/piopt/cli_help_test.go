package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// helpSection returns the lines of section (DESCRIPTION, OPTIONS) in
// piopt CMD --help.
func helpSection(t *testing.T, cmd, section string) []string {
	t.Helper()
	out, err := runCapture(t, cmd, "--help")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	in := false
	for _, l := range strings.Split(out, "\n") {
		if l != "" && !strings.HasPrefix(l, " ") {
			in = strings.TrimSuffix(l, ":") == section
			continue
		}
		if in {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestHelpMarksRequired: in every command's --help a required flag says
// "(required)" and shows no default, and no other flag says "(required)".
func TestHelpMarksRequired(t *testing.T) {
	marked := 0
	for _, cmd := range commands() { // as built, Required still set
		opts := helpSection(t, cmd.Name, "OPTIONS")
		for _, f := range cmd.Flags {
			if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() {
				continue
			}
			i := slices.IndexFunc(opts, func(l string) bool { return strings.HasPrefix(l, "   --"+f.Names()[0]+" ") })
			if i < 0 {
				t.Errorf("%s --help: no line for --%s", cmd.Name, f.Names()[0])
				continue
			}
			req := false
			if rf, ok := f.(cli.RequiredFlag); ok {
				req = rf.IsRequired()
			}
			line := opts[i]
			if req && (!strings.HasSuffix(line, " (required)") || strings.Contains(line, "default:")) {
				t.Errorf("%s --help, required --%s: %q", cmd.Name, f.Names()[0], line)
			}
			if !req && strings.Contains(line, "(required)") {
				t.Errorf("%s --help, optional --%s: %q", cmd.Name, f.Names()[0], line)
			}
			if req {
				marked++
			}
		}
	}
	if marked < 20 {
		t.Errorf("%d required flags marked, want the 20 or more piopt has", marked)
	}
}

// exampleMidText are the commands whose example is not yet the end of
// their description (issue 14).
var exampleMidText = map[string]bool{"train": true, "evaluate": true, "evaluate-sweep": true}

// TestHelpEndsWithExample: every command's --help shows an example running
// it, and its description ends with the example.
func TestHelpEndsWithExample(t *testing.T) {
	for _, cmd := range commands() {
		desc := helpSection(t, cmd.Name, "DESCRIPTION")
		for len(desc) > 0 && strings.TrimSpace(desc[len(desc)-1]) == "" {
			desc = desc[:len(desc)-1]
		}
		last := len(desc) - 1 // the last paragraph's first line
		for last > 0 && strings.TrimSpace(desc[last-1]) != "" {
			last--
		}
		if !slices.ContainsFunc(desc, func(l string) bool { return strings.HasPrefix(l, "      piopt "+cmd.Name+" ") }) {
			t.Errorf("%s --help: no example line \"   piopt %s ...\"", cmd.Name, cmd.Name)
		}
		if !exampleMidText[cmd.Name] && (last < 0 || !strings.HasPrefix(desc[last], "      piopt ")) {
			t.Errorf("%s --help: the description does not end with an example: %q", cmd.Name, desc[max(last, 0):])
		}
	}
}

// exampleCommands returns the example command lines of a description, a
// trailing backslash joining a line to the next.
func exampleCommands(desc string) [][]string {
	var cmds [][]string
	var cur string
	for _, l := range strings.Split(desc, "\n") {
		switch {
		case cur != "":
			cur += " " + strings.TrimSpace(l)
		case strings.HasPrefix(l, "   piopt "):
			cur = strings.TrimSpace(l)
		default:
			continue
		}
		if c, ok := strings.CutSuffix(cur, "\\"); ok {
			cur = c
			continue
		}
		cmds = append(cmds, strings.Fields(cur)[1:])
		cur = ""
	}
	return cmds
}

// TestHelpExamplesRun runs the examples of synth, stats, predict and rank,
// in that order, in an empty folder.
func TestHelpExamplesRun(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("PIOPT_CACHE", t.TempDir())
	ran := map[string]bool{}
	for _, c := range []*cli.Command{synthCommand(), statsCommand(), predictCommand(), rankCommand()} {
		cmds := exampleCommands(c.Description)
		if len(cmds) == 0 {
			t.Fatalf("%s: no example", c.Name)
		}
		for _, args := range cmds {
			key := strings.Join(args, " ")
			if ran[key] {
				continue // predict's and rank's examples train the same model
			}
			ran[key] = true
			if _, err := runCapture(t, args...); err != nil {
				t.Fatalf("piopt %s: %v", key, err)
			}
		}
	}
	for _, f := range []string{"folds/Fold1/test.txt", "sup.model", "test.scores", "test.run", "summary.json", "test.tsv"} {
		if st, err := os.Stat(filepath.FromSlash(f)); err != nil || st.Size() == 0 {
			t.Errorf("after the examples, %s: %v", f, err)
		}
	}
}
