package pipeline

import (
	"context"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/internal/policy"
)

// selectData is the dataset select reads: a slate log's (logData), or a
// log with a policy per row's, whose first pass it reads (rl, nil for a
// slate log).
func selectData(ctx context.Context, cfg SelectConfig) (*data.Dataset, *data.RowLog, error) {
	if !data.IsRowLog(cfg.Logs) {
		ds, err := logData(ctx, cfg.Data, cfg.Read, cfg.Logs, cfg.Setup, cfg.Progress)
		return ds, nil, err
	}
	rl, _, err := openRowLog(ctx, cfg.Data, cfg.Read, cfg.Logs, cfg.Setup, cfg.Progress)
	if err != nil {
		return nil, nil, err
	}
	return rl.Dataset, rl, nil
}

// openSelectLog opens select's log on ds for its one pass: a slate log
// with its setup and metric (policy.OpenLog), or the second pass of the
// row log rl, whose metric is --metric's.
func openSelectLog(cfg SelectConfig, ds *data.Dataset, rl *data.RowLog) (*data.LogReader, policy.Setup, string, error) {
	if rl == nil {
		return policy.OpenLog(cfg.Logs, ds, cfg.Setup)
	}
	lr, err := rl.Open()
	if err != nil {
		return nil, policy.Setup{}, "", err
	}
	metric := ""
	if cfg.Setup.MetricSet {
		metric = cfg.Setup.Metric
	}
	return lr, policy.Setup{Slots: rl.Slots, Policy: rl.Policy}, metric, nil
}
