package main

import (
	"errors"

	"github.com/urfave/cli/v2"
)

// TODO(owner of this command): replace this placeholder.
func imputeCommand() *cli.Command {
	return &cli.Command{
		Name:   "impute",
		Usage:  "(not implemented yet)",
		Action: func(*cli.Context) error { return errors.New("impute: not implemented yet") },
	}
}
