package main

import (
	"errors"
	"flag"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// checkArgs reads piopt's command line (args, without the program name)
// before urfave/cli parses it, and refuses the first flag that Go's flag
// package would refuse: unknown (with a suggestion), lacking its value, or
// with a value its type does not take. It names the flag as users type it
// ("--slots"): the flag package's errors name it "-slots" in a sentence of
// their own and carry nothing else, so piopt finds the flag itself rather
// than parse the library's words. It leaves every other case (an unknown
// command, "---x", shell completion) to urfave/cli.
func checkArgs(app *cli.App, args []string) error {
	app.Setup() // adds --help, --version and the help command, once
	if app.EnableBashCompletion && len(args) > 0 && args[len(args)-1] == "--generate-bash-completion" {
		return nil
	}
	rest, err := checkFlags(args, app.Flags)
	if err != nil {
		return err
	}
	cmds, path := app.Commands, ""
	for len(rest) > 0 {
		var cmd *cli.Command
		for _, c := range cmds {
			if c.HasName(rest[0]) {
				cmd = c
			}
		}
		if cmd == nil {
			return nil
		}
		path = strings.TrimSpace(path + " " + cmd.Name)
		if rest, err = checkFlags(rest[1:], cmd.Flags); err != nil {
			var ue *usageError
			if errors.As(err, &ue) {
				ue.cmd = path
			}
			return err
		}
		cmds = cmd.Subcommands
	}
	return nil
}

// checkFlags checks the flags that begin args, as Go's flag package parses
// them (it stops at the first argument that is not a flag, and after "--"),
// against flags, and returns the arguments after them. Each value is set,
// to see whether it is taken, on a flag set of its own that urfave/cli's
// flags apply themselves to, as they do for its parse.
func checkFlags(args []string, flags []cli.Flag) ([]string, error) {
	set := flag.NewFlagSet("", flag.ContinueOnError)
	set.SetOutput(io.Discard)
	byName := map[string]cli.Flag{}
	for _, f := range flags {
		if err := f.Apply(set); err != nil {
			return nil, nil // an environment variable urfave/cli refuses in its words
		}
		for _, n := range f.Names() {
			byName[n] = f
		}
	}
	seen := map[cli.Flag]string{} // the value each flag was first given
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && args[0] != "--" {
		name, value, hasValue := strings.Cut(strings.TrimPrefix(args[0][1:], "-"), "=")
		args = args[1:]
		if name == "" || name[0] == '-' || name[0] == '=' {
			return nil, nil // "bad flag syntax"
		}
		fl := set.Lookup(name)
		switch {
		case fl == nil && (name == "help" || name == "h"):
			return nil, nil // urfave/cli's help
		case fl == nil:
			ue := &usageError{msg: "unknown flag --" + name}
			if s := suggestFlag(name, slices.Concat(flags, []cli.Flag{cli.HelpFlag})); s != "" {
				ue.hint = "did you mean --" + s + "?"
			}
			return nil, ue
		}
		bf, ok := fl.Value.(interface{ IsBoolFlag() bool })
		isBool := ok && bf.IsBoolFlag() // --x alone is --x=true
		switch {
		case isBool && !hasValue:
			value = "true"
		case !hasValue && len(args) == 0:
			return nil, &usageError{msg: "--" + name + " needs a value"}
		case !hasValue:
			value, args = args[0], args[1:]
		}
		if err := fl.Value.Set(value); err != nil {
			return nil, &usageError{msg: "invalid value " + strconv.Quote(value) + " for --" + name + ": " + valueReason(byName[name], value, err)}
		}
		if err := checkRepeat(seen, byName[name], name, value); err != nil {
			return nil, err
		}
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	return args, nil
}

// checkRepeat refuses a flag given a second time: Go's flag package keeps
// the last value without a word, so `--seed 1 ... --seed 2` would run with
// a seed the user may not have meant. The list flags of urfave/cli
// (StringSlice, Int64Slice) are meant to repeat, each use adding to the
// list, and may. seen holds the value each flag was first given.
func checkRepeat(seen map[cli.Flag]string, f cli.Flag, name, value string) error {
	switch f.(type) {
	case *cli.StringSliceFlag, *cli.Int64SliceFlag, *cli.IntSliceFlag, *cli.Float64SliceFlag:
		return nil
	}
	first, dup := seen[f]
	if !dup {
		seen[f] = value
		return nil
	}
	return &usageError{msg: "--" + name + " given twice (" + strconv.Quote(first) + " and " + strconv.Quote(value) + "): give it once"}
}

// valueReason says why f refuses value: what f takes, for the numeric,
// boolean and duration flags, whose errors from the flag package say only
// "parse error"; the error itself for a number out of the type's range or
// another kind of flag.
func valueReason(f cli.Flag, value string, err error) string {
	var want string
	var parsed error
	switch f.(type) {
	case *cli.IntFlag, *cli.Int64Flag:
		want = "an integer"
		_, parsed = strconv.ParseInt(value, 0, 64)
	case *cli.UintFlag, *cli.Uint64Flag:
		want = "an integer ≥ 0"
		_, parsed = strconv.ParseUint(value, 0, 64)
	case *cli.Float64Flag:
		want = "a number"
		_, parsed = strconv.ParseFloat(value, 64)
	case *cli.BoolFlag:
		want = "true or false"
	case *cli.DurationFlag:
		want = "a duration such as 90s or 1h30m"
	}
	if want == "" || errors.Is(parsed, strconv.ErrRange) {
		return err.Error()
	}
	return "want " + want
}
