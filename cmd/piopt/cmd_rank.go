package main

import (
	"errors"

	"github.com/urfave/cli/v2"
)

// TODO(owner of this command): replace this placeholder.
func rankCommand() *cli.Command {
	return &cli.Command{
		Name:   "rank",
		Usage:  "(not implemented yet)",
		Action: func(*cli.Context) error { return errors.New("rank: not implemented yet") },
	}
}
