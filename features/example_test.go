package features_test

import (
	"fmt"
	"log"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/features"
)

// One query of two docs with F = 1 and targets for slot 1 and 2 of doc 1.
func ExamplePIOPT() {
	ds := &data.Dataset{Features: []float32{0.5, 0.9}, NumFeatures: 1, Labels: []uint8{0, 1},
		QueryOffsets: []int{0, 2}, QIDs: []string{"q1"}}
	t := &data.Targets{Slots: 2, Query: []int32{0, 0}, Doc: []int32{1, 1}, Slot: []uint8{1, 2},
		Target: []float64{1.5, -0.5}, Weight: []float64{0.25, 0.25}}
	m, err := features.PIOPT(ds, t)
	if err != nil {
		log.Fatal(err)
	}
	for i := range m.Rows {
		fmt.Println(m.AppendRow(nil, i), m.Labels[i], m.Weights[i])
	}
	// Output:
	// [0.9 1 0] 1.5 0.25
	// [0.9 0 1] -0.5 0.25
}

func ExampleSUP() {
	ds := &data.Dataset{Features: []float32{0.5, 0.9, 0.1}, NumFeatures: 1, Labels: []uint8{0, 2, 1},
		QueryOffsets: []int{0, 3}, QIDs: []string{"q1"}}
	m, err := features.SUP(ds, features.Gain)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Labels, m.Weights[0])
	// Output: [0 3 1] 0.33333334
}
