package features

// The piopt metadata stored inside every model file as XGBoost booster
// attributes, so that a command can refuse a model that does not fit its data.
// It has no cgo: the pure-Go inference path reads the same attributes from the
// saved file.

import (
	"fmt"
	"strconv"
)

// Kinds of model.
const (
	KindPIOPT      = "pi-opt"     // regression on PI targets, rows [f(x,a); onehot(j)]
	KindSUP        = "sup"        // regression on gains (or grades), rows f(x,a)
	KindLambdaMART = "lambdamart" // rank:ndcg on labels, rows f(x,a)
)

// Attribute keys as stored in the model.
const (
	keyKind     = "piopt_kind"
	keySlots    = "piopt_slots"
	keyFeatures = "piopt_features"
	keyMetric   = "piopt_metric"
	keyTargets  = "piopt_targets"
	keyVersion  = "piopt_version"
)

// metaVersion is the version of the metadata layout.
const metaVersion = "1"

// Meta describes what a model was trained on.
type Meta struct {
	Kind     string // KindPIOPT, KindSUP or KindLambdaMART
	Slots    int    // ℓ of a PI-OPT model (its one-hot columns); 0 otherwise
	Features int    // F: document feature columns (before the slot one-hot)
	Metric   string // metric the targets were made for, e.g. "ndcg@3"; or the SUP target
	Targets  string // how the targets were made (free text, e.g. the targets header)
}

// Columns returns the number of input columns the model expects.
func (m Meta) Columns() int { return m.Features + m.Slots }

// Attrs returns the attributes to store in the booster.
func (m Meta) Attrs() map[string]string {
	return map[string]string{
		keyKind:     m.Kind,
		keySlots:    strconv.Itoa(m.Slots),
		keyFeatures: strconv.Itoa(m.Features),
		keyMetric:   m.Metric,
		keyTargets:  m.Targets,
		keyVersion:  metaVersion,
	}
}

// MetaFromAttrs reads Meta back from booster attributes.
func MetaFromAttrs(a map[string]string) (Meta, error) {
	var m Meta
	m.Kind = a[keyKind]
	switch m.Kind {
	case KindPIOPT, KindSUP, KindLambdaMART:
	case "":
		return m, fmt.Errorf("model has no piopt metadata (attribute %s): not made by piopt train", keyKind)
	default:
		return m, fmt.Errorf("model kind %q unknown", m.Kind)
	}
	var err error
	if m.Slots, err = strconv.Atoi(a[keySlots]); err != nil || m.Slots < 0 {
		return m, fmt.Errorf("model attribute %s = %q: not a slot count", keySlots, a[keySlots])
	}
	if m.Features, err = strconv.Atoi(a[keyFeatures]); err != nil || m.Features < 1 {
		return m, fmt.Errorf("model attribute %s = %q: not a feature count", keyFeatures, a[keyFeatures])
	}
	if m.Kind == KindPIOPT && m.Slots < 1 {
		return m, fmt.Errorf("pi-opt model with %d slots", m.Slots)
	}
	m.Metric = a[keyMetric]
	m.Targets = a[keyTargets]
	return m, nil
}
