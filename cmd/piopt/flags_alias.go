package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"
)

// rename is a flag given a new name; the old one still works, hidden from
// --help, for one release.
type rename struct{ old, new string }

// renamedFlags lists, per command, the flags renamed so that one concept
// has one name across commands.
func renamedFlags() map[string][]rename {
	return map[string][]rename{
		"impute": {{"simulate", "samples"}}, // the number of impressions, --samples everywhere
		"rank":   {{"metric", "metrics"}},   // a list of metrics to report, as experiment's
	}
}

// addRenamed gives cmd a hidden flag under each old name of its renamed
// flags, of the new flag's type, and returns the renames for keepRenamed.
func addRenamed(cmd *cli.Command) []rename {
	rs := renamedFlags()[cmd.Name]
	for _, r := range rs {
		for _, f := range cmd.Flags {
			if f.Names()[0] != r.new {
				continue
			}
			usage := "old name of --" + r.new
			switch f.(type) {
			case *cli.Int64Flag:
				cmd.Flags = append(cmd.Flags, &cli.Int64Flag{Name: r.old, Hidden: true, Usage: usage})
			case *cli.IntFlag:
				cmd.Flags = append(cmd.Flags, &cli.IntFlag{Name: r.old, Hidden: true, Usage: usage})
			case *cli.StringFlag:
				cmd.Flags = append(cmd.Flags, &cli.StringFlag{Name: r.old, Hidden: true, Usage: usage})
			default:
				panic(fmt.Sprintf("rename --%s: flag type %T has no hidden copy", r.new, f))
			}
		}
	}
	return rs
}

// keepRenamed moves a value given under an old name to the new one,
// saying so once on stderr; both names at once is an error.
func keepRenamed(c *cli.Context, rs []rename) error {
	for _, r := range rs {
		if !c.IsSet(r.old) {
			continue
		}
		if c.IsSet(r.new) {
			return fmt.Errorf("--%s and --%s: --%s is the old name of --%s; give one", r.old, r.new, r.old, r.new)
		}
		if err := c.Set(r.new, fmt.Sprint(c.Value(r.old))); err != nil {
			return fmt.Errorf("--%s: %w", r.old, err)
		}
		w := c.App.ErrWriter
		if w == nil {
			w = os.Stderr
		}
		fmt.Fprintf(w, "piopt: --%s is now --%s; the old name goes in the next release\n", r.old, r.new)
	}
	return nil
}
