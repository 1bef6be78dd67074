package policy

import (
	"fmt"
	"slices"
	"testing"

	"github.com/piopt/piopt/data"
)

func TestSubsetsMSLR(t *testing.T) {
	for _, tc := range []struct {
		spec string
		n    int
		has  []int
		not  []int
	}{
		// Body stream of group g is 5g+1; title 5g+3.
		{"body", 25, []int{1, 6, 121}, []int{2, 3, 126}},
		{"title", 25, []int{3, 8, 123}, []int{1, 126}},
		{"url-side", 50 + 6, []int{2, 4, 7, 9, 122, 124, 126, 131}, []int{1, 3, 5, 132}},
		{"body-side", 75 + 2, []int{1, 3, 5, 6, 125, 132, 133}, []int{2, 4, 126, 131, 134}},
		{"doc", 11, []int{126, 136}, []int{125}},
		{"1-5+126", 6, []int{1, 5, 126}, []int{6}},
		{"body+1-2", 26, []int{1, 2, 6}, []int{3}},
	} {
		got, err := ParseSubset(tc.spec, 136)
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if len(got) != tc.n || !slices.IsSorted(got) {
			t.Errorf("%s: %d features %v, want %d sorted", tc.spec, len(got), got, tc.n)
		}
		for _, f := range tc.has {
			if !slices.Contains(got, f) {
				t.Errorf("%s lacks feature %d", tc.spec, f)
			}
		}
		for _, f := range tc.not {
			if slices.Contains(got, f) {
				t.Errorf("%s has feature %d", tc.spec, f)
			}
		}
	}
	// The two sides of the paper's experiment are disjoint.
	u, _ := ParseSubset("url-side", 136)
	b, _ := ParseSubset("body-side", 136)
	for _, f := range u {
		if slices.Contains(b, f) {
			t.Fatalf("feature %d on both sides", f)
		}
	}
}

func TestSubsetsLETOR4(t *testing.T) {
	u, err := ParseSubset("url-side", 46)
	if err != nil {
		t.Fatal(err)
	}
	// Anchor (5g+2) and url (5g+4) of 8 groups, plus 41..46.
	want := []int{2, 4, 7, 9, 12, 14, 17, 19, 22, 24, 27, 29, 32, 34, 37, 39, 41, 42, 43, 44, 45, 46}
	if !slices.Equal(u, want) {
		t.Fatalf("url-side %v, want %v", u, want)
	}
	b, _ := ParseSubset("body-side", 46)
	if len(b) != 24 || b[0] != 1 || b[len(b)-1] != 40 {
		t.Fatalf("body-side %v", b)
	}
}

func TestSubsetErrors(t *testing.T) {
	for _, tc := range []struct {
		spec string
		nf   int
	}{
		{"body", 10},       // no layout
		{"bodies", 136},    // unknown group
		{"0-3", 136},       // feature 0
		{"5-3", 136},       // empty range
		{"130-140", 136},   // past the end
		{"body++url", 136}, // empty item
	} {
		if _, err := ParseSubset(tc.spec, tc.nf); err == nil {
			t.Errorf("ParseSubset(%q, %d) accepted", tc.spec, tc.nf)
		}
	}
}

func TestMasked(t *testing.T) {
	ds := &data.Dataset{NumFeatures: 3, Features: []float32{1, 2, 3, 4, 5, 6}, Labels: []uint8{0, 1},
		QueryOffsets: []int{0, 2}, QIDs: []string{"q"}}
	got := Masked(ds, []int{1, 3})
	if want := []float32{1, 0, 3, 4, 0, 6}; !slices.Equal(got, want) {
		t.Fatalf("Masked = %v, want %v", got, want)
	}
	if ds.Features[1] != 2 {
		t.Fatal("Masked changed the dataset")
	}
}

func ExampleParseSubset() {
	f, _ := ParseSubset("url-side", 136)
	fmt.Println(len(f), f[:4], f[len(f)-6:])
	// Output: 56 [2 4 7 9] [126 127 128 129 130 131]
}
