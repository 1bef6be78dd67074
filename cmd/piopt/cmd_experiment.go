package main

import (
	"errors"

	"github.com/urfave/cli/v2"
)

// TODO(owner of this command): replace this placeholder.
func experimentCommand() *cli.Command {
	return &cli.Command{
		Name:   "experiment",
		Usage:  "(not implemented yet)",
		Action: func(*cli.Context) error { return errors.New("experiment: not implemented yet") },
	}
}
