package evalgrid

import (
	"fmt"
	"strconv"
	"strings"
)

// Space is a slate space: the top M documents of a query are its
// candidates and slates have L slots, logged with p_α for each α of Alphas.
type Space struct {
	M, L   int
	Alphas []float64
}

// String is the space as flags and names spell it, "10x5".
func (s Space) String() string { return fmt.Sprintf("%dx%d", s.M, s.L) }

// The paper's defaults (Sec. 4.1, App. E).
var (
	// Metrics: NDCG, which is linear in the slots, and ERR, which is not.
	DefaultMetrics = []string{"ndcg", "err"}
	// Spaces: (m, ℓ) = (10, 5) logged with α ∈ {1, 2} and (100, 10) with
	// α ∈ {0.5, 1}: the larger space takes the flatter p_α so that its
	// lower ranks are still logged.
	DefaultSpaces = []Space{{M: 10, L: 5, Alphas: []float64{1, 2}}, {M: 100, L: 10, Alphas: []float64{0.5, 1}}}
	// LoggingModels rank the candidates for p_α: the url-side models.
	DefaultLoggingModels = []string{"lasso:url-side", "tree:url-side"}
	// Targets are the top ℓ by a body-side model.
	DefaultTargets = []string{"tree:body-side", "lasso:body-side"}
	// CandidatesBy chooses every query's top m for every logging policy
	// (the paper's tree_title).
	DefaultCandidatesBy = "tree:url-side"
)

// Definition is the grid: every metric × space × (uniform and p_α for each
// α of the space and each logging model) × target.
type Definition struct {
	Metrics       []string
	Spaces        []Space
	LoggingModels []string // rank sources of p_α
	Targets       []string // rank sources (or model:PATH) of the targets
	CandidatesBy  string   // rank source choosing each query's top m
}

// Default is the paper's grid: 2 × 2 × 10 = 40 conditions.
func Default() Definition {
	return Definition{Metrics: DefaultMetrics, Spaces: DefaultSpaces, LoggingModels: DefaultLoggingModels,
		Targets: DefaultTargets, CandidatesBy: DefaultCandidatesBy}
}

// Condition is one cell of the grid: one sweep.
type Condition struct {
	Metric  string
	Space   Space
	Logging string // impute.ParseLogging spelling: uniform or pa:ALPHA
	RankBy  string // the logging model of pa; "" for uniform
	Target  string
}

// Combo names the logging/target combination within its metric and space,
// "pa:1 lasso:url-side → tree:body-side".
func (c Condition) Combo() string {
	lg := c.Logging
	if c.RankBy != "" {
		lg += " " + c.RankBy
	}
	return lg + " → " + c.Target
}

// Name is the condition's file name stem, made of its parts with every
// character but letters, digits, '.' and '-' turned into '-':
// "ndcg_10x5_pa-1_lasso-url-side_tree-body-side".
func (c Condition) Name() string {
	parts := []string{c.Metric, c.Space.String(), c.Logging}
	if c.RankBy != "" {
		parts = append(parts, c.RankBy)
	}
	parts = append(parts, c.Target)
	for i, p := range parts {
		parts[i] = strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
				return r
			}
			return '-'
		}, p)
	}
	return strings.Join(parts, "_")
}

// Conditions lists the grid's conditions, space by space (so that one
// space's query subset is in memory at a time), then metric, target,
// logging policy: uniform, then each logging model with each α.
func (d Definition) Conditions() []Condition {
	var out []Condition
	for _, sp := range d.Spaces {
		for _, m := range d.Metrics {
			for _, t := range d.Targets {
				out = append(out, Condition{Metric: m, Space: sp, Logging: "uniform", Target: t})
				for _, lm := range d.LoggingModels {
					for _, a := range sp.Alphas {
						out = append(out, Condition{Metric: m, Space: sp, Logging: "pa:" + strconv.FormatFloat(a, 'g', -1, 64), RankBy: lm, Target: t})
					}
				}
			}
		}
	}
	return out
}

// Check reports a definition that names no condition or gives two
// conditions the same file name.
func (d Definition) Check() error {
	cs := d.Conditions()
	if len(cs) == 0 {
		return fmt.Errorf("evalgrid: the grid has no condition (metrics %v, spaces %v, targets %v)", d.Metrics, d.Spaces, d.Targets)
	}
	seen := map[string]bool{}
	for _, c := range cs {
		if seen[c.Name()] {
			return fmt.Errorf("evalgrid: two conditions named %s", c.Name())
		}
		seen[c.Name()] = true
	}
	return nil
}

// ParseSpaces reads a comma-separated list of the default spaces, as
// "10x5,100x10" (each with the paper's α values); "" or "all" is all.
func ParseSpaces(list string) ([]Space, error) {
	if list == "" || list == "all" {
		return DefaultSpaces, nil
	}
	var out []Space
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		found := false
		for _, sp := range DefaultSpaces {
			if sp.String() == name {
				out, found = append(out, sp), true
			}
		}
		if !found {
			return nil, fmt.Errorf("slate space %q: want one of 10x5, 100x10", name)
		}
	}
	return out, nil
}

// ParseMetrics reads a comma-separated list of ndcg and err; "" or "all"
// is both.
func ParseMetrics(list string) ([]string, error) {
	if list == "" || list == "all" {
		return DefaultMetrics, nil
	}
	var out []string
	for _, m := range strings.Split(list, ",") {
		m = strings.ToLower(strings.TrimSpace(m))
		if m != "ndcg" && m != "err" {
			return nil, fmt.Errorf("metric %q: want ndcg or err", m)
		}
		out = append(out, m)
	}
	return out, nil
}

// List splits a comma-separated flag value, dropping empty items.
func List(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
