package main

import (
	"github.com/piopt/piopt/internal/policy"
	"github.com/urfave/cli/v2"
)

// setupFlags reads the logging-setup flags (--slots, --logging, --rank-by,
// --candidates, --candidates-by, --metric) that a command defines.
func setupFlags(c *cli.Context) policy.Flags {
	return policy.Flags{
		Slots: c.Int("slots"), Logging: c.String("logging"), RankBy: c.String("rank-by"),
		Candidates: c.Int("candidates"), CandidatesBy: c.String("candidates-by"),
		Metric: c.String("metric"), Policy: c.String("policy"),
		SlotsSet: c.IsSet("slots"), LoggingSet: c.IsSet("logging"), RankBySet: c.IsSet("rank-by"),
		CandidatesSet: c.IsSet("candidates"), CandidatesBySet: c.IsSet("candidates-by"), MetricSet: c.IsSet("metric"),
		Stated: statedFlags(c),
	}
}

// statedFlags are the metric-convention flags given explicitly, which
// ReadSetup checks against a log's header.
func statedFlags(c *cli.Context) map[string]string {
	var out map[string]string
	for f := range policy.StatedKeys {
		if c.IsSet(f) {
			if out == nil {
				out = map[string]string{}
			}
			out[f] = c.String(f)
		}
	}
	return out
}
