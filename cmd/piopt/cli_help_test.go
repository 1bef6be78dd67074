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

// TestRootHelpGroups: piopt --help lists the commands in two groups, the
// commands of use (and help) first, then the paper's lab, each command
// once.
func TestRootHelpGroups(t *testing.T) {
	out, err := runCapture(t, "--help")
	if err != nil {
		t.Fatal(err)
	}
	_, cmds, _ := strings.Cut(out, "\nCOMMANDS:\n")
	cmds, _, _ = strings.Cut(cmds, "\n\nGLOBAL OPTIONS:")
	use, paper, ok := strings.Cut(cmds, "\n\n")
	if !ok || !strings.HasPrefix(use, "   use:\n") || !strings.HasPrefix(paper, "   reproduce the paper:\n") {
		t.Fatalf("piopt --help, commands not in the groups use, reproduce the paper:\n%s", cmds)
	}
	group := map[string]string{}
	for name, lines := range map[string]string{"use": use, "paper": paper} {
		for _, l := range strings.Split(lines, "\n")[1:] {
			f := strings.Fields(strings.ReplaceAll(l, ",", ""))
			if !strings.HasPrefix(l, "     ") || len(f) == 0 {
				t.Errorf("piopt --help, line %q", l)
				continue
			}
			if group[f[0]] != "" {
				t.Errorf("piopt --help lists %s twice", f[0])
			}
			group[f[0]] = name
		}
	}
	for _, c := range commands() {
		if want := map[bool]string{true: "paper", false: "use"}[paperCommands[c.Name]]; group[c.Name] != want {
			t.Errorf("piopt --help lists %s in group %q, want %q", c.Name, group[c.Name], want)
		}
	}
	if group["help"] != "use" || len(group) != len(commands())+1 {
		t.Errorf("piopt --help groups %v, want every command and help", group)
	}
	for _, c := range commands() { // the group is not part of a command's help
		if out, err := runCapture(t, c.Name, "--help"); err != nil || strings.Contains(out, "CATEGORY") {
			t.Errorf("piopt %s --help: %v\n%s", c.Name, err, out)
		}
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
