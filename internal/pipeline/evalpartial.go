package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/internal/atomicfile"
	"github.com/piopt/piopt/internal/evalreport"
	"github.com/piopt/piopt/ope"
)

// An evaluate partial (kind=evaluate) holds, as one JSON line after its
// header, the shard's evaluation setup and its ope.EvalPartial: the exact
// sums of every estimator and interval. Its header's settings-sha256 hashes
// everything that must agree between the shards of one run (estimators,
// intervals, the plan's σ², ρ, Γ and true value, the setup but its
// counts and command line), so that merge names a partial of another run.
type evalPartialBody struct {
	Setup   evalreport.EvaluateSetup `json:"setup"`
	Partial *ope.EvalPartial         `json:"partial"`
}

// settingsHash hashes what the shards of one run share.
func (b *evalPartialBody) settingsHash() (string, error) {
	s := b.Setup
	s.Samples, s.LoggedQueries, s.Command = 0, 0, ""
	p := *b.Partial
	p.N, p.Queries, p.Sigma2, p.PI, p.IPS, p.CV, p.OnPolicy, p.Boot = 0, 0, "", nil, nil, nil, "", nil
	p.Coverage = evalPartialBodyCoverage
	j, err := json.Marshal(evalPartialBody{Setup: s, Partial: &p})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(j)
	return hex.EncodeToString(sum[:]), nil
}

// evalPartialBodyCoverage is the zero coverage part, left out of the hash.
var evalPartialBodyCoverage = (&ope.EvalPartial{}).Coverage

// writeEvalPartial writes an evaluator's state after the shard's records.
func writeEvalPartial(cfg EvaluateConfig, setup evalreport.EvaluateSetup, part *ope.EvalPartial, policyHash string) error {
	body := &evalPartialBody{Setup: setup, Partial: part}
	settings, err := body.settingsHash()
	if err != nil {
		return fmt.Errorf("evaluate --partial: %w", err)
	}
	j, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("evaluate --partial: %w", err)
	}
	h := data.Header{"kind": "evaluate", "shard": cfg.Shard.String(), "samples": strconv.FormatInt(part.N, 10),
		"logged": strconv.Itoa(part.Queries), "target": setup.Target, "settings-sha256": settings}
	if policyHash != "" {
		h[data.PolicyHashKey] = policyHash
	}
	pw, err := createPartial(cfg.Partial, h)
	if err != nil {
		return err
	}
	if _, err := pw.Write(append(j, '\n')); err != nil {
		pw.f.Abort()
		return err
	}
	return pw.commit()
}

// MergeEstimates merges the evaluate partials of every shard of a run and
// writes the estimates JSON of the unsharded run to jsonPath. Its setup's
// command is the shards' with --shard and --partial left out and
// "--json jsonPath" added at the end.
func MergeEstimates(ctx context.Context, paths []string, jsonPath string) (*MergeResult, error) {
	parts, err := readPartials(paths, "evaluate")
	if err != nil {
		return nil, err
	}
	var bodies []*evalPartialBody
	var evs []*ope.EvalPartial
	for _, p := range parts {
		var b evalPartialBody
		dec := json.NewDecoder(bytes.NewReader(p.body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&b); err != nil || b.Partial == nil {
			return nil, fmt.Errorf("merge: %s: line 2: not an evaluate partial's JSON: %v", p.name, err)
		}
		if h, err := b.settingsHash(); err != nil || h != p.header["settings-sha256"] {
			return nil, fmt.Errorf("merge: %s: line 2 does not match its header's settings-sha256", p.name)
		}
		bodies, evs = append(bodies, &b), append(evs, b.Partial)
	}
	res, err := ope.MergeEvalPartials(ctx, evs)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	setup := bodies[0].Setup
	setup.Samples, setup.LoggedQueries, setup.Command = res.N, res.Queries, mergedCommand(setup.Command, jsonPath)
	if err := atomicfile.WriteJSON(jsonPath, evalreport.EstimatesJSON(&setup, res)); err != nil {
		return nil, err
	}
	return &MergeResult{Kind: "evaluate", Shards: len(parts), Impressions: res.N, Logged: res.Queries, Out: jsonPath}, nil
}

// mergedCommand is a shard's command line without --shard and --partial
// (and their values), with --json out added.
func mergedCommand(cmd, out string) string {
	f := strings.Split(cmd, " ")
	var kept []string
	for i := 0; i < len(f); i++ {
		switch {
		case f[i] == "--shard" || f[i] == "--partial" || f[i] == "-shard" || f[i] == "-partial":
			i++
		case strings.HasPrefix(f[i], "--shard=") || strings.HasPrefix(f[i], "--partial="):
		default:
			kept = append(kept, f[i])
		}
	}
	if strings.ContainsAny(out, " \t'\"$") {
		out = "'" + strings.ReplaceAll(out, "'", `'\''`) + "'"
	}
	return strings.Join(append(kept, "--json", out), " ")
}

// partial folds the shard's records of lr into an evaluator and writes
// its state to cfg.Partial.
func (e *evaluation) partial(ctx context.Context, lr *data.LogReader) error {
	ev, err := e.plan.NewEvaluator(e.opt)
	if err != nil {
		return err
	}
	add, done := passBar(e.cfg.Progress, "evaluate")()
	err = ev.AddLog(ctx, lr, add)
	done()
	if err != nil {
		return err
	}
	part, err := ev.Partial()
	if err != nil {
		return fmt.Errorf("evaluate --shard: %w", err)
	}
	part.NonAdditive = e.nonAdditive
	setup := e.setup(&ope.Result{N: part.N, Queries: part.Queries, TrueValue: e.plan.TrueValue})
	var hash string
	if e.ls.Policy != nil {
		hash = e.ls.Policy.Hash
	}
	return writeEvalPartial(e.cfg, setup, part, hash)
}
