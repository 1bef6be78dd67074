package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestGridListFlagsHelp checks that evaluate-grid's list flags show their
// defaults as the comma-separated value rank and experiment show, and that
// the value typed that way parses to the same list as the default.
func TestGridListFlagsHelp(t *testing.T) {
	tests := []struct{ flag, shown string }{
		{"--metrics", `(default: "ndcg,err")`},
		{"--spaces", `(default: "10x5,100x10")`},
		{"--logging-models", `(default: "lasso:url-side,tree:url-side")`},
		{"--targets", `(default: "tree:body-side,lasso:body-side")`},
		{"--aggregate-at", `(default: 60000,600000)`},
	}
	out, err := runCapture(t, "evaluate-grid", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		var line string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), tt.flag+" ") {
				line = l
			}
		}
		if !strings.HasSuffix(line, tt.shown) {
			t.Errorf("%s help line %q does not end with %s", tt.flag, line, tt.shown)
		}
	}
}

// TestGridListFlagsComma checks that a list typed as the help shows it,
// comma-separated in one value, reads as the default's separate values.
func TestGridListFlagsComma(t *testing.T) {
	tests := []struct {
		flag, typed string
		want        []string
	}{
		{"metrics", "ndcg,err", []string{"ndcg", "err"}},
		{"metrics", "err", []string{"err"}},
		{"spaces", "10x5,100x10", []string{"10x5", "100x10"}},
		{"targets", "tree:body-side,lasso:body-side", []string{"tree:body-side", "lasso:body-side"}},
	}
	for _, tt := range tests {
		cmd := evaluateGridCommand()
		var got []string
		cmd.Before = nil
		cmd.Action = func(c *cli.Context) error { got = c.StringSlice(tt.flag); return nil }
		app := &cli.App{Commands: []*cli.Command{cmd}}
		args := []string{"piopt", "evaluate-grid", "--data", "d", "--out", "o", "--" + tt.flag, tt.typed}
		if err := app.RunContext(context.Background(), args); err != nil {
			t.Fatalf("--%s %s: %v", tt.flag, tt.typed, err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("--%s %s read %q, want %q", tt.flag, tt.typed, got, tt.want)
		}
	}
}
