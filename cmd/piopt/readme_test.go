package main

// The commands of README.md and of every docs/*.md are tested so that
// renaming a flag or a command without updating the docs fails `make test`.
// Conventions, the same for every doc:
//
//   - Every ```sh or ```bash block is a list of shell commands run from the
//     repo root; a line ending in \ continues on the next.
//   - Every bin/piopt command, in every block, is checked against the
//     command's flag set: an unknown command or flag fails with the doc's
//     file and line. A bare `piopt` fails too: it is not on PATH after
//     `make build`.
//   - A `make X` line is checked to name a Makefile target, never run (the
//     test builds bin/piopt itself).
//   - The blocks are then run in order, README.md first and then docs/*.md
//     by name, as a reader following the README and then the docs would, in
//     one temporary repo root whose bin/piopt is built from this tree and
//     whose ../shared/data/MQ2008 and MSLR-WEB10K are tiny stand-ins
//     (readmeFixtures), with the sizes of readmeCaps; each must exit 0 and
//     write the files its --out, --json, --html and --policy-out name. A
//     doc's block may use the files an earlier doc's blocks wrote (e.g.
//     docs/results.md's dr example, the README's log.tsv).
//   - A block after a line `<!-- readme-test: skip (why) -->` is only
//     checked, not run.
//   - Every ```go block is a program: it must build and vet as written, and
//     it runs in the same folder after the shell blocks.
//   - Every link to a file of the repository resolves, and a link's
//     #anchor names a heading of the .md file it points to.

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/urfave/cli/v2"
)

// repoRoot is the repository's root, seen from this package's folder.
const repoRoot = "../.."

// docPaths returns the docs whose commands and links are tested, relative
// to the repository's root: README.md, then docs/*.md by name.
func docPaths(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"README.md"}
	for _, d := range docs {
		rel, err := filepath.Rel(repoRoot, d)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.ToSlash(rel))
	}
	// The README links to these; finding fewer means the glob is wrong.
	if len(paths) < 5 {
		t.Fatalf("found only %v: README.md and docs/*.md expected", paths)
	}
	return paths
}

// readmeSkip marks the next block as checked only, not run.
const readmeSkip = "<!-- readme-test: skip"

// readmeCaps bounds the sizes the README's commands ask for, so that the
// paper-scale examples run in seconds on the tiny fixtures: a flag's value
// above its cap is replaced by the cap.
var readmeCaps = map[string]int{
	"samples":      3000,
	"queries":      50,
	"runs":         2,
	"trees":        10,
	"dm-max-train": 500,
}

// readmeAdd adds flags to the commands that train or simulate with default
// sizes (300 rounds, 10^7 impressions), each one the doc's line does not set.
var readmeAdd = map[string][]string{
	"experiment": {"--trees 10", "--samples 3000"},
	"train":      {"--trees 10"},
}

// readmeCommand is one logical shell command of a doc's block.
type readmeCommand struct {
	line int // 1-based line of the doc where it starts
	text string
}

// readmeBlock is one fenced code block of a doc.
type readmeBlock struct {
	doc      string // the doc's path from the repository's root
	line     int    // line of the opening fence
	lang     string // the fence's info string
	skip     bool   // preceded by readmeSkip
	body     string
	commands []readmeCommand
}

// parseReadme returns the fenced blocks of the doc at path (from the
// repository's root) in order.
func parseReadme(t *testing.T, path string) []readmeBlock {
	t.Helper()
	text := string(mustRead(t, filepath.Join(repoRoot, path)))
	var blocks []readmeBlock
	var cur *readmeBlock
	var pending *readmeCommand
	skipNext := false
	for i, ln := range strings.Split(text, "\n") {
		n := i + 1
		trim := strings.TrimSpace(ln)
		switch {
		case cur == nil && strings.HasPrefix(trim, "```"):
			cur = &readmeBlock{doc: path, line: n, lang: strings.TrimPrefix(trim, "```"), skip: skipNext}
			skipNext = false
		case cur == nil:
			if trim != "" {
				skipNext = strings.HasPrefix(trim, readmeSkip)
			}
		case strings.HasPrefix(trim, "```"):
			blocks = append(blocks, *cur)
			cur, pending = nil, nil
		default:
			cur.body += ln + "\n"
			if cur.lang != "sh" && cur.lang != "bash" {
				continue
			}
			if pending == nil {
				if trim == "" || strings.HasPrefix(trim, "#") {
					continue
				}
				cur.commands = append(cur.commands, readmeCommand{line: n})
				pending = &cur.commands[len(cur.commands)-1]
			}
			body, cont := strings.CutSuffix(trim, "\\")
			pending.text += body + " "
			if !cont {
				pending.text = strings.TrimSpace(pending.text)
				pending = nil
			}
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: code block not closed", path, cur.line)
	}
	return blocks
}

// shellWords splits a command as sh would for the checks here: on blanks,
// with '…' and "…" quoting, up to a # that starts a word (a comment).
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case r == '#' && !inWord:
			return words
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// readmeFlag is one --flag of a command line and its value, if the flag
// takes one.
type readmeFlag struct {
	name, value string
	hasValue    bool
}

// checkPiopt checks a bin/piopt command line against the CLI: the command
// (and subcommand) exists and every flag is one of its names or aliases.
// It returns the flags with their values.
func checkPiopt(app *cli.App, words []string) ([]readmeFlag, error) {
	if len(words) < 2 || strings.HasPrefix(words[1], "-") {
		for _, w := range words[1:] {
			if w != "--version" && w != "-v" && w != "--help" && w != "-h" {
				return nil, fmt.Errorf("piopt %s: not a command", w)
			}
		}
		return nil, nil
	}
	cmd := app.Command(words[1])
	if cmd == nil {
		return nil, fmt.Errorf("piopt %s: no such command", words[1])
	}
	name, rest := "piopt "+words[1], words[2:]
	if len(cmd.Subcommands) > 0 && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		sub := cmd.Command(rest[0])
		if sub == nil {
			return nil, fmt.Errorf("%s %s: no such command", name, rest[0])
		}
		cmd, name, rest = sub, name+" "+rest[0], rest[1:]
	}
	byName := map[string]cli.Flag{"help": cli.HelpFlag, "h": cli.HelpFlag}
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			byName[n] = f
		}
	}
	var flags []readmeFlag
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		if !strings.HasPrefix(w, "-") || w == "-" {
			continue
		}
		n, v, eq := strings.Cut(strings.TrimLeft(w, "-"), "=")
		f, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("%s: unknown flag %s", name, w)
		}
		rf := readmeFlag{name: n, value: v, hasValue: eq}
		if _, isBool := f.(*cli.BoolFlag); !isBool && !eq && f != cli.HelpFlag && i+1 < len(rest) {
			i++
			rf.value, rf.hasValue = rest[i], true
		}
		flags = append(flags, rf)
	}
	return flags, nil
}

// makeTargets returns the targets the Makefile defines.
func makeTargets(t *testing.T) map[string]bool {
	t.Helper()
	targets := map[string]bool{}
	re := regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]*):`)
	sc := bufio.NewScanner(bytes.NewReader(mustRead(t, filepath.Join(repoRoot, "Makefile"))))
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			targets[m[1]] = true
		}
	}
	return targets
}

// checkReadmeCommand checks one command line; it returns the files the
// command should write (its output flags' values), or an error saying why
// the line does not run as written.
func checkReadmeCommand(app *cli.App, targets map[string]bool, words []string) ([]string, error) {
	if len(words) == 0 {
		return nil, nil
	}
	switch words[0] {
	case "piopt":
		return nil, fmt.Errorf("calls piopt, which is not on PATH after make build: write bin/piopt")
	case "make":
		for _, w := range words[1:] {
			if !strings.Contains(w, "=") && !targets[w] {
				return nil, fmt.Errorf("make %s: no such target in the Makefile", w)
			}
		}
		return nil, nil
	case "bin/piopt", "./bin/piopt":
	default:
		return nil, nil
	}
	flags, err := checkPiopt(app, words)
	if err != nil {
		return nil, err
	}
	var outs []string
	for _, f := range flags {
		switch f.name {
		case "out", "json", "html", "policy-out":
			if f.hasValue && !strings.Contains(f.value, "$") && f.value != "/dev/null" {
				outs = append(outs, f.value)
			}
		}
	}
	return outs, nil
}

// TestReadmeCommandsCheck checks every command of the shell blocks of
// README.md and docs/*.md, run or not, against the CLI and the Makefile.
func TestReadmeCommandsCheck(t *testing.T) {
	app, targets := newApp(), makeTargets(t)
	for _, doc := range docPaths(t) {
		n := 0
		for _, b := range parseReadme(t, doc) {
			for _, c := range b.commands {
				if _, err := checkReadmeCommand(app, targets, shellWords(c.text)); err != nil {
					t.Errorf("%s:%d: %v\n\t%s", doc, c.line, err, c.text)
				}
				n++
			}
		}
		// The README has shell commands in a dozen places; finding none
		// means the parser, not the README, is broken.
		if doc == "README.md" && n < 10 {
			t.Fatalf("found only %d commands in README.md's ```sh blocks", n)
		}
	}
}

func TestReadmeCommandsCheckCatches(t *testing.T) {
	app := newApp()
	targets := map[string]bool{"build": true}
	for _, tc := range []struct {
		line, err string
		outs      []string
	}{
		{"bin/piopt stats --json --all-grades a.txt", "", nil},
		{"bin/piopt synth --out folds --queries 200", "", []string{"folds"}},
		{"bin/piopt cache dir", "", nil},
		{"bin/piopt evaluate --data t --json=e.json # comment --bogus", "", []string{"e.json"}},
		{"make build", "", nil},
		{"cat a > b", "", nil},
		{"bin/piopt --version", "", nil},
		{"piopt synth --out folds", "not on PATH", nil},
		{"bin/piopt synth --out folds --querys 200", "piopt synth: unknown flag --querys", nil},
		{"bin/piopt cache purge", "piopt cache purge: no such command", nil},
		{"bin/piopt synthesize --out x", "piopt synthesize: no such command", nil},
		{"make demos", "make demos: no such target", nil},
	} {
		outs, err := checkReadmeCommand(app, targets, shellWords(tc.line))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v", tc.line, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want one containing %q", tc.line, err, tc.err)
		case fmt.Sprint(outs) != fmt.Sprint(tc.outs):
			t.Errorf("%q: outputs %q, want %q", tc.line, outs, tc.outs)
		}
	}
}

// capSizes applies readmeCaps and readmeAdd to a command line.
func capSizes(cmd string) string {
	if w := shellWords(cmd); len(w) > 1 && strings.HasSuffix(w[0], "bin/piopt") {
		head := w[0] + " " + w[1]
		var add []string
		for _, a := range readmeAdd[w[1]] {
			name := strings.Fields(a)[0]
			if !strings.Contains(cmd, name+" ") && !strings.Contains(cmd, name+"=") {
				add = append(add, a)
			}
		}
		if len(add) > 0 {
			cmd = head + " " + strings.Join(add, " ") + strings.TrimPrefix(cmd, head)
		}
	}
	re := regexp.MustCompile(`--([a-z-]+)([ =])([0-9]+)\b`)
	return re.ReplaceAllStringFunc(cmd, func(m string) string {
		s := re.FindStringSubmatch(m)
		v, err := strconv.Atoi(s[3])
		if c, ok := readmeCaps[s[1]]; ok && err == nil && v > c {
			return "--" + s[1] + s[2] + strconv.Itoa(c)
		}
		return m
	})
}

func TestCapSizes(t *testing.T) {
	for in, want := range map[string]string{
		"bin/piopt simulate --samples 10000000 --seed 1":  "bin/piopt simulate --samples 3000 --seed 1",
		"bin/piopt synth --queries=10000 --out f":         "bin/piopt synth --queries=50 --out f",
		"bin/piopt synth --queries 20":                    "bin/piopt synth --queries 20",
		"bin/piopt evaluate-sweep --runs 10 --slots 5":    "bin/piopt evaluate-sweep --runs 2 --slots 5",
		"bin/piopt experiment --folds f --out r":          "bin/piopt experiment --trees 10 --samples 3000 --folds f --out r",
		"bin/piopt experiment --samples 10000000 --out r": "bin/piopt experiment --trees 10 --samples 3000 --out r",
		"bin/piopt train --sup --trees 50 --out m":        "bin/piopt train --sup --trees 10 --out m",
		"bin/piopt train --sup --trees 5 --out m":         "bin/piopt train --sup --trees 5 --out m",
	} {
		if got := capSizes(in); got != want {
			t.Errorf("capSizes(%q) = %q, want %q", in, got, want)
		}
	}
}

// writeMQ2008Fixture writes a tiny LETOR 4.0 stand-in for
// ../shared/data/MQ2008 under dir: partitions S1..S5 of 8 queries with 6 to
// 24 documents, 46 features, grades 0..2 and `#docid = ` comments, and the
// five folds made of them as LETOR makes them.
func writeMQ2008Fixture(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2008, 4))
	parts := make([]string, 5)
	for p := range parts {
		var b strings.Builder
		for q := range 8 {
			for d := range 6 + rng.IntN(19) {
				fmt.Fprintf(&b, "%d qid:%d", rng.IntN(3), 10000+100*p+q)
				for f := 1; f <= 46; f++ {
					fmt.Fprintf(&b, " %d:%.3f", f, rng.Float64())
				}
				fmt.Fprintf(&b, " #docid = GX%03d-%02d-%d\n", p, q, d)
			}
		}
		parts[p] = b.String()
		writeText(t, dir, fmt.Sprintf("S%d.txt", p+1), parts[p])
	}
	for k := range 5 {
		fold := filepath.Join(dir, fmt.Sprintf("Fold%d", k+1))
		if err := os.MkdirAll(fold, 0o755); err != nil {
			t.Fatal(err)
		}
		writeText(t, fold, "train.txt", parts[k]+parts[(k+1)%5]+parts[(k+2)%5])
		writeText(t, fold, "vali.txt", parts[(k+3)%5])
		writeText(t, fold, "test.txt", parts[(k+4)%5])
	}
}

// buildPiopt builds this tree's piopt into dir/bin/piopt.
func buildPiopt(t *testing.T, dir string) {
	t.Helper()
	out, err := exec.Command(goTool(), "build", "-o", filepath.Join(dir, "bin", "piopt"), ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
}

// goTool returns the go command: go test puts its own GOROOT/bin first on
// the PATH of the test.
func goTool() string { return "go" }

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// readmeFixtures makes root a repo root as the docs' commands expect
// one after `make build`: bin/piopt, a sibling ../shared/data/MQ2008 and an
// MSLR-WEB10K folder (both tiny), and a cache folder of its own.
func readmeFixtures(t *testing.T) (root string, env []string) {
	t.Helper()
	top := t.TempDir()
	root = filepath.Join(top, "piopt")
	buildPiopt(t, root)
	writeMQ2008Fixture(t, filepath.Join(top, "shared", "data", "MQ2008"))
	synth := exec.Command(filepath.Join(root, "bin", "piopt"), "synth", "--out", "MSLR-WEB10K", "--queries", "50")
	synth.Dir = root
	if out, err := synth.CombinedOutput(); err != nil {
		t.Fatalf("synth: %v\n%s", err, out)
	}
	// The library example uses the user cache folder: keep both caches in
	// the test's folder.
	env = append(os.Environ(), "PIOPT_CACHE="+filepath.Join(top, "cache"), "XDG_CACHE_HOME="+filepath.Join(top, "xdg"))
	return root, env
}

// runReadmeBlock runs a block's commands with sh -e in root; it reports a
// failure with the doc's line of the command that failed.
func runReadmeBlock(t *testing.T, root string, env []string, b readmeBlock) {
	t.Helper()
	mark := filepath.Join(t.TempDir(), "mark")
	var script strings.Builder
	script.WriteString("set -e\n")
	for _, c := range b.commands {
		fmt.Fprintf(&script, "echo %d > '%s'\n", c.line, mark)
		if strings.HasPrefix(c.text, "make ") {
			continue // checked by TestReadmeCommandsCheck; bin/piopt is built
		}
		script.WriteString(capSizes(c.text) + "\n")
	}
	sh := exec.Command("sh", "-c", script.String())
	sh.Dir, sh.Env = root, env
	start := time.Now()
	out, err := sh.CombinedOutput()
	t.Logf("%s:%d: %d commands in %.1fs", b.doc, b.line, len(b.commands), time.Since(start).Seconds())
	if err != nil {
		line, _ := os.ReadFile(mark)
		if len(out) > 3000 {
			out = out[len(out)-3000:]
		}
		t.Fatalf("%s:%s: %v\n%s", b.doc, strings.TrimSpace(string(line)), err, out)
	}
}

// TestReadmeCommandsRun runs the shell blocks of README.md and then of
// docs/*.md, in order, on tiny data, and then their Go programs (see the
// conventions at the top of this file).
func TestReadmeCommandsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds piopt and runs the docs' commands; skipped with -short")
	}
	root, env := readmeFixtures(t)
	app, targets := newApp(), makeTargets(t)
	var programs []readmeBlock
	for _, doc := range docPaths(t) {
		for _, b := range parseReadme(t, doc) {
			if b.lang == "go" {
				programs = append(programs, b)
			}
			if b.skip || len(b.commands) == 0 {
				continue
			}
			runReadmeBlock(t, root, env, b)
			for _, c := range b.commands {
				outs, _ := checkReadmeCommand(app, targets, shellWords(c.text))
				for _, o := range outs {
					if !fileExists(filepath.Join(root, o)) {
						t.Errorf("%s:%d: ran, but wrote no %s\n\t%s", doc, c.line, o, c.text)
					}
				}
			}
		}
	}
	for _, p := range programs {
		runReadmeExample(t, root, env, p)
	}
}

// runReadmeExample vets and builds a doc's Go program as a package of this
// module (in a dot folder, which ./... leaves out) and runs it in root.
func runReadmeExample(t *testing.T, root string, env []string, b readmeBlock) {
	t.Helper()
	dir, err := os.MkdirTemp(repoRoot, ".readme-example-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	writeText(t, dir, "main.go", b.body)
	bin := filepath.Join(t.TempDir(), "example")
	pkg := "./" + filepath.Base(dir)
	for _, args := range [][]string{{"vet", pkg}, {"build", "-o", bin, pkg}} {
		cmd := exec.Command(goTool(), args...)
		cmd.Dir = repoRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s:%d: go %s: %v\n%s", b.doc, b.line, args[0], err, out)
		}
	}
	run := exec.Command(bin)
	run.Dir, run.Env = root, env
	out, err := run.CombinedOutput()
	if err != nil || len(out) == 0 {
		t.Fatalf("%s:%d: the go block ran in %s: %v\n%s", b.doc, b.line, root, err, out)
	}
	t.Logf("%s:%d: go block:\n%s", b.doc, b.line, out)
}

// headingAnchor returns the anchor GitHub gives a heading's text: lower
// case, punctuation other than - and _ dropped, blanks made hyphens.
func headingAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestHeadingAnchor(t *testing.T) {
	for in, want := range map[string]string{
		"Set-up: two commands":                         "set-up-two-commands",
		"The paper's protocol: `piopt evaluate-sweep`": "the-papers-protocol-piopt-evaluate-sweep",
		"How Γ is computed for each policy":            "how-γ-is-computed-for-each-policy",
		"Beyond the paper: `pi-cv`, `dr` and `wdr`":    "beyond-the-paper-pi-cv-dr-and-wdr",
	} {
		if got := headingAnchor(in); got != want {
			t.Errorf("headingAnchor(%q) = %q, want %q", in, got, want)
		}
	}
}

// docAnchors returns the anchors of a Markdown file's headings, outside
// code blocks.
func docAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	inCode := false
	for _, ln := range strings.Split(text, "\n") {
		trim := strings.TrimSpace(ln)
		if strings.HasPrefix(trim, "```") {
			inCode = !inCode
		}
		if !inCode && strings.HasPrefix(ln, "#") {
			anchors[headingAnchor(strings.TrimLeft(ln, "#"))] = true
		}
	}
	return anchors
}

// TestReadmeLinks: every link or image of README.md and docs/*.md to a file
// of the repository (not a URL) names a file that exists, e.g. the grid's
// aggregate charts, and a link's #anchor, to the same doc or to another
// .md file, names one of its headings.
func TestReadmeLinks(t *testing.T) {
	re := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	n := 0
	for _, doc := range docPaths(t) {
		b := mustRead(t, filepath.Join(repoRoot, doc))
		for _, m := range re.FindAllSubmatchIndex(b, -1) {
			target := string(b[m[2]:m[3]])
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			where := fmt.Sprintf("%s:%d", doc, 1+bytes.Count(b[:m[0]], []byte("\n")))
			file, anchor, _ := strings.Cut(target, "#")
			path := filepath.Join(repoRoot, doc)
			if file != "" {
				n++
				path = filepath.Join(repoRoot, filepath.Dir(doc), file)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: link to %s: %v", where, file, err)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(path, ".md") {
				continue
			}
			if !docAnchors(string(mustRead(t, path)))[anchor] {
				t.Errorf("%s: link to %s: no heading with anchor #%s", where, target, anchor)
			}
		}
	}
	if n == 0 {
		t.Error("the docs link to no file of the repository: the chart of the grid is gone, or the parser is broken")
	}
}
