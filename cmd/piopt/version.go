package main

import (
	"fmt"
	"runtime/debug"

	"github.com/piopt/piopt/internal/lab/experiment"
	"github.com/piopt/piopt/trainer"
	"github.com/urfave/cli/v2"
)

func init() {
	cli.VersionPrinter = func(c *cli.Context) {
		info, _ := debug.ReadBuildInfo()
		fmt.Fprint(c.App.Writer, versionText(info, trainer.XGBoostVersion()))
	}
}

// pioptVersion is the main module's version as the go command stamped it
// ("(devel)" when built inside its own repository without a tag).
func pioptVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}

// versionText is what piopt --version prints: piopt's version, the commit
// it was built from (and whether the tree had uncommitted changes), and the
// linked XGBoost's version, which together say which code made a result.
func versionText(info *debug.BuildInfo, xgb string) string {
	version, commit, modified := "(devel)", "", false
	if info != nil {
		var v string
		if v, commit, modified = experiment.BuildVCS(info); v != "" {
			version = v
		}
	}
	switch {
	case commit == "":
		commit = "unknown (built without VCS stamping: go build -buildvcs=true)"
	case modified:
		commit += " (modified: built with uncommitted changes)"
	}
	return fmt.Sprintf("piopt %s\ncommit %s\nXGBoost %s\n", version, commit, xgb)
}
