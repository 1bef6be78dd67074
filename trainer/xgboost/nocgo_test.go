//go:build !cgo

package xgboost

import (
	"errors"
	"testing"
)

func TestNoCgo(t *testing.T) {
	if Available {
		t.Fatal("Available without cgo")
	}
	_, err := NewDMatrix(Dense{Data: make([]float32, 2), Rows: 1, Cols: 2}, MatrixOptions{})
	if !errors.Is(err, ErrNoCgo) {
		t.Fatalf("NewDMatrix: %v", err)
	}
	if _, err := NewBooster(nil); !errors.Is(err, ErrNoCgo) {
		t.Fatalf("NewBooster: %v", err)
	}
	if _, err := LoadBooster([]byte("x")); !errors.Is(err, ErrNoCgo) {
		t.Fatalf("LoadBooster: %v", err)
	}
}
