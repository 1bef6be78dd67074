package main

import (
	"errors"

	"github.com/urfave/cli/v2"
)

// TODO(owner of this command): replace this placeholder.
func evaluateCommand() *cli.Command {
	return &cli.Command{
		Name:   "evaluate",
		Usage:  "(not implemented yet)",
		Action: func(*cli.Context) error { return errors.New("evaluate: not implemented yet") },
	}
}
