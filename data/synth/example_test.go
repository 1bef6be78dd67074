package synth_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/piopt/piopt/data/synth"
)

// Generate a tiny five-fold dataset; the same seed gives the same bytes
// whatever the number of threads.
func ExampleGenerate() {
	dir, err := os.MkdirTemp("", "synth-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	res, err := synth.Generate(context.Background(), dir, synth.Config{Queries: 5, Seed: 1, Threads: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d queries, %d documents, %d files\n", res.Queries, res.Docs, len(res.Files))
	for _, f := range res.Files[:2] {
		rel, _ := filepath.Rel(dir, f.Path)
		fmt.Println(rel)
	}
	// Output:
	// 5 queries, 668 documents, 20 files
	// S1.txt
	// S2.txt
}

// The MSLR fold rotation: fold k trains on three partitions, validates on
// the next and tests on the one after.
func ExampleFoldParts() {
	for k := range 5 {
		train, vali, test := synth.FoldParts(k)
		fmt.Printf("Fold%d: train S%d+S%d+S%d, vali S%d, test S%d\n",
			k+1, train[0]+1, train[1]+1, train[2]+1, vali+1, test+1)
	}
	// Output:
	// Fold1: train S1+S2+S3, vali S4, test S5
	// Fold2: train S2+S3+S4, vali S5, test S1
	// Fold3: train S3+S4+S5, vali S1, test S2
	// Fold4: train S4+S5+S1, vali S2, test S3
	// Fold5: train S5+S1+S2, vali S3, test S4
}

// Split 12 queries into the five partitions.
func ExamplePartition() {
	for k := range 5 {
		lo, hi := synth.Partition(12, k)
		fmt.Printf("S%d: queries [%d, %d)\n", k+1, lo, hi)
	}
	// Output:
	// S1: queries [0, 2)
	// S2: queries [2, 4)
	// S3: queries [4, 7)
	// S4: queries [7, 9)
	// S5: queries [9, 12)
}
