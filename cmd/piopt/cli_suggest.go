package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// suggestFlag returns the visible flag closest to the unknown name typed
// (see closest), "" when none is close.
func suggestFlag(typed string, flags []cli.Flag) string {
	var names [][]string
	for _, f := range flags {
		if vf, ok := f.(cli.VisibleFlag); !ok || vf.IsVisible() {
			names = append(names, f.Names())
		}
	}
	return closest(typed, names)
}

// rootAction runs for piopt without a command, or with an unknown one,
// which urfave/cli would answer with "No help topic for 'simlate'".
func rootAction(c *cli.Context) error {
	if !c.Args().Present() {
		return cli.ShowAppHelp(c)
	}
	var names [][]string
	for _, cmd := range c.App.VisibleCommands() {
		names = append(names, cmd.Names())
	}
	ue := &usageError{msg: "unknown command " + c.Args().First()}
	if s := closest(c.Args().First(), names); s != "" {
		ue.hint = "did you mean piopt " + s + "?"
	}
	return ue
}

// closest returns the first name of the candidate (a list of names) with a
// name closest to typed: within an edit distance of a third of its length
// (at least 1, and less than the length itself, so that "-x" suggests no
// "-h"), else the one candidate typed is a prefix of, if 3 characters or
// more; "" when none is close.
func closest(typed string, candidates [][]string) string {
	best, bestD, prefixed := "", max(1, len(typed)/3)+1, []string{}
	for _, names := range candidates {
		isPrefix := false
		for _, n := range names {
			if d := editDistance(typed, n); d < bestD && d < len(typed) {
				best, bestD = names[0], d
			}
			isPrefix = isPrefix || len(typed) >= 3 && strings.HasPrefix(n, typed)
		}
		if isPrefix {
			prefixed = append(prefixed, names[0])
		}
	}
	if best == "" && len(prefixed) == 1 {
		best = prefixed[0]
	}
	return best
}

// editDistance is the optimal-string-alignment distance between a and b:
// insertions, deletions, substitutions and swaps of neighbours cost 1 each,
// so "smaples" is 1 from "samples".
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
