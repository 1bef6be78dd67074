package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
	"github.com/xrash/smetrics"
)

// minSimilarity is the Jaro-Winkler similarity from which a suggestion is
// made: "slot" and "slots" score 0.96, "Slots" 0.87, "bogus" and "logs"
// 0.78, "frobnicate" and "candidates" 0.67.
const minSimilarity = 0.85

// similar reports whether urfave/cli's suggestion s for typed is close
// enough to make: urfave/cli always suggests the nearest name, however
// far, so piopt scores the pair with the same measure (Jaro-Winkler with
// urfave/cli's parameters) and drops a far one.
func similar(typed, s string) bool {
	return s != "" && smetrics.JaroWinkler(s, typed, 0.7, 4) >= minSimilarity
}

// suggestFlag returns the visible flag urfave/cli suggests for the unknown
// name typed (cli.SuggestFlag), "" when none is close.
func suggestFlag(typed string, flags []cli.Flag) string {
	if cli.SuggestFlag == nil { // built with urfave_cli_no_suggest
		return ""
	}
	var visible []cli.Flag
	for _, f := range flags {
		if vf, ok := f.(cli.VisibleFlag); !ok || vf.IsVisible() {
			visible = append(visible, f)
		}
	}
	s := strings.TrimLeft(cli.SuggestFlag(visible, typed, true), "-")
	if !similar(typed, s) {
		return ""
	}
	return s
}

// suggestCommand returns the visible command urfave/cli suggests for the
// unknown name typed (cli.SuggestCommand), "" when none is close.
func suggestCommand(typed string, cmds []*cli.Command) string {
	if cli.SuggestCommand == nil {
		return ""
	}
	// cli.SuggestCommand answers with a sentence, made and so read back
	// with cli.SuggestDidYouMeanTemplate.
	var s string
	if _, err := fmt.Sscanf(cli.SuggestCommand(cmds, typed), cli.SuggestDidYouMeanTemplate, &s); err != nil || !similar(typed, s) {
		return ""
	}
	return s
}

// rootAction runs for piopt without a command, or with an unknown one,
// which urfave/cli would answer with "No help topic for 'simlate'" and its
// help on stdout.
func rootAction(c *cli.Context) error {
	if !c.Args().Present() {
		return cli.ShowAppHelp(c)
	}
	ue := &usageError{msg: "unknown command " + c.Args().First()}
	if s := suggestCommand(c.Args().First(), c.App.VisibleCommands()); s != "" {
		ue.hint = "did you mean piopt " + s + "?"
	}
	return ue
}
