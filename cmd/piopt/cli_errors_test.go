package main

import (
	"bytes"
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
		{"smaples", "samples"},
		{"sed", "seed"},
		{"seeds", "seed"},
		{"candidate", "candidates"},
		{"candidates-b", "candidates-by"},
		{"polic", "policy-out"},
		{"cand", "candidates"}, // begins two: urfave/cli takes the first
		{"x", ""},
		{"hlep", "help"},
		{"frobnicate", ""},  // urfave/cli alone would say --candidates
		{"secret-slot", ""}, // hidden flags are not suggested
		{"bogus", ""},       // urfave/cli alone would say --logs
	} {
		if got := suggestFlag(tc.typed, flags); got != tc.want {
			t.Errorf("suggestFlag(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
}

func TestSuggestCommand(t *testing.T) {
	cmds := commands()
	for _, tc := range []struct{ typed, want string }{
		{"simlate", "simulate"},
		{"evalute", "evaluate"},
		{"evaluate-grd", "evaluate-grid"},
		{"trian", "train"},
		{"hepl", "help"},
		{"frobnicate", ""}, // urfave/cli alone would say predict
		{"x", ""},
	} {
		if got := suggestCommand(tc.typed, cmds); got != tc.want {
			t.Errorf("suggestCommand(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
}

// TestCheckArgs covers what checkArgs refuses and what it leaves to
// urfave/cli (nil), subcommands and the flag package's syntax included.
func TestCheckArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // "" for nil
	}{
		{[]string{"simulate", "--samples=1e3"}, `simulate: invalid value "1e3" for --samples: want an integer (see piopt simulate --help)`},
		{[]string{"simulate", "--slots", "99999999999999999999"}, `simulate: invalid value "99999999999999999999" for --slots: value out of range (see piopt simulate --help)`},
		{[]string{"simulate", "-slots=-1", "--seed", "-1"}, `simulate: invalid value "-1" for --seed: want an integer ≥ 0 (see piopt simulate --help)`},
		{[]string{"stats", "--json", "--json=no"}, `stats: invalid value "no" for --json: want true or false (see piopt stats --help)`},
		{[]string{"train", "--learning-rate", "fast"}, `train: invalid value "fast" for --learning-rate: want a number (see piopt train --help)`},
		{[]string{"cache", "clean", "--bogus"}, "cache clean: unknown flag --bogus (see piopt cache clean --help)"},
		{[]string{"--verison"}, "unknown flag --verison (did you mean --version?)"},
		{[]string{"simulate", "---slots"}, ""}, // urfave/cli's "bad flag syntax"
		{[]string{"simulate", "--help", "--bogus"}, ""},
		{[]string{"simulate", "--", "--bogus"}, ""},
		{[]string{"stats", "file.txt", "--bogus"}, ""}, // after the first argument, no flags
		{[]string{"simulate", "--bogus", "--generate-bash-completion"}, ""},
		{[]string{"frobnicate", "--bogus"}, ""}, // rootAction's
		{[]string{"--help"}, ""},
		{[]string{"help", "simulate"}, ""},
	} {
		err := checkArgs(newApp(), tc.args)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("checkArgs(%q):\ngot  %q\nwant %q", tc.args, got, tc.want)
		}
	}
}
