package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// requiredMark is the default text newApp gives the flags it took
// Required off: urfave/cli answers a missing required flag by printing the
// whole help and then the error, and its help shows such a flag's zero
// value as its default; piopt checks them itself (checkRequired) and marks
// them in the help (flagString). The mark lives on the flag, not in a
// registry.
const requiredMark = "\x00required"

// cliFlagString is urfave/cli's own rendering, which flagString amends.
var cliFlagString = cli.FlagStringer

func init() { cli.FlagStringer = flagString }

// flagString renders a help line as urfave/cli does, with "(required)" in
// place of a required flag's default.
func flagString(f cli.Flag) string {
	s := cliFlagString(f)
	if df, ok := f.(cli.DocGenerationFlag); !ok || df.GetDefaultText() != requiredMark {
		return s
	}
	s = strings.Replace(s, " (default: "+requiredMark+")", "", 1)
	return s + " (required)"
}

// takeRequired clears Required on cmd's required flags, marks them with
// requiredMark and returns them, in cmd's order.
func takeRequired(cmd *cli.Command) []cli.Flag {
	var req []cli.Flag
	for _, f := range cmd.Flags {
		if rf, ok := f.(cli.RequiredFlag); !ok || !rf.IsRequired() {
			continue
		}
		switch f := f.(type) {
		case *cli.StringFlag:
			f.Required, f.DefaultText = false, requiredMark
		case *cli.IntFlag:
			f.Required, f.DefaultText = false, requiredMark
		case *cli.Int64Flag:
			f.Required, f.DefaultText = false, requiredMark
		case *cli.Uint64Flag:
			f.Required, f.DefaultText = false, requiredMark
		case *cli.Float64Flag:
			f.Required, f.DefaultText = false, requiredMark
		case *cli.StringSliceFlag:
			f.Required, f.DefaultText = false, requiredMark
		default:
			continue // left to urfave/cli, which still enforces it
		}
		req = append(req, f)
	}
	return req
}

// requiredOr names, for a required flag, the flag that may stand in for
// it: impute's --partial writes a shard's partial file instead of --out.
var requiredOr = map[string]string{"out": "partial"}

// checkRequired refuses a run that lacks any of req, naming every missing
// flag on one line.
func checkRequired(c *cli.Context, req []cli.Flag) error {
	var missing []string
	for _, f := range req {
		set := false
		for _, n := range f.Names() {
			set = set || c.IsSet(n) || (requiredOr[n] != "" && c.IsSet(requiredOr[n]))
		}
		if !set {
			missing = append(missing, "--"+f.Names()[0])
		}
	}
	if len(missing) == 0 {
		return nil
	}
	what := "flag"
	if len(missing) > 1 {
		what = "flags"
	}
	return &usageError{cmd: c.Command.Name, msg: fmt.Sprintf("missing required %s %s", what, strings.Join(missing, ", "))}
}

// usageError is a command line piopt refused before reading any input: it
// names the command, and main prints it as "piopt CMD: MSG (see ...)".
type usageError struct {
	cmd  string // "" for piopt's own flags
	msg  string
	hint string // "" for the pointer to the command's --help
}

func (e *usageError) Error() string {
	help, hint := "piopt --help", e.hint
	if e.cmd != "" {
		help = "piopt " + e.cmd + " --help"
	}
	if hint == "" {
		hint = "see " + help
	}
	if e.cmd == "" {
		return fmt.Sprintf("%s (%s)", e.msg, hint)
	}
	return fmt.Sprintf("%s: %s (%s)", e.cmd, e.msg, hint)
}

// errorLine is the line main prints for err on stderr.
func errorLine(err error) string {
	var ue *usageError
	if errors.As(err, &ue) && ue.cmd != "" {
		return "piopt " + err.Error()
	}
	return "piopt: " + err.Error()
}

// onUsageError replaces urfave/cli's "Incorrect Usage" and full help with
// one line that points to --help. checkArgs has already refused, in words
// of its own, the command lines the flag package refuses for a flag; what
// reaches here (a "bad flag syntax: ---slots") keeps the library's words.
func onUsageError(c *cli.Context, err error, isSubcommand bool) error {
	ue := &usageError{msg: err.Error()}
	if isSubcommand {
		ue.cmd = c.Command.Name
	}
	return ue
}
