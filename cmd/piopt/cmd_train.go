package main

import (
	"errors"

	"github.com/urfave/cli/v2"
)

// TODO(owner of this command): replace this placeholder.
func trainCommand() *cli.Command {
	return &cli.Command{
		Name:   "train",
		Usage:  "(not implemented yet)",
		Action: func(*cli.Context) error { return errors.New("train: not implemented yet") },
	}
}
