//go:build cgo

package xgboost

/*
#include <stdint.h>
#include <xgboost/c_api.h>
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

// filler makes the rows of a Dense with Fill for the quantile iterator.
type filler struct {
	fill     func(dst []float32, lo, hi int)
	cols     int
	panicked any // a panic in fill, raised again once XGBoost has returned
}

// pioptFill is called by the iterator in C, on the goroutine that called
// XGQuantileDMatrixCreateFromCallback. A panic must not unwind through
// XGBoost's frames: it is kept and raised again by repanic.
//
//export pioptFill
func pioptFill(h C.uintptr_t, dst *C.float, lo, n C.bst_ulong) (rc C.int) {
	f := cgo.Handle(h).Value().(*filler)
	defer func() {
		if r := recover(); r != nil {
			f.panicked, rc = r, 1
		}
	}()
	rows := int(n)
	f.fill(unsafe.Slice((*float32)(unsafe.Pointer(dst)), rows*f.cols), int(lo), int(lo)+rows)
	return 0
}

func (f *filler) repanic() {
	if f.panicked != nil {
		panic(f.panicked)
	}
}
