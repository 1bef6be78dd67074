package ope

import (
	"fmt"
	"slices"
	"strings"
)

// Estimator names: the values of --estimators and the keys of JSON results.
const (
	PI       = "pi"
	WPI      = "wpi"
	PICV     = "pi-cv"
	DR       = "dr"
	WDR      = "wdr"
	IPS      = "ips"
	WIPS     = "wips"
	DM       = "dm"
	OnPolicy = "onpolicy"
)

// DMVariant is one direct-method estimator: a regression model and whether
// its predictions are clipped to the range of the training rewards.
type DMVariant struct {
	Name  string // JSON key: dm, dm-clip, dm-tree, dm-linear-clip, ...
	Model string // "tree" or "linear"
	Clip  bool
}

// Estimators is a parsed --estimators list.
type Estimators struct {
	PI, WPI, IPS, WIPS, OnPolicy bool
	// PICV is PI with the control variate G − 1 (see CVEvaluator).
	PICV bool
	// DR and WDR are doubly-robust PI and its self-normalised version
	// (see DREvaluator), with the reward model of EvalOptions.Baseline.
	DR, WDR bool
	DM      []DMVariant
}

// Baseline reports whether dr or wdr is asked: the estimators that need
// a reward model (EvalOptions.Baseline, SweepConfig.Baseline).
func (e Estimators) Baseline() bool { return e.DR || e.WDR }

// FitsModels reports whether an estimator that fits models is asked: DM's
// variants, dr or wdr (SweepConfig.FitPoints).
func (e Estimators) FitsModels() bool { return len(e.DM) > 0 || e.Baseline() }

// Names returns the estimators' JSON keys in canonical order.
func (e Estimators) Names() []string {
	var out []string
	for _, x := range []struct {
		on   bool
		name string
	}{{e.PI, PI}, {e.WPI, WPI}, {e.PICV, PICV}, {e.DR, DR}, {e.WDR, WDR}, {e.IPS, IPS}, {e.WIPS, WIPS}} {
		if x.on {
			out = append(out, x.name)
		}
	}
	for _, v := range e.DM {
		out = append(out, v.Name)
	}
	if e.OnPolicy {
		out = append(out, OnPolicy)
	}
	return out
}

// ParseEstimators reads a comma-separated list of estimator names:
// pi, wpi, pi-cv, dr, wdr, ips, wips, onpolicy, and the direct method as dm (a regression
// tree, alias of dm-tree), dm-tree, dm-linear (lasso), each with an optional
// -clip suffix (predictions clipped to the range of the training rewards),
// e.g. dm-clip, dm-linear-clip. "all" means pi,wpi,pi-cv,dr,wdr,ips,wips,
// dm,dm-clip,dm-linear,dm-linear-clip,onpolicy.
func ParseEstimators(list string) (Estimators, error) {
	var e Estimators
	if strings.TrimSpace(list) == "all" {
		list = "pi,wpi,pi-cv,dr,wdr,ips,wips,dm,dm-clip,dm-linear,dm-linear-clip,onpolicy"
	}
	seen := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" {
			continue
		}
		if seen[name] {
			return e, fmt.Errorf("estimator %q listed twice", name)
		}
		seen[name] = true
		switch name {
		case PI:
			e.PI = true
		case WPI:
			e.WPI = true
		case IPS:
			e.IPS = true
		case WIPS:
			e.WIPS = true
		case PICV:
			e.PICV = true
		case DR:
			e.DR = true
		case WDR:
			e.WDR = true
		case OnPolicy:
			e.OnPolicy = true
		default:
			v, ok := parseDM(name)
			if !ok {
				return e, fmt.Errorf("unknown estimator %q (want pi, wpi, pi-cv, dr, wdr, ips, wips, dm, dm-clip, dm-tree[-clip], dm-linear[-clip], onpolicy)", name)
			}
			for _, w := range e.DM {
				if w.Model == v.Model && w.Clip == v.Clip {
					return e, fmt.Errorf("estimators %q and %q are the same", w.Name, v.Name)
				}
			}
			e.DM = append(e.DM, v)
		}
	}
	if len(e.Names()) == 0 {
		return e, fmt.Errorf("no estimator in %q", list)
	}
	return e, nil
}

func parseDM(name string) (DMVariant, bool) {
	v := DMVariant{Name: name}
	rest, ok := strings.CutPrefix(name, DM)
	if !ok {
		return v, false
	}
	rest, v.Clip = strings.CutSuffix(rest, "-clip")
	switch rest {
	case "", "-tree":
		v.Model = "tree"
	case "-linear":
		v.Model = "linear"
	default:
		return v, false
	}
	return v, true
}

// estimators returns the estimators opt.Estimators asks for, in canonical
// order (that of Estimators.Names).
func (p *Plan) estimators(opt EvalOptions) ([]Estimator, error) {
	est := opt.Estimators
	var out []Estimator
	if est.PI || est.WPI {
		out = append(out, &piEstimator{plan: p, pi: est.PI, wpi: est.WPI})
	}
	if est.PICV {
		c, err := p.newCV(cvFolds(opt.CVFolds))
		if err != nil {
			return nil, err
		}
		out = append(out, &picvEstimator{c})
	}
	if est.Baseline() {
		if err := opt.Baseline.check(); err != nil {
			return nil, err
		}
		out = append(out, &drEstimator{plan: p, baseline: opt.Baseline, dr: est.DR, wdr: est.WDR, samples: NewSamples(p.Slots, 0)})
	}
	if est.IPS || est.WIPS {
		out = append(out, &ipsEstimator{plan: p, ips: est.IPS, wips: est.WIPS})
	}
	if len(est.DM) > 0 {
		if p.HasUnseen() {
			return nil, fmt.Errorf("dm: the target %s shows documents the logging policy never shows: DM has no features for them", p.Target.Name())
		}
		out = append(out, &dmEstimator{plan: p, variants: est.DM, regs: opt.Regressors, trainN: opt.DMTrain,
			train: NewSamples(p.Slots, 0), evalCounts: make([]int64, p.Candidates.NumQueries())})
	}
	if est.OnPolicy {
		out = append(out, &onPolicyEstimator{plan: p})
	}
	return out, nil
}

// HasUnseen reports whether some query's target slate holds Unseen: DM,
// which scores the target's slates by their documents' features, cannot
// evaluate it.
func (p *Plan) HasUnseen() bool {
	for q := range p.queries {
		if slices.Contains(p.queries[q].star, Unseen) {
			return true
		}
	}
	return false
}

// onNames returns the names whose flag is on, in order.
func onNames(on []bool, names ...string) []string {
	var out []string
	for i, o := range on {
		if o {
			out = append(out, names[i])
		}
	}
	return out
}
