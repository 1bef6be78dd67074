package experiment

import (
	"encoding/json"
	"fmt"
	"github.com/piopt/piopt/ope"
	"os"

	"github.com/piopt/piopt/internal/atomicfile"
	"github.com/piopt/piopt/trainer"
)

// Selection is how a PI-OPT model's rounds were chosen by their estimated
// value on the validation log: no label is read.
type Selection struct {
	Criterion string `json:"criterion"` // e.g. "pi-ndcg@3"
	Trees     int    `json:"trees"`     // rounds kept (the best round)
	Trained   int    `json:"trained"`   // rounds trained before early stopping
	Value     jfloat `json:"value"`     // estimate at the best round
	Lo        jfloat `json:"lo"`        // its 95% interval (null with one validation query)
	Hi        jfloat `json:"hi"`
	// Rounds holds every round's estimate and interval, [value, lo, hi].
	Rounds [][3]jfloat `json:"rounds"`
}

// jfloat is a float64 whose NaN is JSON's null (ope.Float, the one such
// type).
type jfloat = ope.Float

func newSelection(m *trainer.Model) *Selection {
	s := &Selection{Criterion: m.Metric, Trees: m.Rounds, Trained: m.Trained}
	for _, r := range m.History {
		s.Rounds = append(s.Rounds, [3]jfloat{jfloat(r.Valid), jfloat(r.ValidLo), jfloat(r.ValidHi)})
	}
	if b := m.BestIteration; b >= 0 && b < len(m.History) {
		h := m.History[b]
		s.Value, s.Lo, s.Hi = jfloat(h.Valid), jfloat(h.ValidLo), jfloat(h.ValidHi)
	}
	return s
}

// selectionPath is where the selection record of the model at path lives.
func selectionPath(model string) string { return model + ".selection.json" }

func writeSelection(model string, s *Selection) error {
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(selectionPath(model), append(b, '\n'))
}

func readSelection(model string) (*Selection, error) {
	b, err := os.ReadFile(selectionPath(model))
	if err != nil {
		return nil, err
	}
	var s Selection
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", selectionPath(model), err)
	}
	return &s, nil
}
