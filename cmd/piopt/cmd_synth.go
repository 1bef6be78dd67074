package main

import (
	"errors"

	"github.com/urfave/cli/v2"
)

// TODO(owner of this command): replace this placeholder.
func synthCommand() *cli.Command {
	return &cli.Command{
		Name:   "synth",
		Usage:  "(not implemented yet)",
		Action: func(*cli.Context) error { return errors.New("synth: not implemented yet") },
	}
}
