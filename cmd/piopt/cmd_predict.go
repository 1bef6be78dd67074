package main

import (
	"errors"

	"github.com/urfave/cli/v2"
)

// TODO(owner of this command): replace this placeholder.
func predictCommand() *cli.Command {
	return &cli.Command{
		Name:   "predict",
		Usage:  "(not implemented yet)",
		Action: func(*cli.Context) error { return errors.New("predict: not implemented yet") },
	}
}
