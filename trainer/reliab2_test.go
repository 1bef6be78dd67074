//go:build cgo

package trainer

import (
	"context"
	"errors"
	"testing"
)

// Issue 30, class 5: weights that are all 0 once in float32 (targets'
// weights are float64; 1e-50 rounds to 0) trained a constant model without
// a word; they are refused before training. One weight above 0 suffices.
func TestLesser_ZeroWeights(t *testing.T) {
	ctx := context.Background()
	tiny := 1e-50
	x := noisy(20, 2)
	x.Weights = make([]float32, x.Rows)
	for i := range x.Weights {
		x.Weights[i] = float32(tiny)
	}
	if _, err := Train(ctx, x, nil, small(), nil); !errors.Is(err, errZeroWeights) {
		t.Fatalf("weights all %g: got %v, want %v", tiny, err, errZeroWeights)
	}
	x.Weights[7] = float32(1e-30)
	if _, err := Train(ctx, x, nil, small(), nil); err != nil {
		t.Fatalf("one weight 1e-30: %v", err)
	}
	x.Weights = nil // every row weighs 1
	if _, err := Train(ctx, x, nil, small(), nil); err != nil {
		t.Fatalf("no weights: %v", err)
	}
}
