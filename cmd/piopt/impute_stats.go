package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/piopt/piopt/impute"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/internal/progress"
	"github.com/urfave/cli/v2"
)

// imputeStatsFromLog reads a slate log into per-query (or per-context)
// statistics, checking its header against the flags (which default to the
// header's values), and returns them with the logging policy's Γ cache.
func imputeStatsFromLog(c *cli.Context, ds *data.Dataset, path string) (*impute.Stats, *impute.GammaCache, data.Header, error) {
	flags := setupFlags(c)
	lr, err := data.OpenLogAssuming(path, ds, flags.Header())
	if err != nil {
		return nil, nil, nil, err
	}
	defer lr.Close()
	setup, _, err := policy.ReadSetup(lr, flags)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := logConventions(c, path, lr.Header()); err != nil {
		return nil, nil, nil, err
	}
	cands, gammas, err := setup.Policies(c.Context, ds, policy.Options{}, impute.GammaOptions{})
	if err != nil {
		return nil, nil, nil, err
	}
	st, err := impute.NewStats(cands, setup.Slots)
	if err != nil {
		return nil, nil, nil, err
	}
	bar := progress.New(os.Stderr, "impute", 0, "impressions")
	err = st.AddLog(c.Context, lr, bar.Add)
	bar.Done()
	if err != nil {
		return nil, nil, nil, err
	}
	h := lr.Header().Clone()
	if setup.Policy != nil {
		h["policy"] = filepath.Base(setup.Policy.Name)
	}
	return st, gammas, h, nil
}

// logConventions refuses a metric-convention flag given with --logs that
// the log's header contradicts or does not state: the rewards were scored
// by the logger, so such a flag could only be ignored.
func logConventions(c *cli.Context, path string, h data.Header) error {
	for _, k := range []struct{ flag, key string }{
		{"discount", "discount"}, {"empty-ndcg", "empty-query-ndcg"}, {"maxrel", "err-maxrel"},
	} {
		if !c.IsSet(k.flag) {
			continue
		}
		flag, have := c.String(k.flag), h[k.key]
		if k.flag == "discount" {
			d, err := eval.ParseDiscount(flag)
			if err != nil {
				return err
			}
			flag = d.String()
		}
		switch {
		case have == "":
			return fmt.Errorf("--%s %s: %s's header has no %s=; its rewards were scored by the logger, so --%s would have no effect", k.flag, c.String(k.flag), path, k.key, k.flag)
		case have != flag:
			return fmt.Errorf("--%s %s: %s's rewards were scored with %s=%s", k.flag, c.String(k.flag), path, k.key, have)
		}
	}
	return nil
}

// imputeStatsSimulated simulates n impressions straight into statistics.
func imputeStatsSimulated(c *cli.Context, ds *data.Dataset, n int64) (*impute.Stats, *impute.GammaCache, data.Header, error) {
	for _, f := range []string{"slots", "logging"} {
		if !c.IsSet(f) {
			return nil, nil, nil, fmt.Errorf("--samples needs --%s", f)
		}
	}
	if c.IsSet("policy") {
		return nil, nil, nil, fmt.Errorf("--policy reads a log's policy file: give it with --logs, not --samples")
	}
	setup, err := policy.ParseSetup(setupFlags(c))
	if err != nil {
		return nil, nil, nil, err
	}
	sim, gammas, metric, err := newSimulation(c, ds, setup)
	if err != nil {
		return nil, nil, nil, err
	}
	bar := progress.New(os.Stderr, "impute --samples", n, "samples")
	st, err := sim.Stats(c.Context, n, 0, bar.Add)
	bar.Done()
	if err != nil {
		return nil, nil, nil, err
	}
	return st, gammas, setup.Header(c.String("data"), ds, metric, n, sim.Seed), nil
}
