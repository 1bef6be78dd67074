package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestUsageErrors runs piopt's main in a child process, as a user does: a
// refused command line exits 1 with one line on stderr that names the
// flags with two dashes and points to --help, and nothing on stdout (no
// help text).
func TestUsageErrors(t *testing.T) {
	if args := os.Getenv("PIOPT_USAGE_MAIN"); args != "" {
		os.Args = append([]string{"piopt"}, strings.Split(args, "\x1f")...)
		main()
		os.Exit(0)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"synth"}, "piopt synth: missing required flag --out (see piopt synth --help)"},
		{[]string{"simulate", "--data", "x.txt", "--slots", "3"},
			"piopt simulate: missing required flags --logging, --samples, --out (see piopt simulate --help)"},
		{[]string{"predict", "--model", "m"}, "piopt predict: missing required flags --data, --out (see piopt predict --help)"},
		// An unknown flag is refused before the missing required ones.
		{[]string{"simulate", "--slot", "3"}, "piopt simulate: unknown flag --slot (did you mean --slots?)"},
		{[]string{"simulate", "-smaples", "5"}, "piopt simulate: unknown flag --smaples (did you mean --samples?)"},
		{[]string{"simulate", "--frobnicate"}, "piopt simulate: unknown flag --frobnicate (see piopt simulate --help)"},
		{[]string{"simulate", "--slots", "x"}, `piopt simulate: invalid value "x" for --slots: want an integer (see piopt simulate --help)`},
		{[]string{"simulate", "--seed=-1"}, `piopt simulate: invalid value "-1" for --seed: want an integer ≥ 0 (see piopt simulate --help)`},
		{[]string{"stats", "--json=maybe"}, `piopt stats: invalid value "maybe" for --json: want true or false (see piopt stats --help)`},
		{[]string{"rank", "--slate"}, "piopt rank: --slate needs a value (see piopt rank --help)"},
		{[]string{"--slot"}, "piopt: unknown flag --slot (see piopt --help)"},
		{[]string{"simlate"}, "piopt: unknown command simlate (did you mean piopt simulate?)"},
		{[]string{"frobnicate"}, "piopt: unknown command frobnicate (see piopt --help)"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestUsageErrors$")
		// GOMP_SPINCOUNT set: main does not re-execute itself (LimitOpenMPSpin).
		cmd.Env = append(os.Environ(), "GOMP_SPINCOUNT=10000", "PIOPT_USAGE_MAIN="+strings.Join(tc.args, "\x1f"))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Errorf("piopt %q: exit %v, want status 1; stderr %s", tc.args, err, stderr.String())
		}
		if stderr.String() != tc.want+"\n" || stdout.Len() != 0 {
			t.Errorf("piopt %q:\nstderr %q\nwant   %q\nstdout %q", tc.args, stderr.String(), tc.want+"\n", stdout.String())
		}
	}
}

func TestSuggestFlag(t *testing.T) {
	flags := simulateCommand().Flags
	flags = append(flags, cli.HelpFlag, &cli.IntFlag{Name: "secret-slots", Hidden: true})
	for _, tc := range []struct{ typed, want string }{
		{"slot", "slots"},
		{"Slots", "slots"},
		{"smaples", "samples"}, // a swap costs 1
		{"sed", "seed"},
		{"seeds", "seed"},
		{"candidate", "candidates"},
		{"candidates-b", "candidates-by"},
		{"polic", "policy-out"}, // the one flag it begins
		{"cand", ""},            // begins two
		{"x", ""},               // 1 from -h, but a one-letter typo says nothing
		{"hlep", "help"},
		{"frobnicate", ""},
		{"secret-slot", ""}, // hidden flags are not suggested
		{"bogus", ""},       // 2 from logs: more than a third of its length
	} {
		if got := suggestFlag(tc.typed, flags); got != tc.want {
			t.Errorf("suggestFlag(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"slots", "slots", 0},
		{"slot", "slots", 1},
		{"smaples", "samples", 1},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3}, // optimal string alignment: no edit of a swapped pair
		{"≥x", "x≥", 1},  // runes, not bytes
	} {
		if got, rev := editDistance(tc.a, tc.b), editDistance(tc.b, tc.a); got != tc.want || rev != tc.want {
			t.Errorf("editDistance(%q, %q) = %d (reversed %d), want %d", tc.a, tc.b, got, rev, tc.want)
		}
	}
}

// TestOnUsageErrorRewrites covers the parse errors a command line cannot
// easily provoke (aliases, environment variables) with the texts Go's flag
// package and urfave/cli give.
func TestOnUsageErrorRewrites(t *testing.T) {
	c := cli.NewContext(&cli.App{}, nil, nil)
	c.Command = simulateCommand()
	for _, tc := range []struct{ in, want string }{
		{"Cannot use two forms of the same flag: metric metrics",
			"simulate: --metric and --metrics are one flag: give it once (see piopt simulate --help)"},
		{`could not parse "x" as int value from environment variable "PIOPT_SLOTS" for flag slots: parse error`,
			`simulate: could not parse "x" as int value from environment variable "PIOPT_SLOTS" for --slots: parse error (see piopt simulate --help)`},
		{"invalid boolean flag no-cache: parse error", "simulate: invalid value for --no-cache: want true or false (see piopt simulate --help)"},
		{`invalid value "1e3" for flag -samples: parse error`, `simulate: invalid value "1e3" for --samples: want an integer (see piopt simulate --help)`},
		{"bad flag syntax: ---slots", "simulate: bad flag syntax: ---slots (see piopt simulate --help)"},
	} {
		if got := onUsageError(c, errors.New(tc.in), true).Error(); got != tc.want {
			t.Errorf("%q:\ngot  %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
