package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/internal/policy"
	"github.com/piopt/piopt/ope"
)

// logData is the dataset an evaluation from a log reads: the LETOR file
// path when given, else the documents the log's policy file names
// (data.DocNamesFromPolicyFile): evaluating from a log needs no features
// unless an estimator or a target reads them.
func logData(ctx context.Context, path string, opt data.ReadOptions, logs string, setup policy.Flags, w io.Writer) (*data.Dataset, error) {
	if path != "" {
		return load(ctx, path, opt, w)
	}
	pf := setup.Policy
	if pf == "" {
		h, err := data.ReadLogHeader(logs)
		if err != nil {
			return nil, err
		}
		files, err := data.LogFiles(logs)
		if err != nil {
			return nil, err
		}
		pf = data.PolicyPath(files[0], h)
	}
	if pf == "" {
		return nil, errors.New("no --data: without a dataset the logging policy must be a policy file (--policy FILE, or the log header's policy=), whose candidate lists name the documents; give --data FILE for a named logging policy")
	}
	return data.DocNamesFromPolicyFile(pf)
}

// needsData refuses, on a dataset of names only, the targets and the
// estimators that read the documents' features or labels, in one line
// naming --data.
func needsData(ds *data.Dataset, flag string, targets []string, est ope.Estimators) error {
	if !ds.NamesOnly() {
		return nil
	}
	for _, t := range targets {
		if _, _, ok := policy.DataTarget(t); ok {
			continue
		}
		if _, err := policy.Resolve(t, policy.Options{}); err != nil {
			return fmt.Errorf("%s: %w; a target is %s", flag, err, policy.TargetKinds)
		}
		if _, _, ok := policy.DataTarget(t); !ok {
			return fmt.Errorf("%s %s needs --data: it reads the documents' features", flag, t)
		}
	}
	var need []string
	for _, x := range []struct {
		on   bool
		name string
	}{{est.DR, ope.DR}, {est.WDR, ope.WDR}, {est.OnPolicy, ope.OnPolicy}} {
		if x.on {
			need = append(need, x.name)
		}
	}
	for _, v := range est.DM {
		need = append(need, v.Name)
	}
	if len(need) > 0 {
		return fmt.Errorf("--estimators %s needs --data: it reads the documents' features or labels", strings.Join(need, ","))
	}
	return nil
}
