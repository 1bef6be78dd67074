package main

import (
	"errors"

	"github.com/urfave/cli/v2"
)

// TODO(owner of this command): replace this placeholder.
func statsCommand() *cli.Command {
	return &cli.Command{
		Name:   "stats",
		Usage:  "(not implemented yet)",
		Action: func(*cli.Context) error { return errors.New("stats: not implemented yet") },
	}
}
